"""Planner branches as episodes, and SOLAR on them."""

from __future__ import annotations

from services.trainer.datasets.trajectories import build_trajectories, stored_messages
from services.trainer.solar import SolarConfig, solar_rows, step_validity
from tests.trainer.planner_records import example, next_state, record

TASK, FULL = example()
TASKS = {TASK["id"]: TASK}
REMOVE_SUNSET = [{"op": "remove", "shot": 7}]
SUNSET_BACK = [{"op": "insert", "at": 7, "clip_id": "c10", "in_s": 6.0, "out_s": 8.0}]
LOW = [{"op": "insert", "at": 7, "clip_id": "c12", "in_s": 0.0, "out_s": 2.0}]
REJECTED = [{"op": "remove", "shot": 40}]
TRIM = [{"op": "trim", "shot": 0, "in_s": 1.0, "out_s": 2.5}]


def branch_records() -> list[dict]:
    """Round 1 breaks hard L3 (removes the sunset ending); round 2 restores it; round 3 stalls."""
    first = record(TASK, FULL, REMOVE_SUNSET, record_id=1, accepted=True)
    other = record(TASK, FULL, TRIM, record_id=2)
    state = next_state(TASK, first)
    second = [
        record(TASK, state, SUNSET_BACK, record_id=3, round=2, accepted=True),
        record(TASK, state, LOW, record_id=4, round=2),
        record(TASK, state, REJECTED, record_id=5, round=2),
    ]
    stall = record(TASK, next_state(TASK, second[0]), REJECTED, record_id=6, round=3)
    return [first, other, *second, stall]


def test_a_branch_becomes_an_episode_with_verdicts() -> None:
    episodes, stats = build_trajectories(branch_records(), TASKS)
    assert len(episodes) == 1 and stats["steps"] == 2 and stats["valid_steps"] == 1
    episode = episodes[0]
    assert episode["episode_id"] == "plan-a:0" and episode["kind"] == "repair"
    assert episode["success"] is True  # the restored cut is feasible
    first, second = episode["steps"]
    assert first["action"]["broken_hard"] == ["L3"] and first["action"]["applied"]
    assert [a["applied"] for a in first["alternatives"]] == [True]
    assert step_validity(first["alternatives"][0], first) == 1.0
    assert [a["applied"] for a in second["alternatives"]] == [True, False]
    assert step_validity(first["action"], first) == 0.0
    assert step_validity(second["action"], second) == 1.0
    assert first["observation"]["messages"][1]["content"].startswith(f"TASK {TASK['id']}")
    assert second["action"]["completion"].startswith('{"schema":"Patch.1"')


def test_solar_rows_on_repair_episodes() -> None:
    episodes, _ = build_trajectories(branch_records(), TASKS)
    rows, stats = solar_rows(episodes, render=stored_messages, config=SolarConfig(n_candidates=2))
    assert stats["rows"] == 4 and stats["groups"] == 2
    step0 = [r for r in rows if r["group"] == "plan-a:0:0"]
    assert step0[0]["prompt"] == episodes[0]["steps"][0]["observation"]["messages"]
    assert step0[0]["completion"][0]["content"] == episodes[0]["steps"][0]["action"]["completion"]
    # The kept patch broke hard L3 (fails at t* = 0); the trim alternative stays valid.
    assert step0[0]["reward"] == -0.5 and step0[1]["reward"] > 0
    assert step0[1]["advantage"] > 0 > step0[0]["advantage"]
    assert stats["successful_trajectories"] == 1


def test_branches_without_a_kept_step_and_missing_tasks_are_counted() -> None:
    records = branch_records()
    stalled = dict(records[1], plan_id="plan-b")
    orphan = dict(records[0], task_id="gone")
    episodes, stats = build_trajectories([*records, stalled, orphan], TASKS)
    assert len(episodes) == 1
    assert stats["branches"]["skipped"] == {"no_kept_step": 1}
    assert stats["records"]["skipped"] == {"missing_task": 1}
    assert build_trajectories(records, TASKS, proposers=["nobody"])[0] == []
