"""Hostile plan requests, in process: refused with a 4xx naming the field (or planned, when
valid) within bounded memory; options and caps are strict numbers, checked before any work."""

from __future__ import annotations

import copy
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from benchmarks.attacks import Attack, attacks
from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings

MiB = 1024 * 1024
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PARAMS = {
    "clips_100000 plan": "task.clips",
    "duration_1e308 /v1/plan": "task.clips[0].duration_s",
    "nesting_500 plan": "task",
}
PLANNER_ATTACKS = [a for a in attacks() if a.service == "planner"]


def _planner(tmp_path: Path, database_url: str, **settings) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    config = PlannerSettings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        media_root=tmp_path,
        relevance="tfidf",
        **settings,
    )
    with TestClient(build_app(config, verifier=verifier)) as client:
        yield client


@pytest.fixture
def planner(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    yield from _planner(tmp_path, database_url)


@pytest.fixture(scope="module")
def task() -> dict:
    return json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())


@pytest.mark.parametrize("attack", PLANNER_ATTACKS, ids=lambda a: a.name)
def test_attack_is_answered_within_bounded_memory(planner: TestClient, attack: Attack) -> None:
    body = attack.body()
    tracemalloc.start()
    try:
        response = planner.post(
            attack.path, content=body, headers={"content-type": "application/json"}
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == attack.expect, response.text[:500]
    assert peak < 100 * MiB
    if attack.expect != 200:
        assert response.json()["error"]["param"] == PARAMS[attack.name]


def test_a_track_shorter_than_a_frame_still_gets_a_plan(planner: TestClient, task: dict) -> None:
    short = copy.deepcopy(task)
    short["music"][0].update(duration_s=0.01)
    answer = planner.post("/v1/plan", json={"task": short, "options": {"max_rounds": 2}})
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    assert plan["timeline"]["shots"] and not plan["feasible"]  # the music rule cannot hold


def test_a_track_with_no_beat_inside_it_still_gets_a_plan(planner: TestClient, task: dict) -> None:
    short = copy.deepcopy(task)
    short["music"][0].update(duration_s=0.3, beats_s=[5.0, 6.0], downbeats_s=[5.0])
    answer = planner.post("/v1/plan", json={"task": short, "options": {"max_rounds": 2}})
    assert answer.status_code == 200, answer.text


def test_the_planner_caps_come_from_its_own_settings(
    tmp_path: Path, database_url: str, task: dict
) -> None:
    for client in _planner(tmp_path, database_url, max_clips=5):
        error = client.post("/v1/plan", json={"task": task}).json()["error"]
        assert error["code"] == "limit_exceeded" and error["param"] == "task.clips"
        assert "REFINERY_MAX_CLIPS" in error["message"]
        rows = client.get("/v1/records?after=0").text
        assert rows == ""  # nothing ran


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"max_rounds": False}, "options.max_rounds"),
        ({"candidates": 2.5}, "options.candidates"),
        ({"seed": -1}, "options.seed"),
        ({"seed": True}, "options.seed"),
        ({"time_budget_s": 1e300}, "options.time_budget_s"),
        ({"time_budget_s": 5e-324}, "options.time_budget_s"),
        ({"teachers": ["search"] * 65}, "options.teachers"),
    ],
)
def test_options_are_strict_bounded_numbers(
    planner: TestClient, task: dict, options: dict, param: str
) -> None:
    response = planner.post("/v1/plan", json={"task": task, "options": options})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"] == param


def test_a_timeline_past_the_shot_cap_is_refused(
    tmp_path: Path, database_url: str, task: dict
) -> None:
    timeline = {"shots": [{"clip_id": "c01", "in_s": 0, "out_s": 1}] * 4}
    for client in _planner(tmp_path, database_url, max_shots=3):
        response = client.post("/v1/plan", json={"task": task, "timeline": timeline})
        assert response.json()["error"]["param"] == "timeline.shots"
