"""The working state of one compilation: the brief cut into clauses, what is consumed, and
the constraints found so far, each with the span of words it came from.

Clauses end at sentence and comma punctuation, "but", "so" and an "and" that starts a new
instruction. Rules read a clause through :meth:`Sheet.view`, in which words already turned
into constraints are blanked (``\\x00``), so no two rules claim the same words. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from services.planner.ingest.brief.lexicon import Vocabulary, words

__all__ = ["Clause", "Found", "Selection", "Sheet", "clauses"]

BLANK = "\x00"
_BREAK = re.compile(
    r"(?:\.{2,}|…|[.!?](?=\s|$)|[,;()\n]|:(?=\s|$)|\s[-–—]\s|\bbut\b|\bso\b(?!\s+(?:much|many))"
    r"|\band\b(?=\s+(?:it|they|then|don'?t|do\s+not|never|no|not|finish|end|land|close|"
    r"start|open|make|use|keep|include|show|cut|every|nothing|leave|cover|please|put|"
    r"wipes|dissolves|fades|i|we|the\s+\w+\s+(?:has|have|should|must)\b)))",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Clause:
    start: int
    end: int


def clauses(text: str) -> list[Clause]:
    """``text`` cut at its clause breaks; empty pieces dropped."""
    found: list[Clause] = []
    position = 0
    for match in _BREAK.finditer(text):
        if match.start() > position:
            found.append(Clause(position, match.start()))
        position = match.end()
    if position < len(text):
        found.append(Clause(position, len(text)))
    return [c for c in found if text[c.start : c.end].strip()]


@dataclass(frozen=True, slots=True)
class Selection:
    """Clips the words name, as a Task.1 selector, and the span of the naming words."""

    selector: dict[str, list[str]]
    clips: frozenset[str]
    start: int
    end: int


@dataclass
class Found:
    """One constraint in wire form (no id yet) and where it came from."""

    kind: str
    params: dict[str, Any]
    start: int | None
    end: int | None
    hard: bool = True
    weight: float | None = None
    source: str = "brief"
    note: str | None = None
    more: list[tuple[int, int]] = field(default_factory=list)
    """Further spans the constraint also came from (merged clauses)."""
    selection: Selection | None = None
    """The selection the constraint is about (an ``it`` later may refer back to it)."""


@dataclass
class Sheet:
    text: str
    vocabulary: Vocabulary
    tracks: list[dict[str, Any]]
    found: list[Found] = field(default_factory=list)
    lost: list[tuple[int, int]] = field(default_factory=list)
    """Spans inside claimed clauses whose words named nothing (reported as unparsed)."""
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    _mask: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._mask = list(self.text)

    def view(self, clause: Clause) -> str:
        return "".join(self._mask[clause.start : clause.end])

    def take(self, start: int, end: int) -> None:
        for index in range(start, end):
            self._mask[index] = BLANK

    def free(self, start: int, end: int) -> bool:
        return BLANK not in self._mask[start:end]

    def add(self, found: Found) -> Found:
        self.found.append(found)
        if found.start is not None and found.end is not None:
            self.take(found.start, found.end)
        return found

    # ------------------------------------------------------------------ words → clips

    def select(self, start: int, end: int, *, union: bool = False) -> Selection | None:
        """The clips the words in ``text[start:end]`` name together (all of them: "the pool
        at dusk" is the clip that is both), or any of them with ``union``; None when no word
        names a clip. Words that name nothing are no loss here: the caller's span holds them.
        """
        phrase = words(self.text[start:end], start)
        matches = self.vocabulary.match(phrase)
        if not matches:
            return None
        clips = matches[0].clips
        for match in matches[1:]:
            clips = clips | match.clips if union else clips & match.clips
        if not clips:
            clips = matches[-1].clips  # nothing is all of them: the head noun decides
        tags: list[str] = []
        if all(m.tags for m in matches):
            tagged = sorted({t for m in matches for t in m.tags})
            owners = set().union(*(self.vocabulary.tag_clips[t] for t in tagged))
            tags = tagged if owners == clips else self.vocabulary.tags_exactly(clips)
        selector = {"tags": tags} if tags else {"clip_ids": sorted(clips)}
        return Selection(selector, clips, matches[0].start, matches[-1].end)

    def items(self, start: int, end: int) -> list[tuple[int, int]]:
        """``text[start:end]`` split into list items at commas, "and", "or", "&"."""
        chunk = self.text[start:end]
        pieces, position = [], 0
        for match in re.finditer(r",|&|\band\b|\bor\b|\bplus\b", chunk, re.I):
            pieces.append((start + position, start + match.start()))
            position = match.end()
        pieces.append((start + position, end))
        trimmed = []
        for a, b in pieces:
            piece = self.text[a:b]
            if piece.strip():
                a += len(piece) - len(piece.lstrip())
                trimmed.append((a, a + len(piece.strip())))
        return trimmed

    def lose(self, start: int, end: int) -> None:
        """Words inside a claimed clause that named nothing: reported as unparsed."""
        text = self.text[start:end]
        stripped = text.strip(" ,.;:")
        if stripped:
            offset = start + text.index(stripped)
            self.lost.append((offset, offset + len(stripped)))

    def conflict(self, message: str, *found: Found, kept: Found | None = None) -> None:
        self.conflicts.append(
            {
                "message": message,
                "spans": [
                    {"start": f.start, "end": f.end, "text": self.span_text(f)} for f in found
                ],
                "kept": None if kept is None else self.span_text(kept),
            }
        )

    def span_text(self, found: Found) -> str | None:
        if found.start is None or found.end is None:
            return None
        return self.text[found.start : found.end]
