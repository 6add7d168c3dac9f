"""Wire models every service shares: the durable job as its clients see it, the error
envelope, and the strict, bounded field types requests use.

Clients import this module, so it stays free of the database layer: the job table
(:mod:`services.common.jobs`, SQLAlchemy) is imported only for type checking.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict

from services.common.errors import sanitize_value
from services.common.upstreams import MAX_URL_LENGTH, check_url

__all__ = [
    "ERROR_RESPONSES",
    "FINISHED",
    "MAX_SEED",
    "ErrorDetail",
    "ErrorOut",
    "FiniteFloat",
    "JobOut",
    "JobStatus",
    "Seed",
    "StrictInt",
    "UpstreamUrl",
    "error_responses",
]

if TYPE_CHECKING:
    from services.common.jobs import Job

JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
FINISHED: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})
"""The statuses a job ends in."""

MAX_SEED = 2**32 - 1



def integral(value: Any) -> Any:
    """A JSON number without a fraction (``30.0``) as the integer it is (JSON Schema's
    ``integer`` accepts it too); anything else is left for strict validation to judge."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Integral = BeforeValidator(integral)
"""Put last on integer types (after ``Field``, or its bounds leave the JSON Schema as
``ge``/``le``): ``30.0`` is 30; ``30.5``, ``true`` and ``"30"`` stay refused."""
StrictInt = Annotated[int, Strict(), Integral]
"""An integer on the wire (``3`` or ``3.0``); ``true``/``false``, ``1.5`` and ``"1"`` are
refused."""
StrictBool = Annotated[bool, Strict()]
"""A JSON ``true`` or ``false``; ``0``, ``1`` and ``"true"`` are refused."""
FiniteFloat = Annotated[float, Strict(), Field(allow_inf_nan=False)]
"""A finite number on the wire (integers too); booleans and strings are refused."""
Seed = Annotated[int, Strict(), Field(ge=0, le=MAX_SEED), Integral]
"""A random seed: an integer in [0, 2**32 - 1]."""
UpstreamUrl = Annotated[
    str,
    Field(min_length=1, max_length=MAX_URL_LENGTH, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://[!-~]+$"),
    AfterValidator(check_url),
]
"""An ``http(s)`` URL a request names (no control characters); the service still checks it
against its allow-list before calling it."""


class JobOut(BaseModel):
    """``GET /v1/jobs/{id}``: status, progress while it runs, result or error when done
    (``error`` never carries SQL text or absolute paths)."""

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
            error=sanitize_value(job.error) if job.error else job.error,
            attempts=job.attempts,
            created_at=job.created_at,
            updated_at=job.updated_at,
            finished_at=job.finished_at,
        )


class ErrorDetail(BaseModel):
    """What failed: a stable ``code``, a message saying what to do, the offending field."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str
    param: str | None = None


class ErrorOut(BaseModel):
    """The envelope of every 4xx and 5xx answer: ``{"error": {"code", "message", "param"}}``."""

    error: ErrorDetail


_ERROR_DESCRIPTIONS = {
    400: "Bad request",
    401: "Missing or wrong API key",
    404: "Not found",
    409: "Conflict with the resource's state",
    413: "Request body larger than REFINERY_MAX_BODY_BYTES",
    422: "Invalid request: the error names the field and what to do",
    503: "An upstream or the database is unavailable",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` documenting the envelope for each status code.

    The envelope is always JSON, also on routes that answer NDJSON or files, so its media
    type is spelled out; the app factory registers :class:`ErrorOut` in the components.
    """
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
    return {code: {"description": _ERROR_DESCRIPTIONS[code], "content": content} for code in codes}


ERROR_RESPONSES = error_responses(400, 401, 413, 422)
"""What any route with a body may answer."""
