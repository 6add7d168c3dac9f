"""One generator's stage 2 with another reader's stage 3.

A job's ``reader`` (``rules`` or a model) replaces the generator's own stage 3 while the
generator keeps writing the queries: :class:`StagedGenerator` asks ``writer`` for each
query and ``reader`` for each answer, passing every argument on unchanged, so the pipeline's
check → refine loop runs as for any generator. ``reader_name`` is what the trace records
beside each stage-3 round (``reader`` in the trace entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Protocol

from services.synth.calls import Call, GroundTruth, Issue, Tool
from services.synth.generators.base import Generator

__all__ = ["CallReader", "StagedGenerator"]


class CallReader(Protocol):
    """What stage 3 needs: a generator's ``calls`` (see :class:`Generator`)."""

    def calls(
        self,
        query: str,
        tools: Sequence[Tool],
        *,
        previous: tuple[Call, ...] | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
        reference: date | None = None,
    ) -> tuple[Call, ...]: ...


class _Stats:
    """The writer's stats (when it keeps any) with the reader's under ``reader``."""

    def __init__(self, owner: StagedGenerator) -> None:
        self.owner = owner

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part, key in ((self.owner.writer, None), (self.owner.stage3, "reader")):
            stats = getattr(part, "stats", None)
            if stats is not None and hasattr(stats, "wire"):
                out.update(stats.wire() if key is None else {key: stats.wire()})
        return out


class StagedGenerator:
    """Queries by ``writer``, calls by ``reader``; ``name`` is ``<writer>+<reader_name>``."""

    def __init__(self, writer: Generator, reader: CallReader, *, reader_name: str) -> None:
        self.writer = writer
        self.stage3 = reader
        self.reader = reader_name
        self.name = f"{writer.name}+{reader_name}"
        self.stats = _Stats(self)

    def query(
        self,
        truth: GroundTruth,
        *,
        previous: str | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
    ) -> str:
        return self.writer.query(truth, previous=previous, issues=issues, seed=seed)

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
        return self.stage3.calls(
            query, tools, previous=previous, issues=issues, seed=seed, reference=reference
        )

    def close(self) -> None:
        """Close the writer (an ``llm`` writer's HTTP client) and the reader, if they close."""
        for part in (self.writer, self.stage3):
            close = getattr(part, "close", None)
            if callable(close):
                close()
