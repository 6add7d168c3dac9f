"""Verifier-replayed multi-teacher distillation: the verifier-best trajectory per task.

A teacher's trajectory is one plan branch: the candidates the planner kept, round by round,
from the branch's starting cut. The verifier replays every trajectory from its start: each
kept patch is applied to the replayed timeline (never to the recorded one) and the result
must be the state the next round started from; the replayed final timeline's VES decides.
Per task the trajectory with the highest replayed VES wins (ties: fewer steps, then fewer
ops, then the teacher seen first) and each of its steps that raised VES by more than
``min_gain`` becomes a row. A trajectory that keeps nothing still competes (its VES is its
start's), so a task nobody improved gives no rows.

With ``every_teacher`` (``select="teachers"``) each teacher's replayed trajectory adds its
improving steps after the winner's, and an answer already kept for the same state is not
repeated; ``teacher_wins`` still counts the best trajectory per task.

Proposers named in ``controls`` are negative controls: their trajectories are replayed and
scored (``control_best`` counts the tasks where one would have won) but never kept.

Stats add ``teacher_wins`` (winning trajectories per proposer, tasks with rows only),
``trajectories`` (seen/kept/skipped by reason) and ``tasks``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from protocol.verifier import PatchIn, TimelineIn
from services.common.errors import RefineryError
from services.trainer.datasets.records import (
    REPORT_ROUNDING,
    RepairRecord,
    TaskBook,
    group_by_branch,
    parse_records,
    row_for,
)
from services.trainer.datasets.stats import Tally
from services.verifier.errors import PatchRejected
from services.verifier.patches import apply_patch

__all__ = ["Trajectory", "build_trajectory_sft", "replay_trajectory"]


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One branch's kept steps, replayed: ``ves`` is the replayed final VES."""

    proposer: str
    order: int
    steps: tuple[RepairRecord, ...]
    start_ves: float
    ves: float
    recorded_ves: float

    @property
    def n_ops(self) -> int:
        return sum(step.n_ops for step in self.steps)

    def rank(self) -> tuple[float, int, int, int]:
        return (-self.ves, len(self.steps), self.n_ops, self.order)


def _kept_steps(rounds: Mapping[int, list[RepairRecord]]) -> list[RepairRecord]:
    steps = []
    for number in sorted(rounds):
        kept = [r for r in rounds[number] if r.accepted]
        if not kept:
            break
        steps.append(kept[0])
    return steps


def replay_trajectory(
    book: TaskBook, rounds: Mapping[int, list[RepairRecord]], order: int
) -> Trajectory | str:
    """Replay one branch from its first state; the trajectory, or why it cannot be replayed."""
    first = rounds[min(rounds)][0]
    task, verifier = book.compiled(first.task_id)
    try:
        timeline = TimelineIn.model_validate(first.state_timeline).to_timeline(task)
    except (ValidationError, RefineryError):
        return "bad_state"
    start_ves = verifier.verify(timeline).ves
    steps = _kept_steps(rounds)
    for step in steps:
        try:
            recorded = TimelineIn.model_validate(step.state_timeline).to_timeline(task)
            ops = PatchIn.model_validate(step.patch).to_ops(task.fps)
            if recorded != timeline:
                return "replay_mismatch"
            timeline = apply_patch(task, timeline, ops)
        except (ValidationError, RefineryError, PatchRejected, ValueError):
            return "replay_rejected"
    final = verifier.verify(timeline).ves
    recorded_ves = steps[-1].ves_after if steps and steps[-1].ves_after is not None else start_ves
    return Trajectory(first.proposer, order, tuple(steps), start_ves, final, recorded_ves)


def _branches(
    records: Iterable[RepairRecord], book: TaskBook, tally: Tally
) -> dict[str, list[dict[int, list[RepairRecord]]]]:
    """Records → per task, its branches (plan, branch) in first-seen order, by round."""
    tasks: dict[str, list[dict[int, list[RepairRecord]]]] = {}
    for rounds in group_by_branch(records, book, tally).values():
        tasks.setdefault(next(iter(rounds.values()))[0].task_id, []).append(rounds)
    return tasks


def build_trajectory_sft(
    records: Iterable[Mapping[str, Any]],
    tasks: Mapping[str, Mapping[str, Any]],
    *,
    min_gain: float = 0.0,
    proposers: Collection[str] | None = None,
    controls: Collection[str] = (),
    every_teacher: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Planner records + their tasks → (SFT rows, stats); see the module docstring.
    ``every_teacher`` keeps every teacher's trajectory, best first, not the best one only."""
    book = TaskBook(tasks)
    record_tally, branch_tally, task_tally = Tally(), Tally(), Tally()
    grouped = _branches(parse_records(records, proposers=proposers), book, record_tally)
    rows: list[dict[str, Any]] = []
    wins: Counter[str] = Counter()
    rows_by: Counter[str] = Counter()
    control_best = drift = 0
    for task_id, branches in grouped.items():
        task_tally.seen += 1
        replayed = []
        for order, rounds in enumerate(branches):
            branch_tally.seen += 1
            outcome = replay_trajectory(book, rounds, order)
            if isinstance(outcome, str):
                branch_tally.skip(outcome)
                continue
            branch_tally.kept += 1
            drift += abs(outcome.ves - outcome.recorded_ves) > REPORT_ROUNDING
            replayed.append(outcome)
        if replayed and min(replayed, key=Trajectory.rank).proposer in controls:
            control_best += 1
        ranked = sorted((t for t in replayed if t.proposer not in controls), key=Trajectory.rank)
        kept = ranked if every_teacher else ranked[:1]
        task_rows = _unique([r for t in kept for r in _rows(book, task_id, t, min_gain)])
        if not task_rows:
            task_tally.skip("no_improvement" if ranked else "no_trajectory")
            continue
        task_tally.kept += 1
        wins[ranked[0].proposer] += 1
        rows_by.update(row["meta"]["proposer"] for row in task_rows)
        rows.extend(task_rows)
    stats = {
        "builder": "repair_sft",
        "select": "teachers" if every_teacher else "trajectory",
        "rows": len(rows),
        "records": record_tally.as_dict(),
        "trajectories": branch_tally.as_dict(),
        "tasks": task_tally.as_dict(),
        "teacher_wins": dict(sorted(wins.items())),
        "teachers": dict(sorted(rows_by.items())),
        "controls": sorted(controls),
        "control_best": control_best,
        "ves_drift": drift,
        "min_gain": min_gain,
    }
    return rows, stats


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` without repeats of an earlier row's state and answer."""
    seen: set[tuple[str, str]] = set()
    out = []
    for row in rows:
        key = (row["meta"]["state_key"], row["completion"][0]["content"])
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def _rows(
    book: TaskBook, task_id: str, trajectory: Trajectory, min_gain: float
) -> list[dict[str, Any]]:
    """The winning trajectory's improving steps as rows (prompt from the replayed state)."""
    out = []
    for step in trajectory.steps:
        if (step.ves_after or 0.0) - step.ves_before <= min_gain:
            continue
        replayed = book.replay(step)
        completion = None if replayed is None else book.completion(replayed.task, step.patch)
        if replayed is None or completion is None:
            continue
        row = row_for(task_id, step, replayed.messages, completion)
        row["meta"]["trajectory_ves"] = trajectory.ves
        out.append(row)
    return out
