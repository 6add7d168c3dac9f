"""Repair SFT by trajectory: every teacher's branch replayed by the verifier, the best kept."""

from __future__ import annotations

import copy
from typing import Any

from services.trainer.datasets.repair_sft import build_repair_sft
from tests.trainer.test_repair_sft import (
    MISSING_SHOT,
    SUNSET_BACK,
    TASKS,
    WORSE,
    Scripted,
    loop_records,
    patch_json,
)


def _teachers() -> tuple[Scripted, Scripted, list[dict[str, Any]]]:
    weak = Scripted("teacher-weak", [patch_json(WORSE), patch_json(MISSING_SHOT)])
    strong = Scripted("teacher-strong", [patch_json(MISSING_SHOT), patch_json(SUNSET_BACK)])
    return weak, strong, loop_records([weak, strong])


def test_the_verifier_best_trajectory_wins_and_wins_are_counted() -> None:
    _weak, strong, records = _teachers()
    rows, stats = build_repair_sft(records, TASKS)
    assert stats["select"] == "trajectory"
    assert stats["teacher_wins"] == {"teacher-strong": 1}
    assert stats["trajectories"] == {"seen": 2, "kept": 2, "skipped": {}}
    assert rows and all(r["meta"]["proposer"] == "teacher-strong" for r in rows)
    assert all(r["prompt"] in strong.sent for r in rows)
    assert rows[0]["meta"]["trajectory_ves"] > rows[0]["meta"]["ves_before"]


def test_a_teacher_that_reports_a_false_score_is_judged_by_the_replay() -> None:
    _, _, records = _teachers()
    forged = copy.deepcopy(records)
    for r in forged:  # the weak teacher claims its kept step reached VES 1.0
        if r["proposer"] == "teacher-weak" and r["accepted"]:
            r["ves_after"] = 1.0
    _rows, stats = build_repair_sft(forged, TASKS)
    assert stats["teacher_wins"] == {"teacher-strong": 1}
    assert stats["ves_drift"] == 1


def test_a_trajectory_that_does_not_replay_is_skipped() -> None:
    _, _, records = _teachers()
    broken = copy.deepcopy(records)
    for r in broken:  # the strong teacher's kept patch no longer applies
        if r["proposer"] == "teacher-strong" and r["accepted"]:
            r["patch"] = {"schema": "Patch.1", "ops": [{"op": "remove", "shot": 40}]}
    _rows, stats = build_repair_sft(broken, TASKS)
    assert stats["trajectories"]["skipped"] == {"replay_rejected": 1}
    assert stats["teacher_wins"] == {"teacher-weak": 1}


def test_a_negative_control_is_scored_but_never_kept() -> None:
    _, _, records = _teachers()
    rows, stats = build_repair_sft(records, TASKS, controls=["teacher-strong"])
    assert stats["control_best"] == 1
    assert stats["teacher_wins"] == {"teacher-weak": 1}
    assert all(r["meta"]["proposer"] == "teacher-weak" for r in rows)


def test_no_improving_trajectory_gives_no_rows() -> None:
    _, _, records = _teachers()
    rows, stats = build_repair_sft(records, TASKS, min_gain=0.5)
    assert rows == [] and stats["tasks"]["skipped"] == {"no_improvement": 1}
    assert stats["teacher_wins"] == {}


def test_every_teacher_keeps_each_teachers_improving_steps_after_the_best() -> None:
    _, _, records = _teachers()
    best, _ = build_repair_sft(records, TASKS)
    rows, stats = build_repair_sft(records, TASKS, select="teachers")
    assert stats["select"] == "teachers"
    assert stats["teacher_wins"] == {"teacher-strong": 1}
    assert rows[: len(best)] == best
    assert {r["meta"]["proposer"] for r in rows[len(best) :]} == {"teacher-weak"}
    assert sum(stats["teachers"].values()) == len(rows)
    answers = [(r["meta"]["state_key"], r["completion"][0]["content"]) for r in rows]
    assert len(set(answers)) == len(answers)


def test_every_teacher_drops_a_repeated_answer_to_the_same_state() -> None:
    _, _, records = _teachers()
    twice = records + [{**r, "plan_id": f"{r['plan_id']}-again"} for r in records]
    once, _ = build_repair_sft(records, TASKS, select="teachers")
    rows, stats = build_repair_sft(twice, TASKS, select="teachers")
    assert rows == once
    assert stats["trajectories"]["seen"] == 4
