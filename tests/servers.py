"""A real uvicorn serving an app on a free localhost port, in a thread, for tests, and a
recorder of the requests that reach an app."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI


@contextmanager
def serve_in_thread(app: FastAPI | Any) -> Iterator[str]:
    """Yields the server's base URL (``http://127.0.0.1:<port>``); stops it on exit."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


class Recorder:
    """ASGI middleware that notes every HTTP request reaching ``app``: ``(method, path,
    Authorization header or None)`` in :attr:`seen`, in arrival order."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[str, str, str | None]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            auth = headers.get(b"authorization")
            self.seen.append((scope["method"], scope["path"], auth.decode() if auth else None))
        await self.app(scope, receive, send)

    @property
    def authorizations(self) -> list[str | None]:
        return [auth for _, _, auth in self.seen]
