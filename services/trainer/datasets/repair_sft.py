"""Repair SFT rows by verifier-replayed distillation.

``select="trajectory"`` (the default): the verifier-best teacher trajectory per task, every
trajectory replayed by the verifier from its start (see
:mod:`~services.trainer.datasets.repair_trajectories`); stats carry ``teacher_wins``.

``select="teachers"``: every teacher's replayed trajectory contributes its improving steps,
the verifier-best trajectory's first; a repeated answer to the same state is kept once.

``select="state"``: the best patch any teacher found per state. Candidates are grouped by
(task, state) across every plan, branch and proposer. Within a group the verifier-best
applied candidate wins (highest ``ves_after``; ties: fewer ops, then the earlier record); it
becomes a row only if the planner accepted it and it raised VES by more than ``min_gain``.
The prompt is the planner's own prompt for that state, rendered from the verifier's re-
verified report, and the completion is the planner's patch text, so a checkpoint trained
here sees at inference exactly what it was trained on.

Row (TRL prompt–completion, conversational)::

    {"prompt": [system, user], "completion": [{"role": "assistant", "content": <Patch.1>}],
     "meta": {"task_id", "state_key", "proposer", "ves_before", "ves_after"}}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from typing import Any, get_args

from protocol.trainer import RepairSelect
from services.trainer.datasets.records import (
    REPORT_ROUNDING,
    DatasetError,
    RepairRecord,
    TaskBook,
    parse_records,
    row_for,
    with_task,
)
from services.trainer.datasets.repair_trajectories import build_trajectory_sft
from services.trainer.datasets.stats import Tally

__all__ = [
    "SELECTS",
    "best_candidate",
    "build_repair_sft",
    "group_by_state",
]

SELECTS: tuple[str, ...] = get_args(RepairSelect)

StateGroups = dict[tuple[str, str], list[RepairRecord]]


def group_by_state(records: Iterable[RepairRecord], book: TaskBook, tally: Tally) -> StateGroups:
    """Records by (task_id, canonical state), first-seen order; records without a task are
    skipped (``missing_task``)."""
    groups: StateGroups = {}
    for record in with_task(records, book, tally):
        groups.setdefault((record.task_id, record.state), []).append(record)
    return groups


def best_candidate(group: Iterable[RepairRecord]) -> RepairRecord | None:
    """The applied candidate with the highest ``ves_after`` (ties: fewer ops, earlier record)."""
    applied = [r for r in group if r.applied]
    if not applied:
        return None
    return min(applied, key=lambda r: (-(r.ves_after or 0.0), r.n_ops, r.record_id))


def build_repair_sft(
    records: Iterable[Mapping[str, Any]],
    tasks: Mapping[str, Mapping[str, Any]],
    *,
    min_gain: float = 0.0,
    proposers: Collection[str] | None = None,
    select: str = "trajectory",
    controls: Collection[str] = (),
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Planner records + their tasks → (SFT rows, stats); see the module docstring.
    ``controls`` name negative-control proposers (never kept; not read by ``state``)."""
    if select in ("trajectory", "teachers"):
        return build_trajectory_sft(
            records,
            tasks,
            min_gain=min_gain,
            proposers=proposers,
            controls=controls,
            every_teacher=select == "teachers",
        )
    if select != "state":
        raise DatasetError(f"select must be one of {', '.join(SELECTS)}", param="select")
    book = TaskBook(tasks)
    record_tally, state_tally = Tally(), Tally()
    groups = group_by_state(parse_records(records, proposers=proposers), book, record_tally)
    rows: list[dict[str, Any]] = []
    teachers: Counter[str] = Counter()
    drift = 0
    for (task_id, key), group in groups.items():
        state_tally.seen += 1
        outcome = _state_row(book, task_id, key, group, min_gain)
        if isinstance(outcome, str):
            state_tally.skip(outcome)
            continue
        row, replayed_ves = outcome
        meta = row["meta"]
        drift += abs(replayed_ves - meta["ves_before"]) > REPORT_ROUNDING
        state_tally.kept += 1
        teachers[meta["proposer"]] += 1
        rows.append(row)
    stats = {
        "builder": "repair_sft",
        "select": "state",
        "rows": len(rows),
        "records": record_tally.as_dict(),
        "states": state_tally.as_dict(),
        "teachers": dict(sorted(teachers.items())),
        "ves_drift": drift,
        "min_gain": min_gain,
    }
    return rows, stats


def _state_row(
    book: TaskBook, task_id: str, key: str, group: list[RepairRecord], min_gain: float
) -> tuple[dict[str, Any], float] | str:
    """The group's row and the replayed state's VES, or the reason it has none."""
    best = best_candidate(group)
    if best is None:
        return "no_applied_candidate"
    if not best.accepted:
        return "best_not_accepted"
    if (best.ves_after or 0.0) - best.ves_before <= min_gain:
        return "no_improvement"
    replayed = book.replay(best)
    if replayed is None:
        return "bad_state"
    completion = book.completion(replayed.task, best.patch)
    if completion is None:
        return "bad_patch"
    return row_for(task_id, best, replayed.messages, completion, key), replayed.report.ves
