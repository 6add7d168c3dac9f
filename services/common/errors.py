"""The root of every Refinery error tree.

Pure Python on purpose: domain packages subclass :class:`RefineryError` without
importing FastAPI; each app maps the whole tree to the wire envelope
``{"error": {"code", "message", "param"}}`` in one handler.
"""

from __future__ import annotations

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
