"""The contract every generator meets, so the pipeline runs any of them unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol, runtime_checkable

from services.synth.calls import Call, GroundTruth, Issue, Tool

__all__ = ["Generator"]


@runtime_checkable
class Generator(Protocol):
    """Stage 2 and stage 3 of the ToolLoop.

    ``previous`` is the output of the round being refined (None on the first round) and
    ``issues`` the check's feedback on it (empty on the first round). ``seed`` makes a
    deterministic generator repeatable; a refinement round receives the same seed as the
    round it refines, so only the feedback changes what is written.
    """

    name: str

    def query(
        self,
        truth: GroundTruth,
        *,
        previous: str | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
    ) -> str:
        """The user's request that ``truth``'s calls answer (irrelevance: its intent)."""
        ...

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
        """The calls that answer ``query`` using only ``tools``; none when nothing fits.
        ``reference`` is the day the request is written on, when the example pins one
        (``features.reference_date``): "tomorrow" counts from it."""
        ...
