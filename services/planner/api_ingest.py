"""HTTP route of media analysis: footage and music folders → a durable job → Task.1 clips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from protocol.common import error_responses
from protocol.jobs import JobOut
from protocol.planner import AnalyzeRequest
from services.common.errors import UnavailableError
from services.planner.ingest.paths import AUDIO_EXTENSIONS, VIDEO_EXTENSIONS, expand
from services.planner.ingesting import ANALYZE_KIND, ingest_available

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
    payload = await run_in_threadpool(analysis_payload, body, media_root)
    job = await run_in_threadpool(request.app.state.jobs.submit, ANALYZE_KIND, payload)
    return JobOut.from_job(job)


def analysis_payload(body: AnalyzeRequest, media_root: Path) -> dict[str, Any]:
    """The job's payload: every file, relative to the root; raises for a path outside it
    or one that does not exist (naming ``paths[i]`` / ``music[i]``)."""
    files = expand(body.paths, media_root, field="paths", extensions=VIDEO_EXTENSIONS)
    music = expand(body.music, media_root, field="music", extensions=AUDIO_EXTENSIONS)
    return {
        "files": files,
        "music": music,
        "split_shots": body.split_shots,
        "captions": body.captions,
    }
