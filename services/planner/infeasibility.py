"""A ledger no cut can meet: the conflicts the compiler reports with the brief's words they
came from, and the relaxed task the planner plans instead (one entry of each conflict made
soft, so the cut comes as close to it as the pool and music allow).

The conflicts themselves are the verifier domain's pre-checks
(:mod:`services.verifier.feasibility`); the exact proposer adds a deletion filter for the
ones they miss (:mod:`services.planner.exact.explain`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.verifier.feasibility import Conflict, precheck, relax, relaxed
from services.verifier.task import Task

__all__ = ["Relaxation", "conflict_payloads", "relaxation"]


def conflict_payloads(
    conflicts: Iterable[Conflict], provenance: Sequence[Mapping[str, Any]] = ()
) -> list[dict[str, Any]]:
    """``ConflictOut`` bodies: each conflict with the brief's words its entries came from."""
    spans: dict[str, list[dict[str, Any]]] = {}
    for item in provenance:
        if item.get("start") is not None:
            span = {"start": item["start"], "end": item["end"], "text": item.get("text")}
            spans.setdefault(item["constraint_id"], []).append(span)
    return [
        {
            "message": conflict.message,
            "spans": [span for entry in conflict.entries for span in spans.get(entry, [])],
            "entries": list(conflict.entries),
            "facts": list(conflict.facts),
        }
        for conflict in conflicts
    ]


@dataclass(frozen=True, slots=True)
class Relaxation:
    task: Task
    wire: dict[str, Any]
    """The relaxed task in Task.1 form, for the verifier service."""
    conflicts: tuple[Conflict, ...]
    relaxed: tuple[str, ...]


def relaxation(
    task: Task, wire: dict[str, Any], conflicts: Sequence[Conflict] | None = None
) -> Relaxation | None:
    """``task`` with one entry of each conflict soft, until the pre-checks find none
    (None when there is no conflict to begin with)."""
    found = list(precheck(task) if conflicts is None else conflicts)
    if not found:
        return None
    every, chosen, current = list(found), [], task
    while found and len(chosen) < len(task.ledger):
        picked = [e for e in relax(current, found) if e not in chosen]
        if not picked:
            break
        chosen += picked
        current = relaxed(task, chosen)
        found = precheck(current)
        every += [c for c in found if c not in every]
    soft = set(chosen)
    ledger = [{**e, "hard": False} if e["id"] in soft else e for e in wire["ledger"]]
    return Relaxation(current, {**wire, "ledger": ledger}, tuple(every), tuple(chosen))
