"""CPU work runs off the event loop: a verification in progress does not hold up /healthz.

Served by a real uvicorn. The verification is held at a gate inside the route's work until
/healthz has answered; had the work run on the event loop, /healthz could not answer while
it waited and the gate would time out. The assertions are about order, not time.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import pytest

from services.verifier import service
from services.verifier.app import build_app
from services.verifier.config import VerifierSettings
from tests.servers import serve_in_thread

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("route", ["/v1/verify", "/v1/apply", "/v1/verify:batch"])
def test_healthz_answers_while_a_verification_runs(
    monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    folder = EXAMPLES / "surf-reel"
    task = json.loads((folder / "task.json").read_text())
    timeline = json.loads((folder / "timeline.json").read_text())
    swap = {"ops": [{"op": "swap", "a": 0, "b": 1}]}
    body = {"task": task, "timeline": timeline, "patch": swap, "patches": [swap]}
    body.pop("patches" if route == "/v1/apply" else "patch")
    if route == "/v1/verify":
        body.pop("patches")
    name = {"/v1/verify": "verify", "/v1/apply": "apply", "/v1/verify:batch": "verify_batch"}
    real = getattr(service, name[route])
    started, healthy = threading.Event(), threading.Event()
    events: list[str] = []

    def gated(*args, **kwargs):
        started.set()
        events.append("work started")
        events.append("released" if healthy.wait(30) else "gate timed out")
        return real(*args, **kwargs)

    monkeypatch.setattr(service, name[route], gated)
    answers: dict[str, int] = {}
    with serve_in_thread(build_app(VerifierSettings())) as url:

        def heavy() -> None:
            answers["work"] = httpx.post(url + route, json=body, timeout=60).status_code
            events.append("work answered")

        worker = threading.Thread(target=heavy)
        worker.start()
        assert started.wait(30)
        answers["healthz"] = httpx.get(url + "/healthz", timeout=20).status_code
        events.append("healthz answered")
        healthy.set()
        worker.join(60)
    assert answers == {"work": 200, "healthz": 200}
    assert events == ["work started", "healthz answered", "released", "work answered"]
