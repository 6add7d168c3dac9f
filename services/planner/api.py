"""HTTP routes of the planner; each parses, calls a service function, answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import orjson
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from protocol.common import DbInt, error_responses
from protocol.jobs import JobOut
from protocol.media import resolve_media
from protocol.planner import (
    AnalysisOutput,
    PlanRequest,
    PlanResponse,
    ProposerOut,
    RegisterProposer,
)
from protocol.verifier import TaskIn, TimelineIn
from services.common.body import parse_object, validate
from services.common.errors import ConflictError, NotFoundError
from services.common.openapi import request_body
from services.common.responses import NDJSONResponse
from services.planner import records, service
from services.planner.config import PlannerSettings
from services.planner.events import NDJSON, plan_events
from services.planner.export.otio import otio_bytes
from services.planner.ingesting import ANALYZE_KIND
from services.planner.ingesting import output_path as analysis_path
from services.planner.registry import ProposerRegistry
from services.planner.rendering import RENDER_KIND, output_path

router = APIRouter(prefix="/v1", tags=["planner"])
_NDJSON_PAGE = {
    "description": "One scored record per line, oldest first",
    "headers": {
        "X-Next-Cursor": {"description": "the cursor to pass next", "schema": {"type": "string"}}
    },
    "content": {NDJSON: {"schema": {"type": "string", "description": "JSON Lines"}}},
}
_OTIO = {
    "description": "An OpenTimelineIO document (JSON, saved as <plan_id>.otio)",
    "content": {"application/json": {"schema": {"type": "object", "required": ["OTIO_SCHEMA"]}}},
}


@router.post(
    "/plan",
    response_model=PlanResponse,
    responses={
        200: {"content": {NDJSON: {}}, "description": "With `Accept: " + NDJSON + "`"},
        **error_responses(413, 422, 503),
    },
    openapi_extra=request_body(PlanRequest),
)
async def plan(request: Request) -> PlanResponse | StreamingResponse:
    """Draft, then repair in a closed loop until the verifier accepts; record every candidate.

    With ``Accept: application/x-ndjson`` the answer streams each branch's draft and rounds
    as they end, then the plan (see :mod:`services.planner.events`).
    """
    state = request.app.state
    raw = await request.body()
    prepared = await run_in_threadpool(_prepare, raw, state.settings, state.registry)
    if NDJSON in request.headers.get("accept", ""):
        events = plan_events(prepared, verifier=state.verifier, engine=state.engine)
        return StreamingResponse(events, media_type=NDJSON)
    return await run_in_threadpool(
        service.execute, prepared, verifier=state.verifier, engine=state.engine
    )


@router.get("/plans/{plan_id}", response_model=PlanResponse, responses=error_responses(404))
async def get_plan(plan_id: str, request: Request) -> dict:
    """A stored plan, as POST /v1/plan answered it."""
    row = await run_in_threadpool(_plan_row, request, plan_id)
    return row.result


@router.get("/plans/{plan_id}/task", responses=error_responses(404))
async def get_plan_task(plan_id: str, request: Request) -> dict:
    """The Task.1 the plan was made for (scored records carry only its ``task_id``)."""
    row = await run_in_threadpool(_plan_row, request, plan_id)
    return row.task


@router.get("/proposers", response_model=list[ProposerOut])
async def list_proposers(request: Request) -> list[ProposerOut]:
    """What can propose: search, llm (when configured), registered checkpoints."""
    return await run_in_threadpool(request.app.state.registry.list)


@router.post(
    "/proposers",
    response_model=ProposerOut,
    status_code=201,
    responses=error_responses(400, 413, 422),
)
async def register_proposer(body: RegisterProposer, request: Request) -> ProposerOut:
    """Register a local checkpoint folder as proposer ``hf:<id>``."""
    return await run_in_threadpool(request.app.state.registry.register, body.id, body.path)


@router.get(
    "/records",
    response_class=NDJSONResponse,
    responses={200: _NDJSON_PAGE, **error_responses(422)},
)
async def read_records(
    request: Request,
    after: Annotated[DbInt, Query(description="cursor: the last record_id already read")] = 0,
    limit: int = Query(1000, ge=1, le=10_000),
) -> NDJSONResponse:
    """Scored records as NDJSON, oldest first; ``X-Next-Cursor`` is the cursor to pass next."""
    rows = await run_in_threadpool(
        records.read_records, request.app.state.engine, after=after, limit=limit
    )
    cursor = rows[-1].record_id if rows else after

    def lines() -> Iterator[bytes]:
        for row in rows:
            yield orjson.dumps(row.wire()) + b"\n"

    return NDJSONResponse(lines(), media_type=NDJSON, headers={"X-Next-Cursor": str(cursor)})


def _prepare(
    raw: bytes, settings: PlannerSettings, registry: ProposerRegistry
) -> service.PreparedPlan:
    """Parse the body, refuse lists past the caps before validating anything, prepare."""
    data = parse_object(raw)
    settings.limits().check_request(data)
    return service.prepare(validate(PlanRequest, data), registry)


def _plan_row(request: Request, plan_id: str) -> records.PlanRow:
    row = records.get_plan(request.app.state.engine, plan_id)
    if row is None:
        raise NotFoundError(f"no plan {plan_id!r}", param="plan_id", code="plan_not_found")
    return row


@router.get("/plans/{plan_id}/otio", responses={200: _OTIO, **error_responses(404, 422)})
async def get_otio(
    plan_id: str,
    request: Request,
    media_url_base: str | None = Query(
        None,
        max_length=2048,
        description="the media root as editors see it (file:///Volumes/reel, /Volumes/reel, "
        "Z:/reel, smb://nas/reel); default REFINERY_MEDIA_URL_BASE, else file:// URLs "
        "under REFINERY_MEDIA_ROOT",
    ),
) -> Response:
    """The plan as an OpenTimelineIO document (video, music, beat markers), every media
    reference an absolute URL."""
    body = await run_in_threadpool(_otio, request, plan_id, media_url_base)
    headers = {"Content-Disposition": f'attachment; filename="{plan_id}.otio"'}
    return Response(body, media_type="application/json", headers=headers)


def _otio(request: Request, plan_id: str, media_url_base: str | None) -> bytes:
    row = _plan_row(request, plan_id)
    settings = request.app.state.settings
    task = TaskIn.model_validate(row.task).to_task()
    timeline = TimelineIn.model_validate(row.result["timeline"]).to_timeline(task)
    return otio_bytes(
        task,
        timeline,
        name=plan_id,
        metadata={"plan_id": plan_id, "ves": row.ves},
        media_root=settings.media_root,
        media_url_base=media_url_base or settings.media_url_base,
    )


@router.post(
    "/plans/{plan_id}/render",
    response_model=JobOut,
    status_code=202,
    responses=error_responses(404, 422),
)
async def start_render(plan_id: str, request: Request) -> JobOut:
    """Queue a render of the plan to MP4; poll ``GET /v1/jobs/{id}``."""
    row = await run_in_threadpool(_plan_row, request, plan_id)
    media_root = request.app.state.settings.media_root
    for field in ("clips", "music"):  # refuse a URI escaping the media root before queueing
        for index, item in enumerate(row.task.get(field, [])):
            resolve_media(item.get("uri", ""), media_root, param=f"task.{field}[{index}].uri")
    queue = request.app.state.jobs
    job = await run_in_threadpool(queue.submit, RENDER_KIND, {"plan_id": plan_id})
    return JobOut.from_job(job)


@router.get("/jobs/{job_id}", response_model=JobOut, responses=error_responses(404))
async def get_job(job_id: str, request: Request) -> JobOut:
    """A render job: status, progress, result (duration, frames, bytes) or error."""
    job = await run_in_threadpool(request.app.state.jobs.get, job_id)
    if job is None:
        raise NotFoundError(f"no job {job_id!r}", param="job_id", code="job_not_found")
    return JobOut.from_job(job)


@router.get(
    "/jobs/{job_id}/output",
    responses={
        200: {
            "model": AnalysisOutput,
            "description": "An analysis's output (JSON); a render's is the MP4 (video/mp4)",
            "content": {"video/mp4": {"schema": {"type": "string", "format": "binary"}}},
        },
        **error_responses(404, 409),
    },
)
async def job_output(job_id: str, request: Request) -> Response:
    """A finished job's output (409 before): a render's MP4, an analysis's JSON
    (``{"clips", "music", "errors"}``)."""
    job = await run_in_threadpool(request.app.state.jobs.get, job_id)
    if job is None:
        raise NotFoundError(f"no job {job_id!r}", param="job_id", code="job_not_found")
    if job.status != "succeeded":
        raise ConflictError(
            f"job {job_id} is {job.status}; its output is not ready",
            param="job_id",
            code="job_not_ready",
        )
    settings = request.app.state.settings
    if job.kind == ANALYZE_KIND:
        return FileResponse(analysis_path(settings, job_id), media_type="application/json")
    path = output_path(settings, job_id)
    return FileResponse(path, media_type="video/mp4", filename=f"{job_id}.mp4")
