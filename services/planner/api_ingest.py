"""HTTP route of media analysis: footage and music folders → a durable job → Task.1 clips."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from services.common.errors import UnavailableError
from services.common.protocol import JobOut, error_responses
from services.planner.ingesting import ANALYZE_KIND, ingest_available
from services.planner.protocol import AnalyzeRequest

router = APIRouter(prefix="/v1", tags=["planner"])


@router.post(
    "/media:analyze",
    response_model=JobOut,
    status_code=202,
    responses=error_responses(400, 413, 422, 503),
)
async def analyze_media(body: AnalyzeRequest, request: Request) -> JobOut:
    """Queue the analysis of footage (shots, tags, quality, captions) and music (beats);
    poll ``GET /v1/jobs/{id}``, then read ``GET /v1/jobs/{id}/output``
    (``{"clips", "music", "errors"}``)."""
    if not ingest_available():
        raise UnavailableError(
            "media analysis needs the ingest extra: pip install 'refinery[ingest]'",
            code="ingest_unavailable",
        )
    media_root = request.app.state.settings.media_root
    payload = await run_in_threadpool(body.to_payload, media_root)
    job = await run_in_threadpool(request.app.state.jobs.submit, ANALYZE_KIND, payload)
    return JobOut.from_job(job)
