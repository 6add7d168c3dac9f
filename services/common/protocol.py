"""Wire models every service shares: the durable job as its clients see it, the error
envelope, and the strict, bounded field types requests use."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field, Strict

from services.common.jobs import Job
from services.common.upstreams import MAX_URL_LENGTH, check_url

__all__ = [
    "ERROR_RESPONSES",
    "ERROR_SCHEMA",
    "MAX_SEED",
    "FiniteFloat",
    "JobOut",
    "Seed",
    "StrictInt",
    "UpstreamUrl",
    "error_responses",
]

MAX_SEED = 2**32 - 1

StrictInt = Annotated[int, Strict()]
"""An integer on the wire; ``true``/``false``, ``1.0`` and ``"1"`` are refused."""
FiniteFloat = Annotated[float, Strict(), Field(allow_inf_nan=False)]
"""A finite number on the wire (integers too); booleans and strings are refused."""
Seed = Annotated[int, Strict(), Field(ge=0, le=MAX_SEED)]
"""A random seed: an integer in [0, 2**32 - 1]."""
UpstreamUrl = Annotated[
    str,
    Field(min_length=1, max_length=MAX_URL_LENGTH, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://[!-~]+$"),
    AfterValidator(check_url),
]
"""An ``http(s)`` URL a request names (no control characters); the service still checks it
against its allow-list before calling it."""


ERROR_SCHEMA: dict[str, Any] = {
    "title": "ErrorEnvelope",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "param": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        }
    },
}
"""Every 4xx/5xx body: ``{"error": {"code", "message", "param", ...}}`` (more keys may
follow ``param``, e.g. ``details`` or ``stats``)."""


_REASONS = {
    400: "Malformed request",
    401: "Missing or wrong API key",
    404: "Not found",
    409: "Conflict with the current state",
    413: "Request body too large",
    422: "Invalid request: the envelope's param names the field",
    503: "An upstream or the database is unavailable",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each with the envelope's schema."""
    content = {"application/json": {"schema": ERROR_SCHEMA}}
    return {code: {"description": _REASONS[code], "content": content} for code in codes}


ERROR_RESPONSES = error_responses(400, 401, 413, 422)
"""What any route with a body may answer."""


class JobOut(BaseModel):
    """``GET /v1/jobs/{id}``: status, progress while it runs, result or error when done."""

    job_id: str
    kind: str
    status: str
    progress: dict[str, Any] = {}
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    attempts: int = 0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    finished_at: datetime | None = None

    @classmethod
    def from_job(cls, job: Job) -> JobOut:
        return cls(
            job_id=job.id,
            kind=job.kind,
            status=job.status,
            progress=job.progress or {},
            result=job.result,
            error=job.error,
            attempts=job.attempts,
            created_at=job.created_at,
            updated_at=job.updated_at,
            finished_at=job.finished_at,
        )
