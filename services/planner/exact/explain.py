"""The smallest set of hard ledger entries the exact solver finds no cut for, by a deletion
filter: each entry in turn is left out for good when the solver still proves that the
rest cannot all hold. Every trial keeps only hard entries (soft ones change the score, not
what is possible). The answer holds on the solver's discretisation (``docs/exact.md``); a
trial the solver cannot close within its limit counts as feasible, so the set named may be
larger than the smallest, never one that is not infeasible.
"""

from __future__ import annotations

from services.planner.exact.solver import MAX_CLIPS, MAX_SHOTS, solve
from services.verifier.feasibility import Conflict, deletion_filter, restricted
from services.verifier.score import Verifier
from services.verifier.task import Task

__all__ = ["TRIAL_LIMIT_S", "minimal_conflict", "proven_infeasible"]

TRIAL_LIMIT_S = 2.0
"""Wall-clock seconds per solver trial."""


def proven_infeasible(task: Task, *, time_limit_s: float = TRIAL_LIMIT_S) -> bool:
    """The solver closed every model of ``task`` and none meets every hard entry."""
    found = solve(task, max_clips=MAX_CLIPS, max_shots=MAX_SHOTS, time_limit_s=time_limit_s)
    if found.restricted:
        return False  # exact on a sub-pool only: the rest of the pool may hold a cut
    feasible = found.timeline is not None and Verifier(task).verify(found.timeline).feasible
    return found.proven and not feasible


def minimal_conflict(task: Task, *, time_limit_s: float = TRIAL_LIMIT_S) -> Conflict | None:
    """The hard entries that cannot all hold (None when the solver finds a cut meeting
    them all, or cannot tell within its limit)."""
    hard = [r.id for r in task.ledger if r.hard]
    if not hard or not proven_infeasible(restricted(task, hard), time_limit_s=time_limit_s):
        return None

    def infeasible(kept: frozenset[str]) -> bool:
        return bool(kept) and proven_infeasible(restricted(task, kept), time_limit_s=time_limit_s)

    entries = deletion_filter(hard, infeasible)
    kinds = {r.id: r.kind for r in task.ledger}
    named = ", ".join(f"{e} ({kinds[e]})" for e in entries)
    return Conflict(
        entries,
        ("the exact solver finds no cut that meets them together",),
        f"{named} cannot all hold with this pool and music",
    )
