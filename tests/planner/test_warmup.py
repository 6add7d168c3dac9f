"""Start-up warm-up: every step runs on the built-in task, and /readyz waits for it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import services.planner.warmup as warmup
from clients.verifier import VerifierClient
from protocol.verifier import TaskIn
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings


def _settings(tmp_path: Path, database_url: str, **more) -> PlannerSettings:
    return PlannerSettings(data_dir=tmp_path / "data", database_url=database_url,
                           media_root=tmp_path, relevance="tfidf", **more)  # fmt: skip


def test_every_step_runs_and_says_how_long_it_took(tmp_path: Path, database_url: str) -> None:
    TaskIn.model_validate(warmup.WARM_TASK)  # the built-in task is a valid Task.1
    spent = warmup.warm_up(_settings(tmp_path, database_url, analyze_workers=1))
    assert set(spent) == set(warmup.STEPS)
    assert all(seconds is not None and seconds >= 0 for seconds in spent.values()), spent


def test_a_failing_step_is_skipped_and_the_rest_still_run(tmp_path, database_url, monkeypatch):
    def broken(settings: PlannerSettings) -> None:
        raise RuntimeError("no model here")

    monkeypatch.setattr(warmup, "STEPS", {"broken": broken, **warmup.STEPS})
    spent = warmup.warm_up(_settings(tmp_path, database_url, analyze_workers=1))
    assert spent["broken"] is None and spent["grammars"] is not None


def _ready_within(client: TestClient, seconds: float = 60.0) -> dict:
    deadline = time.monotonic() + seconds
    while (answer := client.get("/readyz")).status_code != 200:
        assert time.monotonic() < deadline, answer.json()
        time.sleep(0.05)
    return answer.json()


def test_readyz_says_warming_up_until_the_warm_up_is_done(tmp_path, database_url, monkeypatch):
    gate = threading.Event()
    monkeypatch.setattr(warmup, "STEPS", {"held": lambda settings: gate.wait(30)})
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    app = build_app(_settings(tmp_path, database_url), verifier=verifier)
    with TestClient(app) as client:
        answer = client.get("/readyz")
        assert answer.status_code == 503
        assert answer.json()["error"]["code"] == "warming_up"
        assert client.get("/healthz").status_code == 200  # alive all along
        gate.set()
        assert _ready_within(client) == {"status": "ready"}
        assert set(app.state.warm_up_s) == {"held"}


@pytest.mark.parametrize("warm", [True, False])
def test_readyz_is_reached_with_and_without_warm_up(tmp_path, database_url, warm) -> None:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    app = build_app(_settings(tmp_path, database_url, warm_up=warm), verifier=verifier)
    with TestClient(app) as client:
        if not warm:
            assert client.get("/readyz").status_code == 200
            assert not hasattr(app.state, "warm")
        assert _ready_within(client) == {"status": "ready"}
