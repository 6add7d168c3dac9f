"""Teachers for repair distillation: genuinely different proposers, named.

A teacher is any proposer name the planner resolves, plus two families this module adds:

* ``search:<strategy>`` — the built-in search run differently:
  ``search:greedy`` (one move a step, no combining, no lookahead: best-improvement hill
  climbing), ``search:beam`` (the planner's default search: compatible improvements folded
  together, and a two-step lookahead from the 3 most promising first steps),
  ``search:restarts`` (randomised restarts: several random two-step walks through the
  improving moves, each seeded, proposed as whole multi-op patches) and ``search:fixes``
  (greedy over one-op patches only: a step is one fix of what the verifier names, such as
  ``snap_to_beats``, a swap or the removal of an excluded shot, never a re-cut);
* OpenAI-compatible endpoints named in settings (``REFINERY_TEACHERS``, a JSON list of
  ``{"name", "base_url", "model", "api_key"?}``): the teacher ``<name>`` is the planner's
  ``llm`` proposer on that endpoint and model.

Everything else (``search``, ``exact``, ``llm``, ``llm:<model>``, ``hf:<checkpoint>``) goes to
the planner's own registry, so a proposer the planner learns (an exact solver) is a teacher
by its name with no change here. :class:`TeacherRegistry` is a planner registry: install it
on a planner app (``app.state.registry``) to let its plans run these teachers as branches.
"""

from __future__ import annotations

from random import Random
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy.engine import Engine

from services.planner.config import PlannerSettings
from services.planner.proposers.base import Proposal, Proposer, ProposerStats
from services.planner.proposers.search import SearchProposer
from services.planner.registry import ProposerRegistry, UnknownProposer
from services.verifier.errors import PatchRejected
from services.verifier.patches import Op, apply_patch
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline

__all__ = [
    "STRATEGIES",
    "RestartsProposer",
    "TeacherEndpoint",
    "TeacherRegistry",
    "resolvable",
    "strategy_proposer",
]

STRATEGIES = ("greedy", "beam", "restarts", "fixes")
RESTARTS = 4
"""Random walks per round of ``search:restarts``."""
WALK_DEPTH = 2
WALK_WIDTH = 3
"""A walk step picks at random among the best this many improving moves."""


class TeacherEndpoint(BaseModel):
    """One OpenAI-compatible teacher (an element of ``REFINERY_TEACHERS``)."""

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][\w.\-]*$")
    base_url: str = Field(min_length=1, description="The API prefix, e.g. http://host:8000/v1")
    model: str = Field(min_length=1)
    api_key: str | None = None


class RestartsProposer:
    """``search:restarts``: seeded random walks over improving moves."""

    def __init__(self, *, relevance_backend: str, restarts: int = RESTARTS) -> None:
        self.name = "search:restarts"
        self.inner = SearchProposer(relevance_backend=relevance_backend, combine=False, lookahead=0)
        self.restarts = restarts
        self.stats = ProposerStats()

    def draft(self, task: Task, *, seed: int) -> Timeline:
        return self.inner.draft(task, seed=seed)

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        self.stats.requests += 1
        verifier = self.inner.context(task).verifier
        rng = Random(f"restarts:{task.id}:{seed}:{len(timeline.shots)}")
        walks: dict[Timeline, tuple[float, tuple[Op, ...]]] = {}
        for _ in range(self.restarts):
            end, ops, ves = self._walk(task, timeline, verifier, rng)
            if ops and (end not in walks or len(ops) < len(walks[end][1])):
                walks[end] = (ves, ops)
        ranked = sorted(walks.values(), key=lambda w: (-w[0], len(w[1])))[:n]
        out = [Proposal(ops, self.name, f"walk:{len(ops)}") for _, ops in ranked]
        self.stats.candidates += len(out)
        return out

    def _walk(
        self, task: Task, timeline: Timeline, verifier: Any, rng: Random
    ) -> tuple[Timeline, tuple[Op, ...], float]:
        current, ops = timeline, ()
        ves = verifier.verify(current).ves
        for _ in range(WALK_DEPTH):
            report = verifier.verify(current)
            seed = rng.randrange(1 << 30)
            moves = self.inner.propose(task, current, report, n=WALK_WIDTH, seed=seed)
            improving = []
            for move in moves:
                try:
                    result = apply_patch(task, current, move.ops)
                except PatchRejected:
                    continue
                after = verifier.verify(result).ves
                if after > ves:
                    improving.append((result, move.ops, after))
            if not improving:
                break
            current, step, ves = rng.choice(improving)
            ops = (*ops, *step)
        return current, ops, ves


def strategy_proposer(strategy: str, *, relevance_backend: str) -> Proposer:
    """The search proposer run as ``strategy`` (one of :data:`STRATEGIES`)."""
    if strategy == "greedy":
        proposer = SearchProposer(relevance_backend=relevance_backend, combine=False, lookahead=0)
    elif strategy == "beam":
        proposer = SearchProposer(relevance_backend=relevance_backend)
    elif strategy == "restarts":
        return RestartsProposer(relevance_backend=relevance_backend)
    elif strategy == "fixes":
        proposer = SearchProposer(
            relevance_backend=relevance_backend, combine=False, lookahead=0, max_ops=1
        )
    else:
        raise UnknownProposer(
            f"no search strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}",
            param="teachers",
        )
    proposer.name = f"search:{strategy}"  # type: ignore[misc]
    return proposer


class TeacherRegistry(ProposerRegistry):
    """The planner's registry plus ``search:<strategy>`` and the configured endpoints."""

    def __init__(
        self,
        settings: PlannerSettings,
        engine: Engine,
        endpoints: list[TeacherEndpoint] | tuple[TeacherEndpoint, ...] = (),
    ) -> None:
        super().__init__(settings, engine)
        self.endpoints = {e.name: e for e in endpoints}
        if len(self.endpoints) != len(endpoints):
            raise UnknownProposer("teacher endpoint names must be unique", param="teachers")

    def resolve(self, name: str, *, param: str = "options.proposer") -> Proposer:
        if name.startswith("search:"):
            strategy = name.removeprefix("search:")
            return strategy_proposer(strategy, relevance_backend=self.settings.relevance)
        endpoint = self.endpoints.get(name)
        if endpoint is not None:
            from services.planner.proposers.llm import LLMProposer

            return LLMProposer(
                endpoint.base_url, endpoint.model, api_key=endpoint.api_key, name=name
            )
        return super().resolve(name, param=param)


def resolvable(registry: ProposerRegistry, names: list[str]) -> tuple[list[str], dict[str, str]]:
    """(the names ``registry`` resolves, {name: why not} for the others), order kept."""
    ready, missing = [], {}
    for name in names:
        try:
            registry.resolve(name, param="teachers")
        except UnknownProposer as error:
            missing[name] = error.message
        else:
            ready.append(name)
    return ready, missing
