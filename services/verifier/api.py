"""HTTP routes of the verifier; each one parses, calls :mod:`services.verifier.service`, returns."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Depends, Response

from services.common.errors import NotFoundError
from services.verifier import service
from services.verifier.config import VerifierSettings, get_settings
from services.verifier.protocol import (
    ApplyRequest,
    ApplyResponse,
    BatchRequest,
    BatchResponse,
    PatchIn,
    ReportOut,
    TaskIn,
    TimelineIn,
    VerifyRequest,
)

router = APIRouter(prefix="/v1", tags=["verifier"])

SCHEMAS = {"task": TaskIn, "timeline": TimelineIn, "patch": PatchIn, "report": ReportOut}


def _json(payload: dict[str, Any]) -> Response:
    return Response(orjson.dumps(payload), media_type="application/json")


@router.post("/verify", response_model=ReportOut)
async def verify(request: VerifyRequest) -> Response:
    """Judge a timeline against its task: executability, every ledger constraint, VES."""
    return _json(service.verify(request.task, request.timeline))


@router.post("/apply", response_model=ApplyResponse)
async def apply(request: ApplyRequest) -> Response:
    """Apply a patch atomically and verify the result; a rejected op is a 422 naming it."""
    return _json(service.apply(request.task, request.timeline, request.patch))


@router.post("/verify:batch", response_model=BatchResponse)
async def verify_batch(
    request: BatchRequest, settings: VerifierSettings = Depends(get_settings)
) -> Response:
    """Apply each patch to the same timeline independently; one result per patch, in order."""
    return _json(service.verify_batch(request, max_patches=settings.max_batch_patches))


@router.get("/schemas/{name}")
async def schema(name: str) -> dict:
    """JSON Schema of Task, Timeline, Patch or Report (usable for structured outputs)."""
    model = SCHEMAS.get(name.lower())
    if model is None:
        raise NotFoundError(
            f"no schema {name!r}; choose Task, Timeline, Patch or Report", param="name"
        )
    return model.model_json_schema(by_alias=True)
