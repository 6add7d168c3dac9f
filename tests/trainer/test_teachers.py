"""Named teachers: search strategies and OpenAI-compatible endpoints, run as plan branches."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.trainer.config import TrainerSettings
from services.trainer.datasets.repair_sft import build_repair_sft
from services.trainer.teachers import TeacherEndpoint, TeacherRegistry, resolvable
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_openai import FakeOpenAI, serve
from tests.trainer.planner_records import example, next_state, record

TASK, FULL = example()
BROKEN = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
STRATEGIES = ["search:greedy", "search:beam", "search:restarts", "search:fixes"]


@pytest.fixture(scope="module")
def endpoints() -> Iterator[list[TeacherEndpoint]]:
    """Two fake OpenAI-compatible servers, each serving its own model."""
    first, second = FakeOpenAI(models=("model-a",)), FakeOpenAI(models=("model-b",))
    with serve(first.app) as url_a, serve(second.app) as url_b:
        yield [
            TeacherEndpoint(name="teacher-a", base_url=url_a, model="model-a"),
            TeacherEndpoint(name="teacher-b", base_url=url_b, model="model-b"),
        ]


@pytest.fixture
def planner(tmp_path: Path, endpoints: list[TeacherEndpoint]) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    config = PlannerSettings(data_dir=tmp_path, media_root=tmp_path, relevance="tfidf")
    app = build_app(config, verifier=verifier)
    app.state.registry = TeacherRegistry(config, app.state.engine, endpoints)
    with TestClient(app) as client:
        yield client


def _records(client: TestClient) -> list[dict[str, Any]]:
    answer = client.get("/v1/records", params={"after": 0, "limit": 5000})
    return [json.loads(line) for line in answer.text.splitlines() if line.strip()]


def test_every_teacher_runs_as_its_own_branch_and_wins_are_counted(planner: TestClient) -> None:
    teachers = [*STRATEGIES[1:], "teacher-a", "teacher-b"]
    options = {"proposer": STRATEGIES[0], "teachers": teachers, "max_rounds": 2, "candidates": 3}
    answer = planner.post("/v1/plan", json={"task": TASK, "timeline": BROKEN, "options": options})
    assert answer.status_code == 200, answer.text
    branches = answer.json()["branches"]
    assert [b["proposer"] for b in branches] == [STRATEGIES[0], *teachers]
    assert all(b.get("error") is None for b in branches)
    records = _records(planner)
    assert {r["proposer"] for r in records} == {STRATEGIES[0], *teachers}
    rows, stats = build_repair_sft(records, {TASK["id"]: TASK})
    assert stats["trajectories"]["seen"] == len(branches) == 6
    assert sum(stats["teacher_wins"].values()) == 1
    (winner,) = stats["teacher_wins"]
    best = max(b["final_ves"] for b in branches)
    assert next(b for b in branches if b["proposer"] == winner)["final_ves"] == best
    assert rows and {r["meta"]["proposer"] for r in rows} == {winner}


def test_strategies_are_different_proposers(planner: TestClient) -> None:
    registry = planner.app.state.registry
    from protocol.verifier import TaskIn, TimelineIn
    from services.verifier.score import Verifier

    task = TaskIn.model_validate(TASK).to_task()
    timeline = TimelineIn.model_validate(BROKEN).to_timeline(task)
    report = Verifier(task).verify(timeline)
    answers = {}
    for name in STRATEGIES:
        proposer = registry.resolve(name)
        assert proposer.name == name
        answers[name] = [p.ops for p in proposer.propose(task, timeline, report, n=4, seed=1)]
    assert answers["search:greedy"] and answers["search:restarts"]
    assert answers["search:greedy"] != answers["search:restarts"]
    assert answers["search:fixes"] and all(len(ops) == 1 for ops in answers["search:fixes"])
    assert answers["search:fixes"] != answers["search:greedy"]


def test_unknown_teachers_are_reported_not_run(planner: TestClient) -> None:
    registry = planner.app.state.registry
    ready, missing = resolvable(registry, ["search:greedy", "search:annealing", "nobody"])
    assert ready == ["search:greedy"]
    assert set(missing) == {"search:annealing", "nobody"}
    assert "greedy, beam, restarts, fixes" in missing["search:annealing"]
    options = {"proposer": "search:annealing"}
    answer = planner.post("/v1/plan", json={"task": TASK, "timeline": BROKEN, "options": options})
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "unknown_proposer"


def test_endpoints_come_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    value = [{"name": "qwen-big", "base_url": "http://gpu:8000/v1", "model": "Qwen3-8B"}]
    monkeypatch.setenv("REFINERY_TEACHERS", json.dumps(value))
    (endpoint,) = TrainerSettings().teachers
    assert endpoint == TeacherEndpoint(**value[0])
    monkeypatch.setenv("REFINERY_TEACHERS", json.dumps([{"name": "x", "base_url": "u"}]))
    with pytest.raises(ValueError, match="model"):
        TrainerSettings()
