"""Fixtures: small valid Task/Timeline dicts, the verifier app, a live uvicorn server."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from services.verifier.app import build_app
from services.verifier.config import VerifierSettings
from tests.servers import serve_in_thread


@pytest.fixture
def task() -> dict[str, Any]:
    """A 5–8 s reel that must show a sunset; the soft rule wants 1–3 s shots."""
    return {
        "schema": "Task.1",
        "id": "t-clients",
        "fps": 30,
        "brief": {"text": "a short surf reel ending on the sunset"},
        "clips": [
            {"id": "c1", "duration_s": 6.0, "tags": ["surf"], "caption": "surfer on a wave"},
            {"id": "c2", "duration_s": 4.0, "tags": ["sunset"], "caption": "sunset on the beach"},
        ],
        "music": [],
        "ledger": [
            {"id": "L1", "kind": "duration", "hard": True, "min_s": 5, "max_s": 8},
            {"id": "L2", "kind": "must_include", "hard": True, "tags": ["sunset"]},
            {"id": "L3", "kind": "shot_length", "hard": False, "min_s": 1, "max_s": 3, "weight": 2},
        ],
    }


@pytest.fixture
def timeline() -> dict[str, Any]:
    """Feasible for :func:`task`: 3 s of surf, then 3 s of sunset."""
    return {
        "schema": "Timeline.1",
        "fps": 30,
        "shots": [
            {"clip_id": "c1", "in_s": 0.0, "out_s": 3.0},
            {"clip_id": "c2", "in_s": 0.5, "out_s": 3.5},
        ],
        "music": None,
    }


@pytest.fixture
def bad_timeline() -> dict[str, Any]:
    """Executable but infeasible: 2.5 s long (L1) and no sunset (L2); L3 holds."""
    return {
        "schema": "Timeline.1",
        "fps": 30,
        "shots": [{"clip_id": "c1", "in_s": 0.0, "out_s": 2.5}],
        "music": None,
    }


@pytest.fixture(scope="session")
def app() -> FastAPI:
    return build_app(VerifierSettings(api_keys=[]))


@pytest.fixture(scope="session")
def keyed_app() -> FastAPI:
    return build_app(VerifierSettings(api_keys=["sekret"]))


@pytest.fixture(scope="session")
def live_url() -> Iterator[str]:
    """A real uvicorn serving the verifier on a free port, in a thread."""
    with serve_in_thread(build_app(VerifierSettings(api_keys=[]))) as url:
        yield url


@pytest.fixture
def free_port() -> int:
    """A port nothing listens on (bound then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
