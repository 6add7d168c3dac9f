"""Small builders for verifier tests: tasks, clips, shots and timelines in integer frames."""

from __future__ import annotations

from collections.abc import Iterable

from services.verifier.ledger import Constraint, Outcome
from services.verifier.pool import Brief, Clip, MusicTrack, Orientation
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import (
    CUT,
    FrameRange,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
)

FPS = 30


def clip(
    id: str,
    seconds: float = 10,
    *,
    tags: Iterable[str] = (),
    caption: str = "",
    orientation: Orientation = Orientation.LANDSCAPE,
) -> Clip:
    return Clip(
        id=id,
        duration=round(seconds * FPS),
        caption=caption,
        tags=frozenset(tags),
        orientation=orientation,
    )


def track(
    id: str = "m1",
    seconds: float = 120,
    *,
    beats: Iterable[int] = (),
    downbeats: Iterable[int] = (),
) -> MusicTrack:
    return MusicTrack(
        id=id,
        duration=round(seconds * FPS),
        beats=tuple(sorted(beats)),
        downbeats=tuple(sorted(downbeats)),
    )


def make_task(
    clips: Iterable[Clip] = (),
    *,
    tracks: Iterable[MusicTrack] = (),
    ledger: Iterable[Constraint] = (),
    brief: str = "a surf trip",
    style: str = "neutral",
    fps: int = FPS,
) -> Task:
    clips = list(clips) or [clip("a"), clip("b"), clip("c")]
    return Task.build(
        id="t", fps=fps, brief=Brief(brief, style=style), clips=clips, tracks=tracks, ledger=ledger
    )


def transition(kind: str, frames: int) -> Transition:
    return Transition(TransitionType(kind), frames)


def shot(clip_id: str, start: int, end: int, into: Transition = CUT) -> Shot:
    return Shot(clip_id, FrameRange(start, end), into)


def timeline(*shots: Shot, music: MusicPlacement | None = None, fps: int = FPS) -> Timeline:
    return Timeline(fps=fps, shots=tuple(shots), music=music)


def seq(*specs: tuple[str, int]) -> Timeline:
    """Shots on cuts from (clip_id, length) pairs, each starting at frame 0 of its clip."""
    return timeline(*(shot(cid, 0, length) for cid, length in specs))


def evaluate(constraint: Constraint, task: Task, tl: Timeline) -> Outcome:
    return constraint.evaluate(Verifier(task).view(tl))
