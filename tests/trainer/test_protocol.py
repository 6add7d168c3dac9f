"""The trainer wire's bounds: hostile or absurd requests are a 4xx naming the field, never a
500 and never a queued job."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.trainer.trainer_apps import trainer_app

EPISODES = [{"episodes": {"n": 2, "seed": 1}}]


@pytest.fixture
def trainer(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    with trainer_app(tmp_path, database_url) as client:
        yield client


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"kind": "gui_sft", "sources": [{"episodes": {"n": False}}]}, "sources[0].episodes.n"),
        ({"kind": "gui_sft", "sources": [{"episodes": {"n": 1.5}}]}, "sources[0].episodes.n"),
        ({"kind": "gui_sft", "sources": EPISODES, "pull": 1}, "pull"),
        ({"kind": "gui_sft", "sources": [{"episodes": {"n": 10**9}}]}, "sources[0].episodes.n"),
        (
            {"kind": "gui_sft", "sources": [{"episodes": {"n": 1, "seed": True}}]},
            "sources[0].episodes.seed",
        ),
        (
            {"kind": "gui_sft", "sources": [{"episodes": {"n": 1, "seed": 2**32}}]},
            "sources[0].episodes.seed",
        ),
        ({"kind": "gui_sft", "sources": EPISODES * 65}, "sources"),
        ({"kind": "gui_sft", "sources": [{"path": "a\x00b"}]}, "sources[0].path"),
        ({"kind": "gui_sft", "sources": [{"path": "a" * 5000}]}, "sources[0].path"),
        ({"kind": "evo_pairs", "sources": EPISODES, "filters": {"margin": True}}, "filters.margin"),
        ({"kind": "evo_pairs", "sources": EPISODES, "filters": {"margin": 1e9}}, "filters.margin"),
        (
            {"kind": "repair_sft", "sources": EPISODES, "filters": {"min_ves_gain": False}},
            "filters.min_ves_gain",
        ),
        ({"kind": "gui_sft", "sources": EPISODES, "filters": {"max_rows": 0}}, "filters.max_rows"),
        (
            {"kind": "repair_sft", "sources": EPISODES, "filters": {"select": "best"}},
            "filters.select",
        ),
        ({"kind": "gui_sft", "sources": [{"nothing": 1}]}, "sources[0]"),
        (
            {"kind": "repair_sft", "sources": EPISODES, "filters": {"proposers": ["p"] * 101}},
            "filters.proposers",
        ),
        (
            {"kind": "solar", "sources": EPISODES, "filters": {"solar": {"n_candidates": True}}},
            "filters.solar.n_candidates",
        ),
        (
            {"kind": "solar", "sources": EPISODES, "filters": {"solar": {"n_candidates": 10**6}}},
            "filters.solar.n_candidates",
        ),
        (
            {"kind": "solar", "sources": EPISODES, "filters": {"solar": {"w1": "heavy"}}},
            "filters.solar.w1",
        ),
        (
            {"kind": "solar", "sources": EPISODES, "filters": {"solar": {"nope": 1}}},
            "filters.solar.nope",
        ),
    ],
)
def test_build_bounds(trainer: TestClient, body: dict[str, Any], param: str) -> None:
    answer = trainer.post("/v1/datasets:build", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["param"] == param
    assert trainer.get("/v1/datasets").json() == []


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"kind": "sft", "data": "d", "base": "a\x00b"}, "base"),
        ({"kind": "sft", "data": "d" * 201}, "data"),
        ({"kind": "sft", "data": "d", "hyper": {f"k{i}": 1 for i in range(33)}}, "hyper"),
        ({"kind": "sft", "data": "d", "base": "b" * 501}, "base"),
    ],
)
def test_train_bounds(trainer: TestClient, body: dict[str, Any], param: str) -> None:
    answer = trainer.post("/v1/train", json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["param"] == param
    assert trainer.app.state.jobs.list() == []  # type: ignore[attr-defined]


def test_pull_bounds(trainer: TestClient) -> None:
    sources = [{"service": "planner"}] * 65
    answer = trainer.post("/v1/sources:pull", json={"sources": sources})
    assert answer.status_code == 422 and answer.json()["error"]["param"] == "sources"
