"""HTTP routes of the verifier: parse, call :mod:`services.verifier.service`, answer.

Bodies are parsed in two parts: the ``task`` through the app's :class:`TaskCache` (compiled
once per distinct task), the rest against its ``*Body`` model. Errors read exactly as
FastAPI's own body validation would report them.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from fastapi import APIRouter, Depends, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel

from services.common.body import json_object, validate
from services.common.errors import NotFoundError
from services.verifier import service
from services.verifier.compiled import TaskCache
from services.verifier.config import VerifierSettings, get_settings
from services.verifier.protocol import (
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
from services.verifier.score import Verifier

router = APIRouter(prefix="/v1", tags=["verifier"])
Body = TypeVar("Body", bound=BaseModel)

SCHEMAS = {"task": TaskIn, "timeline": TimelineIn, "patch": PatchIn, "report": ReportOut}


def _documented(model: type[BaseModel]) -> dict[str, Any]:
    """OpenAPI for a body the route reads by hand."""
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": model.model_json_schema(by_alias=True)}},
        }
    }


async def _parse(request: Request, model: type[Body]) -> tuple[Verifier, Body]:
    data = await json_object(request)
    if "task" not in data:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body", "task"), "msg": "Field required", "input": data}]
        )
    cache: TaskCache = request.app.state.task_cache
    verifier = cache.get(data.pop("task"))
    return verifier, validate(model, data)


def _json(payload: dict[str, Any]) -> Response:
    return Response(orjson.dumps(payload), media_type="application/json")


@router.post("/verify", response_model=ReportOut, openapi_extra=_documented(VerifyRequest))
async def verify(request: Request) -> Response:
    """Judge a timeline against its task: executability, every ledger constraint, VES."""
    verifier, body = await _parse(request, VerifyBody)
    return _json(service.verify(verifier, body))


@router.post("/apply", response_model=ApplyResponse, openapi_extra=_documented(ApplyRequest))
async def apply(request: Request) -> Response:
    """Apply a patch atomically and verify the result; a rejected op is a 422 naming it."""
    verifier, body = await _parse(request, ApplyBody)
    return _json(service.apply(verifier, body))


@router.post(
    "/verify:batch", response_model=BatchResponse, openapi_extra=_documented(BatchRequest)
)
async def verify_batch(
    request: Request, settings: VerifierSettings = Depends(get_settings)
) -> Response:
    """Apply each patch to the same timeline independently; one result per patch, in order."""
    verifier, body = await _parse(request, BatchBody)
    return _json(service.verify_batch(verifier, body, max_patches=settings.max_batch_patches))


@router.get("/schemas/{name}")
async def schema(name: str) -> dict:
    """JSON Schema of Task, Timeline, Patch or Report (usable for structured outputs)."""
    model = SCHEMAS.get(name.lower())
    if model is None:
        raise NotFoundError(
            f"no schema {name!r}; choose Task, Timeline, Patch or Report", param="name"
        )
    return model.model_json_schema(by_alias=True)
