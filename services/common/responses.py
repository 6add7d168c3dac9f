"""JSON responses rendered with orjson, and the error envelope response."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel
from starlette.responses import JSONResponse, StreamingResponse

from services.common.errors import RefineryError

__all__ = ["NDJSON", "NDJSONResponse", "ORJSONResponse", "error_response"]

NDJSON = "application/x-ndjson"


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


class ORJSONResponse(JSONResponse):
    """``application/json`` rendered by orjson (FastAPI's own class is deprecated)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, default=_default, option=orjson.OPT_NON_STR_KEYS)


class NDJSONResponse(StreamingResponse):
    """Streamed JSON Lines; as a route's ``response_class`` it documents the content type."""

    media_type = NDJSON


def error_response(exc: RefineryError, headers: dict[str, str] | None = None) -> ORJSONResponse:
    """The wire envelope ``{"error": {"code", "message", "param", ...}}`` for ``exc``."""
    return ORJSONResponse(exc.envelope(), status_code=exc.status_code, headers=headers)
