"""What a task's pool is made of, in frames: clips, music tracks, the brief, and the selector
that picks clips by id or tag. The ledger, the timeline view and the task all read these;
this module reads none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

__all__ = ["Brief", "Clip", "MusicTrack", "Orientation", "Selector"]


class Orientation(StrEnum):
    PORTRAIT = "portrait"
    LANDSCAPE = "landscape"
    SQUARE = "square"


class Clip(NamedTuple):
    id: str
    duration: int
    uri: str = ""
    caption: str = ""
    tags: frozenset[str] = frozenset()
    orientation: Orientation = Orientation.LANDSCAPE
    quality: float = 0.5
    start: int = 0
    """Where the clip begins inside its file (frames): one file may hold many shots."""
    caption_source: str = "manual"
    """Where the caption came from: ``sidecar``, ``llm``, ``filename`` or ``manual``."""


class MusicTrack(NamedTuple):
    id: str
    duration: int
    uri: str = ""
    bpm: float = 120.0
    beats: tuple[int, ...] = ()
    downbeats: tuple[int, ...] = ()
    mood: str = ""


@dataclass(frozen=True, slots=True)
class Brief:
    text: str
    aspect: str = "16:9"
    style: str = "neutral"


class Selector(NamedTuple):
    """Matches a clip listed by id, or carrying any of the tags (hashed in C: a memo key)."""

    clip_ids: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()

    def matches(self, clip: Clip) -> bool:
        return clip.id in self.clip_ids or not self.tags.isdisjoint(clip.tags)

    def describe(self) -> str:
        """``clips c1, c2 or tags sunset``: for messages (memoised: unmet rules repeat)."""
        return _describe(self)


@lru_cache(maxsize=4096)
def _describe(selector: Selector) -> str:
    parts = []
    if selector.clip_ids:
        parts.append("clips " + ", ".join(sorted(selector.clip_ids)))
    if selector.tags:
        parts.append("tags " + ", ".join(sorted(selector.tags)))
    return " or ".join(parts) or "nothing"
