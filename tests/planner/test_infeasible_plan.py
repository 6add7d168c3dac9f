"""A ledger no cut can meet: the compile answer names the conflict and its words, the plan
answers why, relaxes one entry per conflict and returns the best cut under that ledger; the
CLI prints it in one block. A real verifier judges every cut (in process)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from clients.cli_plan import _show
from clients.verifier import VerifierClient
from protocol.planner import PlanResponse
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings

BRIEF = "A 8-second teaser: open on the bikes, end on the bunny, cut on the beat."
BEATS = [round(0.5 * i, 2) for i in range(1, 11)]
CLIPS = [
    {"id": "c1", "uri": "bikes.mp4", "duration_s": 10.0, "caption": "bikes", "tags": ["bikes"]},
    {"id": "c2", "uri": "bigbuckbunny.mp4", "duration_s": 5.3, "caption": "big buck bunny",
     "tags": ["big", "buck", "bunny"]},
]  # fmt: skip
MUSIC = [{"id": "m1", "uri": "bigbuckbunny.mp4", "duration_s": 5.31, "beats_s": BEATS,
          "downbeats_s": BEATS[::4]}]  # fmt: skip


@pytest.fixture
def planner(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    config = PlannerSettings(
        data_dir=tmp_path / "data", database_url=database_url, media_root=tmp_path
    )
    with TestClient(build_app(config, verifier=verifier)) as client:
        yield client


def _task(**extra) -> dict:
    return {"id": "teaser", "brief": {"text": BRIEF}, "clips": CLIPS, "music": MUSIC, **extra}


def test_compile_names_the_entries_the_track_and_the_words(planner: TestClient) -> None:
    body = {"brief": {"text": BRIEF}, "clips": CLIPS, "music": MUSIC}
    answer = planner.post("/v1/tasks:compile", json=body)
    assert answer.status_code == 200, answer.text
    (conflict,) = [c for c in answer.json()["conflicts"] if c["entries"]]
    assert conflict["entries"] == ["L1", "L5"]
    assert conflict["facts"] == ["music m1 is 5.3 s"]
    assert [s["text"] for s in conflict["spans"]] == ["8-second"]


@pytest.mark.parametrize("proposer", ["search", "exact"])
def test_the_plan_says_why_and_cuts_under_the_relaxed_length(
    planner: TestClient, proposer: str
) -> None:
    answer = planner.post("/v1/plan", json={"task": _task(), "options": {"proposer": proposer}})
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    assert plan["feasible"] is False and plan["infeasible_constraints"] == ["L1"]
    infeasible = plan["infeasible"]
    assert infeasible["relaxed"] == ["L1"] and infeasible["relaxed_feasible"] is True
    assert [c["entries"] for c in infeasible["conflicts"]] == [["L1", "L5"]]
    l1 = next(c for c in plan["report"]["constraints"] if c["id"] == "L1")
    assert "music m1 is 5.3 s" in l1["message"] and "add" not in l1["message"]
    assert plan["ves_upper_bound"] < 1.0
    assert plan["ves"] <= plan["ves_upper_bound"]
    assert 3.0 <= plan["report"]["duration_s"] <= 5.3
    stored = planner.get(f"/v1/plans/{plan['plan_id']}/task").json()
    assert next(e for e in stored["ledger"] if e["id"] == "L1")["hard"] is True


def test_a_feasible_ledger_is_planned_as_written(planner: TestClient) -> None:
    brief = "A 4-second teaser: open on the bikes, end on the bunny."
    body = {"task": _task(brief={"text": brief}), "options": {"proposer": "exact"}}
    plan = planner.post("/v1/plan", json=body).json()
    assert plan["infeasible"] is None, plan["infeasible"]
    assert plan["feasible"] is True, plan["report"]["constraints"]


def test_relax_false_plans_the_ledger_as_written(planner: TestClient) -> None:
    body = {"task": _task(), "options": {"proposer": "exact", "relax": False}}
    plan = planner.post("/v1/plan", json=body).json()
    assert plan["infeasible"] is None and plan["feasible"] is False
    assert plan["infeasible_constraints"] == ["L1"]
    relaxed = planner.post("/v1/plan", json={"task": _task(), "options": {"proposer": "exact"}})
    assert plan["ves"] >= relaxed.json()["ves"]  # the written ledger is the one it optimised


def test_the_cli_prints_one_short_block(planner: TestClient) -> None:
    plan = planner.post("/v1/plan", json={"task": _task()}).json()
    console = Console(record=True, width=200, highlight=False)
    _show(PlanResponse.model_validate(plan), console)
    text = console.export_text()
    block = text[text.index("cannot be met with this pool and music:\n") :].splitlines()
    assert block[1].startswith("  L1 + L5 (“8-second”): L1 asks for 7–9 s but music m1 is 5.3 s")
    assert block[2].startswith("  planned with L1 relaxed: the cut is ")
    assert "meets every other hard entry" in block[2]
    assert "(no cut meets every hard entry)" in block[4]
    assert text.count("conflict:") == 0  # the compiled block leaves it to this one
