"""What a builder saw, kept and skipped (by reason): every builder returns these counts.

Stats are plain JSON-ready dicts so the service can store them next to the dataset and a
caller can tell an empty dataset's cause (no task, no improving patch, margin too large …).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["MARGIN_EDGES", "Tally", "histogram"]

MARGIN_EDGES: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(11))
"""Fixed VES-gap bins 0.0–0.1 … 0.9–1.0; VES lies in [0, 1], so every margin fits."""


class Tally:
    """Counts for one unit of input (records, states, rows …)."""

    __slots__ = ("kept", "seen", "skipped")

    def __init__(self) -> None:
        self.seen = 0
        self.kept = 0
        self.skipped: Counter[str] = Counter()

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n

    def as_dict(self) -> dict[str, Any]:
        return {
            "seen": self.seen,
            "kept": self.kept,
            "skipped": dict(sorted(self.skipped.items())),
        }


def histogram(
    values: Iterable[float], edges: Sequence[float] = MARGIN_EDGES
) -> list[dict[str, Any]]:
    """Counts per bin ``[lo, hi)``; the last bin is closed so its upper edge counts.

    Values outside the edges are clamped into the first or last bin (none are lost).
    """
    counts = [0] * (len(edges) - 1)
    last = len(counts) - 1
    for value in values:
        index = 0
        while index < last and value >= edges[index + 1]:
            index += 1
        counts[index] += 1
    return [{"lo": edges[i], "hi": edges[i + 1], "count": counts[i]} for i in range(len(counts))]
