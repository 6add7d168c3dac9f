"""Tiny tasks and timelines for the export tests: a few seconds of 160x90 media."""

from __future__ import annotations

from collections.abc import Sequence

from services.verifier.pool import Brief, Clip, MusicTrack
from services.verifier.task import Task
from services.verifier.timeline import (
    FrameRange,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
)

SIZE = (160, 90)


def small_task(fps: int, *, clips: int = 3, seconds: int = 3, music: bool = True) -> Task:
    """``clips`` clips of ``seconds`` s and a 6 s track with a beat every half second."""
    beat = fps // 2
    track = MusicTrack(
        id="m1",
        duration=6 * fps,
        uri="media/m1.wav",
        bpm=120,
        beats=tuple(range(0, 6 * fps, beat)),
        downbeats=tuple(range(0, 6 * fps, 4 * beat)),
    )
    return Task.build(
        id=f"tiny-{fps}",
        fps=fps,
        brief=Brief(text="a tiny test reel", aspect="16:9"),
        clips=[
            Clip(id=f"c{i}", duration=seconds * fps, uri=f"media/c{i}.mp4", tags=frozenset({"t"}))
            for i in range(clips)
        ],
        tracks=[track] if music else [],
    )


def three_shots(
    task: Task,
    transitions: Sequence[tuple[TransitionType, int]],
    *,
    music: bool = True,
) -> Timeline:
    """One shot per clip, each ``[fps // 2, fps // 2 + fps)`` (1 s, handles both sides)."""
    fps = task.fps
    shots = tuple(
        Shot(clip_id, FrameRange(fps // 2, fps // 2 + fps), Transition(kind, duration))
        for clip_id, (kind, duration) in zip(task.clips, transitions, strict=False)
    )
    placement = MusicPlacement("m1", offset=fps // 3, fade_out=fps // 2) if music else None
    return Timeline(fps=fps, shots=shots, music=placement)
