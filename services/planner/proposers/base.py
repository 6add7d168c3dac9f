"""The proposer contract: draft a first cut, then propose patches that repair it.

Proposers only propose; the verifier service decides every verdict. A proposer may use the
pure verifier modules (:mod:`services.verifier.score`, :mod:`services.verifier.patches`) to
search internally, but the planner's loop judges each proposal again over HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from services.common.errors import RefineryError
from services.verifier.patches import Op
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline


class ProposerError(RefineryError):
    """A proposer that cannot serve at all (endpoint down, checkpoint missing): a 503/422."""

    status_code = 503
    code = "proposer_unavailable"


@dataclass(frozen=True, slots=True)
class Proposal:
    """One candidate patch (a list of domain ops) and where it came from."""

    ops: tuple[Op, ...]
    source: str
    note: str = ""


@dataclass(slots=True)
class ProposerStats:
    """What a proposer did, for the plan's report (e.g. malformed LLM answers dropped)."""

    requests: int = 0
    candidates: int = 0
    dropped: int = 0
    errors: list[str] = field(default_factory=list)


@runtime_checkable
class Proposer(Protocol):
    """Drafts and repairs timelines for a task. Deterministic for a given ``seed``."""

    name: str
    stats: ProposerStats

    def draft(self, task: Task, *, seed: int) -> Timeline:
        """A first executable cut for the task (the one-shot baseline)."""
        ...

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        """Up to ``n`` candidate patches that should raise VES; may be fewer, never raises for
        a bad answer of its own backend (it counts and drops it)."""
        ...
