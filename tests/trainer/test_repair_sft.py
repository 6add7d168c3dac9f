"""Repair SFT (per-state selection): the verifier-best patch per state, with the planner's
exact prompt and target. Trajectory selection is in ``test_repair_trajectories.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from protocol.verifier import TaskIn, TimelineIn
from services.planner.loop import LoopOptions, run_branch
from services.planner.proposers.completion import CompletionProposer
from services.planner.records import ScoredRecord
from services.trainer.datasets.records import DatasetError
from services.trainer.datasets.repair_sft import build_repair_sft
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.trainer.planner_records import example, next_state, record

TASK, FULL = example()
TASKS = {TASK["id"]: TASK}
SUNSET_BACK = [{"op": "insert", "at": 7, "clip_id": "c10", "in_s": 6.0, "out_s": 8.0}]
WORSE = [{"op": "insert", "at": 7, "clip_id": "c12", "in_s": 0.0, "out_s": 2.0}]
MISSING_SHOT = [{"op": "remove", "shot": 40}]


def patch_json(ops: list[dict[str, Any]]) -> str:
    return json.dumps({"schema": "Patch.1", "ops": ops})


class Scripted(CompletionProposer):
    """A model proposer answering fixed texts; it keeps every prompt it was sent."""

    def __init__(self, name: str, texts: list[str]) -> None:
        super().__init__(name)
        self.texts = texts
        self.sent: list[list[dict[str, str]]] = []

    def complete(
        self, messages: list[dict[str, str]], *, n: int, seed: int, **_: object
    ) -> list[str | None]:
        self.sent.append(messages)
        return list(self.texts[:n])


def loop_records(proposers: list[Scripted]) -> list[dict[str, Any]]:
    """Run real planner branches from a broken cut and write their records as the planner does."""
    task = TaskIn.model_validate(TASK).to_task()
    start_wire = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
    start = TimelineIn.model_validate(start_wire).to_timeline(task)
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    options = LoopOptions(max_rounds=2, candidates=4)
    rows = []
    for branch_id, proposer in enumerate(proposers):
        branch = run_branch(TASK, task, proposer, verifier, options, start=start)
        for c in branch.candidates:
            fields = {name: getattr(c, name) for name in c.__slots__}
            scored = ScoredRecord(
                record_id=len(rows) + 1,
                plan_id="plan-1",
                task_id=task.id,
                branch_id=branch_id,
                proposer=proposer.name,
                **fields,
            )
            rows.append(scored.wire())
    return rows


def test_rows_are_exactly_what_the_model_proposer_sends_and_should_answer() -> None:
    weak = Scripted("teacher-weak", [patch_json(WORSE), patch_json(MISSING_SHOT)])
    strong = Scripted("teacher-strong", [patch_json(MISSING_SHOT), patch_json(SUNSET_BACK)])
    records = loop_records([weak, strong])
    rows, stats = build_repair_sft(records, TASKS, select="state")
    # Both branches start from the same state: one group, won by the strong teacher.
    first = rows[0]
    assert first["prompt"] == weak.sent[0] == strong.sent[0]
    assert first["completion"] == [
        {
            "role": "assistant",
            "content": json.dumps({"schema": "Patch.1", "ops": SUNSET_BACK}, separators=(",", ":")),
        }
    ]
    assert first["meta"]["proposer"] == "teacher-strong"
    assert first["meta"]["ves_after"] > first["meta"]["ves_before"]
    # The weak branch's second state is its own; every row's prompt was sent by a proposer.
    sent = weak.sent + strong.sent
    assert all(row["prompt"] in sent for row in rows)
    assert stats["states"]["seen"] == len(
        {json.dumps(r["state_timeline"], sort_keys=True) for r in records}
    )
    assert stats["rows"] == len(rows) and stats["ves_drift"] == 0
    assert stats["records"] == {"seen": len(records), "kept": len(records), "skipped": {}}


def test_ties_go_to_fewer_ops() -> None:
    state = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
    padded = [*SUNSET_BACK, {"op": "trim", "shot": 0, "in_s": 1.0, "out_s": 3.0}]  # a no-op trim
    records = [
        record(TASK, state, padded, record_id=1, accepted=True, proposer="long"),
        record(TASK, state, SUNSET_BACK, record_id=2, accepted=True, proposer="short", branch_id=1),
    ]
    assert records[0]["ves_after"] == records[1]["ves_after"]
    rows, _ = build_repair_sft(records, TASKS, select="state")
    assert [r["meta"]["proposer"] for r in rows] == ["short"]


def test_states_without_a_kept_improvement_give_no_row() -> None:
    state = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
    records = [
        record(TASK, state, MISSING_SHOT, record_id=1),  # rejected only
        record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=2, accepted=True),  # worse
    ]
    rows, stats = build_repair_sft(records, TASKS, select="state")
    assert rows == []
    assert stats["states"]["skipped"] == {"no_applied_candidate": 1, "no_improvement": 1}
    best_not_kept = [record(TASK, state, SUNSET_BACK, record_id=4)]
    _, stats = build_repair_sft(best_not_kept, TASKS, select="state")
    assert stats["states"]["skipped"] == {"best_not_accepted": 1}


def test_missing_tasks_filters_and_min_gain() -> None:
    state = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
    good = record(TASK, state, SUNSET_BACK, record_id=1, accepted=True, proposer="a")
    orphan = dict(good, record_id=2, task_id="gone")
    rows, stats = build_repair_sft([good, orphan], TASKS, select="state")
    assert len(rows) == 1
    assert stats["records"]["skipped"] == {"missing_task": 1}
    assert build_repair_sft([good], TASKS, proposers=["b"], select="state")[0] == []
    gain = good["ves_after"] - good["ves_before"]
    assert build_repair_sft([good], TASKS, min_gain=gain + 0.01, select="state")[0] == []
    assert len(build_repair_sft([good], TASKS, min_gain=gain - 0.01, select="state")[0]) == 1


def test_malformed_records_and_tasks_are_typed_errors() -> None:
    state = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
    good = record(TASK, state, SUNSET_BACK, record_id=1, accepted=True)
    bad = dict(good)
    del bad["patch"]
    with pytest.raises(DatasetError) as caught:
        build_repair_sft([good, bad], TASKS, select="state")
    assert caught.value.param == "records[1].patch" and caught.value.status_code == 422
    with pytest.raises(DatasetError) as caught:
        build_repair_sft([dict(good, ves_before="high")], TASKS)
    assert caught.value.param == "records[0].ves_before"
    with pytest.raises(DatasetError) as caught:
        build_repair_sft([good], {TASK["id"]: {"id": TASK["id"]}}, select="state")
    assert caught.value.param == f"tasks.{TASK['id']}"
