"""JSON logs: one object per line on stderr, tagged with the service and request id."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import IO, Any

import orjson

__all__ = [
    "JsonFormatter",
    "RateLimitedLog",
    "configure_logging",
    "current_request_id",
    "request_id_var",
]

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


class RateLimitedLog:
    """At most one line per distinct error per ``interval_s``, counting what it held back.

    ``key`` identifies "the same error" (e.g. the exception type and its first line). The
    first occurrence is logged at once; repeats within the interval are counted, and the
    next line logged for that key says how many were suppressed::

        limited = RateLimitedLog(log, interval_s=30)
        limited.log(logging.WARNING, "claim:OperationalError", "claim failed: %s", why)
        # … 30 s later: "claim failed: … (149 similar suppressed)"
    """

    def __init__(
        self,
        logger: logging.Logger,
        *,
        interval_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval_s = interval_s
        self.clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}

    def log(self, level: int, key: str, msg: str, *args: Any, **kwargs: Any) -> bool:
        """Log ``msg % args`` unless ``key`` was logged less than ``interval_s`` ago;
        True when the line was written."""
        now = self.clock()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self.interval_s:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return False
            self._last[key] = now
            held = self._suppressed.pop(key, 0)
            if len(self._last) > 1000:  # forget keys that have gone quiet
                cutoff = now - self.interval_s
                self._last = {k: t for k, t in self._last.items() if t >= cutoff or k == key}
        if held:
            msg = f"{msg} ({held} similar suppressed in the last {self.interval_s:g} s)"
        fields = dict(kwargs.pop("extra", {}).get("fields", {}))
        fields["suppressed"] = held
        self.logger.log(level, msg, *args, extra={"fields": fields}, **kwargs)
        return True

    def suppressed(self, key: str) -> int:
        """Repeats of ``key`` held back since its last logged line."""
        with self._lock:
            return self._suppressed.get(key, 0)
