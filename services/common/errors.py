"""The root of every Refinery error tree.

Pure Python on purpose: domain packages subclass :class:`RefineryError` without
importing FastAPI; each app maps the whole tree to the wire envelope
``{"error": {"code", "message", "param"}}`` in one handler.
"""

from __future__ import annotations

import re
from typing import Any


class RefineryError(Exception):
    """A failure with a stable ``code``, a human ``message`` and the offending ``param``."""

    status_code: int = 400
    code: str = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        param: str | None = None,
        status_code: int | None = None,
        context: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status_code is not None:
            self.status_code = status_code
        self.param = param
        self.context = context or {}

    def envelope(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message, "param": self.param}
        error.update(self.context)
        return {"error": error}


class NotFoundError(RefineryError):
    status_code = 404
    code = "not_found"


class ConflictError(RefineryError):
    status_code = 409
    code = "conflict"


class UnavailableError(RefineryError):
    status_code = 503
    code = "unavailable"


class DatabaseUnavailable(UnavailableError):
    """The database cannot be reached right now; clients should retry after a pause."""

    code = "database_unavailable"
    retry_after_s: int = 5

    def __init__(self, message: str = "", *, retry_after_s: int | None = None) -> None:
        super().__init__(message or "the database is not reachable right now; retry shortly")
        if retry_after_s is not None:
            self.retry_after_s = retry_after_s


# Text a database driver or SQLAlchemy appends to an error: the statement, its parameters,
# the link to SQLAlchemy's error page. Everything from the first of them on is dropped.
_SQL_TAIL = re.compile(r"\s*(\[SQL:|\[parameters:|\(Background on this error at:)", re.S)
# An absolute filesystem path of two or more components (not a URL: no ``:`` or ``/``
# before it, and not one of the service's own routes under ``/v1/``).
_PART = r"[^\s'\"`()\[\]{},;:/]"
_ABS_PATH = re.compile(rf"(?<![\w:/.~\\-])/(?!v1/)(?:{_PART}+/)+({_PART}*)")


def sanitize_message(text: str) -> str:
    """``text`` without SQL statements, bound parameters or absolute paths.

    ``(psycopg.OperationalError) server closed the connection\\n[SQL: INSERT …]`` →
    ``(psycopg.OperationalError) server closed the connection``; ``no media file at
    /srv/media/c01.mp4`` → ``no media file at …/c01.mp4``. Applied wherever an error leaves
    a service (job ``error`` fields and HTTP envelopes).
    """
    cut = _SQL_TAIL.search(text)
    if cut is not None:
        text = text[: cut.start()]
    return _ABS_PATH.sub(lambda m: "…/" + m.group(1), text).strip()


def sanitize_value(value: Any) -> Any:
    """:func:`sanitize_message` applied to every string inside ``value`` (dicts, lists)."""
    if isinstance(value, str):
        return sanitize_message(value)
    if isinstance(value, dict):
        return {key: sanitize_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [sanitize_value(item) for item in value]
    return value
