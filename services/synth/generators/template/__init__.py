"""The ``template`` generator: natural phrasings for stage 2, a forward reader for stage 3.

Deterministic given the seed, no model, no network: the embedded default and the baseline
every model-backed generator is measured against.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from services.synth.calls import Call, GroundTruth, Issue, Tool
from services.synth.generators.template.reader import read
from services.synth.generators.template.realiser import realise

__all__ = ["TemplateGenerator"]


class TemplateGenerator:
    """Writes queries with :func:`realise` and reads them with :func:`read`.

    The solver never sees the ground truth: only the query and the candidate schemas.
    Feedback on stage 3 names parameters, not values, so a retry re-reads the query with the
    same parser; the pipeline therefore routes stage-3 mismatches back to stage 2.
    """

    name = "template"

    def query(
        self,
        truth: GroundTruth,
        *,
        previous: str | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
    ) -> str:
        return realise(truth, issues=issues, previous=previous, seed=seed)

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
        return read(query, tools, reference)
