"""HTTP routes of the synth service; each parses, calls a service function, answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from protocol.common import ERROR_RESPONSES, DbInt, error_responses
from protocol.synth import (
    CatalogIn,
    CatalogOut,
    CatalogSummary,
    EvaluateRequest,
    EvaluateResponse,
    ExamplesPage,
    ExportFormat,
    SynthesizeRequest,
    SynthJobOut,
)
from services.common.responses import NDJSON, NDJSONResponse
from services.synth import service, store

router = APIRouter(prefix="/v1", tags=["synth"], responses=ERROR_RESPONSES)


@router.get("/catalogs", response_model=list[CatalogSummary])
async def list_catalogs(request: Request) -> list[CatalogSummary]:
    """``builtin`` first, then the stored catalogs by name (without their tools)."""
    found = await run_in_threadpool(service.list_catalogs, request.app.state.engine)
    return [CatalogSummary.model_validate(c.model_dump(exclude={"tools"})) for c in found]


@router.get("/catalogs/{name}", response_model=CatalogOut, responses=error_responses(404))
async def get_catalog(name: str, request: Request) -> CatalogOut:
    return await run_in_threadpool(service.get_catalog, request.app.state.engine, name)


@router.post(
    "/catalogs",
    response_model=CatalogOut,
    status_code=201,
    responses={200: {"model": CatalogOut, "description": "Already stored"}, **error_responses(409)},
)
async def create_catalog(body: CatalogIn, request: Request, response: Response) -> CatalogOut:
    """Validate and store a catalog (201); posting the same tools again answers 200."""
    state = request.app.state
    out, created = await run_in_threadpool(
        service.create_catalog, state.engine, state.settings, body.name, body.tools
    )
    if not created:
        response.status_code = 200
    return out


@router.post(
    "/synthesize",
    response_model=SynthJobOut,
    status_code=202,
    responses=error_responses(404, 409, 503),
)
async def synthesize(
    body: SynthesizeRequest,
    request: Request,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> SynthJobOut:
    """Queue a synth job; poll ``GET /v1/jobs/{job_id}``. The same ``Idempotency-Key``
    answers the same job."""
    state = request.app.state
    job = await run_in_threadpool(
        lambda: service.submit(
            body,
            settings=state.settings,
            engine=state.engine,
            queue=state.jobs,
            idempotency_key=idempotency_key,
        )
    )
    return SynthJobOut.from_job(job)


@router.get("/jobs/{job_id}", response_model=SynthJobOut, responses=error_responses(404))
async def get_job(job_id: str, request: Request) -> SynthJobOut:
    """Status and per-stage progress; ``result`` once finished."""
    job = await run_in_threadpool(service.get_job, request.app.state.jobs, job_id)
    return SynthJobOut.from_job(job)


@router.delete("/jobs/{job_id}", response_model=SynthJobOut, responses=error_responses(404))
async def cancel_job(job_id: str, request: Request) -> SynthJobOut:
    """Cancel a queued or running job; its accepted examples stay readable."""
    queue = request.app.state.jobs
    await run_in_threadpool(service.get_job, queue, job_id)
    job = await run_in_threadpool(queue.cancel, job_id)
    return SynthJobOut.from_job(job)


@router.get("/jobs/{job_id}/examples", response_model=ExamplesPage, responses=error_responses(404))
async def job_examples(
    job_id: str,
    request: Request,
    after: Annotated[DbInt, Query(description="cursor: the last record_id already read")] = 0,
    limit: int = Query(100, ge=1, le=1000),
) -> ExamplesPage:
    """Accepted examples of the job, oldest first (readable while it runs)."""
    state = request.app.state
    await run_in_threadpool(service.get_job, state.jobs, job_id)
    rows = await run_in_threadpool(
        store.read_examples, state.engine, job_id, after=after, limit=limit + 1
    )
    page = rows[:limit]
    cursor = page[-1].record_id if page else after
    return ExamplesPage(
        job_id=job_id,
        examples=[row.wire() for row in page],
        next_cursor=cursor or after,
        has_more=len(rows) > limit,
    )


def _export_line(fmt: ExportFormat) -> Callable[[store.ExampleRow], dict[str, Any]]:
    if fmt == "trl":
        from services.synth.examples import trl_row

        return lambda row: trl_row(row.example) if row.example else {}
    from services.synth.bfcl.convert import bfcl_id, bfcl_row

    return lambda row: bfcl_row(bfcl_id(row.category, row.seq), row.query or "", row.ground_truth())


@router.get("/jobs/{job_id}/export", response_class=NDJSONResponse, responses=error_responses(404))
async def export_job(
    job_id: str,
    request: Request,
    format: ExportFormat = Query("trl", description="trl rows or BFCL rows"),
) -> NDJSONResponse:
    """Every accepted example as JSON Lines, in sequence order, streamed from the database."""
    state = request.app.state
    await run_in_threadpool(service.get_job, state.jobs, job_id)
    line = _export_line(format)

    def lines() -> Iterator[bytes]:
        for row in store.iter_examples(state.engine, job_id):
            yield orjson.dumps(line(row)) + b"\n"

    name = f"synth-{job_id}-{format}.jsonl"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return NDJSONResponse(lines(), media_type=NDJSON, headers=headers)


@router.get("/records", response_class=NDJSONResponse)
async def read_records(
    request: Request,
    after: Annotated[DbInt, Query(description="cursor: the last record_id already read")] = 0,
    limit: int = Query(1000, ge=1, le=10_000),
) -> NDJSONResponse:
    """Accepted examples of every job as NDJSON, oldest first; ``X-Next-Cursor`` is the
    cursor to pass next."""
    rows = await run_in_threadpool(
        store.read_records, request.app.state.engine, after=after, limit=limit
    )
    cursor = rows[-1].record_id if rows else after

    def lines() -> Iterator[bytes]:
        for row in rows:
            yield orjson.dumps(row.wire()) + b"\n"

    return NDJSONResponse(lines(), media_type=NDJSON, headers={"X-Next-Cursor": str(cursor)})


@router.post("/evaluate", response_model=EvaluateResponse, responses=error_responses(503))
async def evaluate(body: EvaluateRequest, request: Request) -> EvaluateResponse:
    """Score an OpenAI-compatible endpoint on BFCL categories (503 when unreachable; 422 for
    a ``base_url`` outside ``REFINERY_ALLOWED_UPSTREAMS``)."""
    return await run_in_threadpool(service.evaluate, body, request.app.state.settings)
