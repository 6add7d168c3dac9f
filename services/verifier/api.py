"""HTTP routes of the verifier: parse, call :mod:`services.verifier.service`, answer.

Bodies are parsed in two parts: the ``task`` through the app's :class:`TaskCache` (compiled
once per distinct task), the rest against its ``*Body`` model. Errors read exactly as
FastAPI's own body validation would report them. Lists past the caps of
:class:`~services.verifier.limits.Limits` are refused before anything is compiled, and the
CPU work runs in a threadpool.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import orjson
from fastapi import APIRouter, Depends, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from protocol.common import error_responses
from protocol.verifier import (
    ApplyBody,
    ApplyRequest,
    ApplyResponse,
    BatchBody,
    BatchRequest,
    BatchResponse,
    PatchIn,
    ReportOut,
    TaskIn,
    TimelineIn,
    VerifyBody,
    VerifyRequest,
)
from services.common.body import parse_object, validate
from services.common.errors import NotFoundError
from services.common.openapi import request_body
from services.verifier import service
from services.verifier.compiled import TaskCache
from services.verifier.config import VerifierSettings, get_settings
from services.verifier.limits import Limits
from services.verifier.score import Verifier

router = APIRouter(prefix="/v1", tags=["verifier"])
Body = TypeVar("Body", bound=BaseModel)

JSON = "application/json"
BODIES = (VerifyRequest, ApplyRequest, BatchRequest)
SCHEMAS = {"task": TaskIn, "timeline": TimelineIn, "patch": PatchIn, "report": ReportOut}


def _serve(
    app_state: Any,
    raw: bytes,
    limits: Limits,
    model: type[Body],
    work: Callable[[Verifier, Body], dict[str, Any]],
) -> Response:
    """Parse, check the caps, compile (or reuse) the task, work, serialise: all of it CPU,
    run in a threadpool so the event loop keeps answering (``/healthz`` included)."""
    data = parse_object(raw)
    limits.check_request(data)
    if "task" not in data:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body", "task"), "msg": "Field required", "input": data}]
        )
    cache: TaskCache = app_state.task_cache
    verifier = cache.get(data.pop("task"))
    return Response(orjson.dumps(work(verifier, validate(model, data))), media_type=JSON)


async def _answer(
    request: Request,
    settings: VerifierSettings,
    model: type[Body],
    work: Callable[[Verifier, Body], dict[str, Any]],
) -> Response:
    raw = await request.body()
    state = request.app.state
    return await run_in_threadpool(_serve, state, raw, settings.limits(), model, work)


ERRORS = error_responses(413, 422)


@router.post(
    "/verify",
    response_model=ReportOut,
    responses=ERRORS,
    openapi_extra=request_body(VerifyRequest),
)
async def verify(request: Request, settings: VerifierSettings = Depends(get_settings)) -> Response:
    """Judge a timeline against its task: executability, every ledger constraint, VES."""
    return await _answer(request, settings, VerifyBody, service.verify)


@router.post(
    "/apply",
    response_model=ApplyResponse,
    responses=ERRORS,
    openapi_extra=request_body(ApplyRequest),
)
async def apply(request: Request, settings: VerifierSettings = Depends(get_settings)) -> Response:
    """Apply a patch atomically and verify the result; a rejected op is a 422 naming it."""
    return await _answer(request, settings, ApplyBody, service.apply)


@router.post(
    "/verify:batch",
    response_model=BatchResponse,
    responses=ERRORS,
    openapi_extra=request_body(BatchRequest),
)
async def verify_batch(
    request: Request, settings: VerifierSettings = Depends(get_settings)
) -> Response:
    """Apply each patch to the same timeline independently; one result per patch, in order."""
    work = partial(service.verify_batch, max_patches=settings.max_batch_patches)
    return await _answer(request, settings, BatchBody, work)


@router.get("/schemas/{name}", responses=error_responses(404))
async def schema(name: str) -> dict:
    """JSON Schema of Task, Timeline, Patch or Report (usable for structured outputs)."""
    model = SCHEMAS.get(name.lower())
    if model is None:
        raise NotFoundError(
            f"no schema {name!r}; choose Task, Timeline, Patch or Report", param="name"
        )
    return model.model_json_schema(by_alias=True)
