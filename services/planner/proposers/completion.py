"""Proposers whose backend samples text: one prompt, one parser, any sampler.

:class:`LLMProposer` (an HTTP endpoint) and :class:`HFProposer` (a local checkpoint) only
differ in :meth:`CompletionProposer.complete`. Both decode under a JSON schema narrowed to
the task (:mod:`~services.planner.proposers.schemas`): Patch.1 for repairs, the cut-only
Timeline.1 for a first cut (:meth:`CompletionProposer.model_draft`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from services.planner.proposers.base import Proposal, ProposerStats
from services.planner.proposers.drafting import DraftStats, best_draft, render_draft_messages
from services.planner.proposers.prompting import parse_candidates, render_messages
from services.planner.proposers.relations import CutFacts
from services.planner.proposers.schemas import (
    draft_token_budget,
    patch_op_cap,
    patch_token_budget,
    task_patch_schema,
    task_timeline_schema,
)
from services.planner.proposers.simple_draft import DraftFn, simple_draft
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline

DRAFT_SAMPLES = 4
"""Drafts sampled per first cut (the local verifier keeps the best)."""


class CompletionProposer:
    """Drafts with its model (:meth:`model_draft`) or, when asked, with ``draft`` (the
    heuristic); proposes by sampling ``n`` completions of the shared prompt and keeping those
    that parse as Patch.1 for the task (the rest are counted and dropped)."""

    note: str = ""
    """Prefix of each proposal's note (the LLM proposer names its model)."""

    def __init__(self, name: str, *, draft: DraftFn = simple_draft) -> None:
        self.name = name
        self.stats = ProposerStats()
        self.drop_reasons: Counter[str] = Counter()
        self.draft_stats = DraftStats()
        self._draft = draft

    def draft(self, task: Task, *, seed: int) -> Timeline:
        """The heuristic first cut (``options.draft: "heuristic"``)."""
        return self._draft(task, seed=seed)

    def model_draft(self, task: Task, *, seed: int, n: int = DRAFT_SAMPLES) -> Timeline | None:
        """The best of ``n`` first cuts the model writes under the cut-only Timeline.1
        schema; None when no answer reads as a cut (counted in ``draft_stats``)."""
        texts = self.complete(
            render_draft_messages(task),
            n=max(n, 1),
            seed=seed,
            schema=task_timeline_schema(task),
            max_tokens=draft_token_budget(task),
            facts=CutFacts.of(task),
        )
        return best_draft(texts, task, self.draft_stats)

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        if n <= 0:
            return []
        cap = patch_op_cap(task, timeline)
        texts = self.complete(
            render_messages(task, timeline, report),
            n=n,
            seed=seed,
            schema=task_patch_schema(task, timeline, max_ops=cap),
            max_tokens=patch_token_budget(cap),
            facts=CutFacts.of(task, timeline),
        )
        return parse_candidates(
            texts,
            task,
            source=self.name,
            stats=self.stats,
            reasons=self.drop_reasons,
            note=self.note,
        )

    def report(self) -> dict[str, Any]:
        """Parse counts for the plan answer: answers sampled and parsed, drafts likewise."""
        stats = self.stats
        return {
            "answers": stats.candidates,
            "parsed": stats.candidates - stats.dropped,
            "drop_reasons": dict(self.drop_reasons),
            **self.draft_stats.as_dict(),
        }

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        n: int,
        seed: int,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        facts: CutFacts | None = None,
    ) -> list[str | None]:
        """``n`` sampled answers to ``messages``, decoded under ``schema`` when given, each at
        most ``max_tokens`` long (the backend's default when None), and under the relations
        of ``facts`` where the backend can mask them; ``[]`` (recorded in ``stats``) on
        failure."""
        raise NotImplementedError
