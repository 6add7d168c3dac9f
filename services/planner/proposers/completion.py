"""Proposers whose backend samples text: one prompt, one parser, any sampler.

:class:`LLMProposer` (an HTTP endpoint) and :class:`HFProposer` (a local checkpoint) only
differ in :meth:`CompletionProposer.complete`.
"""

from __future__ import annotations

from collections import Counter

from services.planner.proposers.base import Proposal, ProposerStats
from services.planner.proposers.prompting import parse_candidates, render_messages
from services.planner.proposers.simple_draft import DraftFn, simple_draft
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline


class CompletionProposer:
    """Drafts with ``draft``; proposes by sampling ``n`` completions of the shared prompt and
    keeping those that parse as Patch.1 for the task (the rest are counted and dropped)."""

    note: str = ""
    """Prefix of each proposal's note (the LLM proposer names its model)."""

    def __init__(self, name: str, *, draft: DraftFn = simple_draft) -> None:
        self.name = name
        self.stats = ProposerStats()
        self.drop_reasons: Counter[str] = Counter()
        self._draft = draft

    def draft(self, task: Task, *, seed: int) -> Timeline:
        return self._draft(task, seed=seed)

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        if n <= 0:
            return []
        texts = self.complete(render_messages(task, timeline, report), n=n, seed=seed)
        return parse_candidates(
            texts,
            task,
            source=self.name,
            stats=self.stats,
            reasons=self.drop_reasons,
            note=self.note,
        )

    def complete(
        self, messages: list[dict[str, str]], *, n: int, seed: int
    ) -> list[str | None]:
        """``n`` sampled answers to ``messages``; ``[]`` (recorded in ``stats``) on failure."""
        raise NotImplementedError
