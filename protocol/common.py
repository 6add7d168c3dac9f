"""Wire models every service shares: the error envelope and the strict, bounded field types
requests use. The job as its clients see it is in :mod:`protocol.jobs`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict

from services.common.upstreams import MAX_URL_LENGTH, check_url

__all__ = [
    "ERROR_RESPONSES",
    "MAX_DB_INT",
    "MAX_SEED",
    "DbInt",
    "ErrorDetail",
    "ErrorOut",
    "FiniteFloat",
    "Seed",
    "StrictInt",
    "UpstreamUrl",
    "error_responses",
]

MAX_SEED = 2**32 - 1
MAX_DB_INT = 2**63 - 1
"""The largest integer a database column holds (a signed 64-bit ``BIGINT``, SQLite's
``INTEGER``): any larger number a request carries into a query is a 422, not a 500."""


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
DbInt = Annotated[int, Field(ge=0, le=MAX_DB_INT)]
"""A non-negative integer that reaches the database (a cursor, an id): at most
:data:`MAX_DB_INT`. Query parameters use it as ``Annotated[DbInt, Query(...)]``."""
UpstreamUrl = Annotated[
    str,
    Field(min_length=1, max_length=MAX_URL_LENGTH, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://[!-~]+$"),
    AfterValidator(check_url),
]
"""An ``http(s)`` URL a request names (no control characters); the service still checks it
against its allow-list before calling it."""


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
