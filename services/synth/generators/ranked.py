"""Stage 2 by drafts and a reader: several drafts of each query, the most natural one kept.

:class:`RankedWriter` asks its ``writer`` (the template generator) for ``candidates``
drafts of one query, each at its own seed drawn from the round's seed, drops the drafts
stage 2's own check refuses (:func:`~services.synth.query_check.check_query`), and keeps
the one a pretrained LM reads most easily: the lowest mean per-token negative
log-likelihood under ``scorer`` (:class:`~services.synth.judge.NllJudge`, the real base
``smollm2-135m`` in a job). The model only reads; the writer still writes, so every kept
query is one the writer could have written, and the check → refine loop is unchanged.
When every draft fails the check, the first is returned for the pipeline to refine.
Measure naturalness with a different model than the one that ranked (``gemma3-270m``):
a judge that also chose would grade its own taste.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Protocol

from services.synth.calls import Call, GroundTruth, Issue, Tool
from services.synth.generators.base import Generator
from services.synth.query_check import check_query

__all__ = ["MAX_CANDIDATES", "RankStats", "RankedWriter", "Scorer"]

MAX_CANDIDATES = 16
_SEED_STRIDE = 7_919
"""Draft k of a round is written at ``seed + k · stride`` (draft 0 at the round's seed)."""


class Scorer(Protocol):
    """What ranking needs: each text's mean per-token NLL (lower reads more naturally)."""

    def scores(self, texts: Sequence[str]) -> list[float]: ...


@dataclass
class RankStats:
    """Drafts written, drafts that passed stage 2's check, queries whose kept draft was not
    the first (what ranking changed)."""

    queries: int = 0
    drafts: int = 0
    passed: int = 0
    changed: int = 0

    def wire(self) -> dict[str, int]:
        return asdict(self)


class _Stats:
    """The writer's stats (when it keeps any) with the ranking's under ``ranking``."""

    def __init__(self, owner: RankedWriter) -> None:
        self.owner = owner

    def wire(self) -> dict[str, Any]:
        inner = getattr(self.owner.writer, "stats", None)
        out = dict(inner.wire()) if inner is not None and hasattr(inner, "wire") else {}
        return {**out, "ranking": self.owner.rank_stats.wire()}


class RankedWriter:
    """``writer``'s queries, each the most natural of ``candidates`` drafts (module doc)."""

    def __init__(self, writer: Generator, scorer: Scorer, *, candidates: int = 8) -> None:
        if not 1 <= candidates <= MAX_CANDIDATES:
            raise ValueError(f"candidates must be in 1..{MAX_CANDIDATES}")
        self.writer, self.scorer, self.candidates = writer, scorer, candidates
        self.name = f"{writer.name}+ranked"
        self.rank_stats = RankStats()
        self.stats = _Stats(self)

    def query(
        self,
        truth: GroundTruth,
        *,
        previous: str | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
    ) -> str:
        drafts = list(
            dict.fromkeys(
                self.writer.query(
                    truth, previous=previous, issues=issues, seed=seed + k * _SEED_STRIDE
                )
                for k in range(self.candidates)
            )
        )
        passing = [d for d in drafts if check_query(d, truth).ok]
        stats = self.rank_stats
        stats.queries += 1
        stats.drafts += len(drafts)
        stats.passed += len(passing)
        if len(passing) <= 1:
            return passing[0] if passing else drafts[0]
        scores = self.scorer.scores(passing)
        best = min(range(len(passing)), key=scores.__getitem__)
        stats.changed += passing[best] != drafts[0]
        return passing[best]

    def calls(
        self,
        query: str,
        tools: Sequence[Tool],
        *,
        previous: tuple[Call, ...] | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
        reference: date | None = None,
    ) -> tuple[Call, ...]:
        return self.writer.calls(
            query, tools, previous=previous, issues=issues, seed=seed, reference=reference
        )

    def close(self) -> None:
        close = getattr(self.writer, "close", None)
        if callable(close):
            close()
