"""JSON logs: one object per line on stderr, tagged with the service and request id."""

from __future__ import annotations

import logging
import sys
import time
from contextvars import ContextVar
from typing import IO, Any

import orjson

__all__ = ["JsonFormatter", "configure_logging", "current_request_id", "request_id_var"]

request_id_var: ContextVar[str | None] = ContextVar("refinery_request_id", default=None)


def current_request_id() -> str | None:
    """The id of the HTTP request being served in this context, if any."""
    return request_id_var.get()


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object.

    Structured fields go in ``extra={"fields": {...}}``; the current request id is
    added automatically.
    """

    def __init__(self, service: str | None = None) -> None:
        super().__init__()
        self.service = service
        self._second = -1
        self._prefix = ""

    def _timestamp(self, created: float) -> str:
        second = int(created)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._prefix}.{int((created - second) * 1000):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": self._timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if self.service:
            data["service"] = self.service
        fields = getattr(record, "fields", None)
        if fields:
            data.update(fields)
        if "request_id" not in data and (request_id := request_id_var.get()) is not None:
            data["request_id"] = request_id
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(data, default=str).decode()


QUIET_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2")
"""HTTP client libraries that log every request at INFO; services log at WARNING for them."""


def configure_logging(
    level: str = "INFO", *, service: str | None = None, stream: IO[str] | None = None
) -> None:
    """Send the root logger to ``stream`` (stderr) as JSON at ``level``; idempotent.

    Replaces only the handler a previous call installed. Under uvicorn pass
    ``--no-access-log``: the app already logs every request.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_refinery", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler._refinery = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonFormatter(service))
    root.addHandler(handler)
    root.setLevel(level.upper())
    for chatty in QUIET_LOGGERS:  # a line per outgoing request would drown the access log
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
