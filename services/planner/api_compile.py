"""``POST /v1/tasks:compile``: one sentence of brief and a pool → Task.1 with its ledger."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from protocol.common import error_responses
from protocol.planner import CompileRequest, CompileResponse
from services.planner.compiling import compile_request

router = APIRouter(prefix="/v1", tags=["planner"])


@router.post(
    "/tasks:compile",
    response_model=CompileResponse,
    responses=error_responses(400, 413, 422, 503),
)
async def compile_task(body: CompileRequest, request: Request) -> CompileResponse:
    """Compile the brief into the ledger (``rules`` by default, or ``llm``); every entry's
    provenance points at the words it came from, and words that state nothing the ledger
    can hold come back in ``unparsed``."""
    settings = request.app.state.settings
    return await run_in_threadpool(compile_request, body, settings)
