"""One line of prompt text per thing the planner shows a model: seconds, captions, ledger
constraints, music tracks. The full prompt (:mod:`.prompting`) and the compact one
(:mod:`.compact`) both write with these.
"""

from __future__ import annotations

from dataclasses import fields
from itertools import pairwise
from statistics import median
from typing import Any

from services.verifier.ledger import Constraint
from services.verifier.pool import MusicTrack, Selector

__all__ = ["CAPTION_CHARS", "caption", "constraint_line", "seconds", "track_line"]

CAPTION_CHARS = 80
"""Captions past this are cut (with an ellipsis): an 80-clip pool stays well under 4k tokens."""

# Ledger fields held in frames; the prompt shows them in seconds under a ``_s`` name.
FRAME_FIELDS = frozenset({"min", "max", "target", "tolerance", "min_duration", "max_duration"})


def seconds(frames: int, fps: int) -> str:
    """Frames as short seconds: 90 → ``3``, 95 at 30 fps → ``3.167``."""
    return f"{round(frames / fps, 3):g}"


def caption(text: str) -> str:
    text = " ".join(text.replace("|", "/").split())
    return text if len(text) <= CAPTION_CHARS else text[: CAPTION_CHARS - 1].rstrip() + "…"


def selector_text(selector: Selector) -> str:
    parts = []
    if selector.clip_ids:
        parts.append("clip_ids:" + ",".join(sorted(selector.clip_ids)))
    if selector.tags:
        parts.append("tags:" + ",".join(sorted(selector.tags)))
    return "{" + " | ".join(parts) + "}"


def value_text(value: Any) -> str:
    if isinstance(value, Selector):
        return selector_text(value)
    if isinstance(value, frozenset | set):
        return ",".join(sorted(str(getattr(v, "value", v)) for v in value))
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value)
    return str(getattr(value, "value", value))


def constraint_line(constraint: Constraint, fps: int) -> str:
    """``L1 duration hard: min_s=28 max_s=32``; soft ones show their weight."""
    strength = "hard" if constraint.hard else f"soft w={constraint.weight:g}"
    params = []
    for f in fields(constraint):
        if not f.init or f.name in ("id", "hard", "weight"):
            continue
        value = getattr(constraint, f.name)
        if value is None:
            continue
        if f.name in FRAME_FIELDS:
            params.append(f"{f.name}_s={seconds(value, fps)}")
        else:
            params.append(f"{f.name}={value_text(value)}")
    return f"{constraint.id} {constraint.kind} {strength}: " + " ".join(params)


def grid_text(points: tuple[int, ...], fps: int, what: str) -> str:
    if not points:
        return f"no {what}"
    if len(points) == 1:
        return f"{what} at {seconds(points[0], fps)}s"
    step = median(b - a for a, b in pairwise(points))
    every, first = seconds(round(step), fps), seconds(points[0], fps)
    return f"{len(points)} {what} ~every {every}s from {first}s"


def track_line(track: MusicTrack, fps: int) -> str:
    return (
        f"{track.id} | {seconds(track.duration, fps)}s | {track.bpm:g} | {track.mood or '-'} | "
        f"{grid_text(track.beats, fps, 'beats')}; {grid_text(track.downbeats, fps, 'downbeats')}"
    )
