"""Patch.1: named edit verbs, each a pure function returning a new :class:`Timeline`.

:func:`apply_patch` applies a patch atomically: every op, or none (the first failing op
raises :class:`PatchRejected` naming its index and reason; the input is never touched).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from services.verifier.errors import PatchRejected
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


class OpError(Exception):
    """An op that cannot apply; :func:`apply_patch` adds the op index."""

    def __init__(self, reason: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.field = reason, message, field


@dataclass(frozen=True, slots=True)
class Insert:
    op: ClassVar[str] = "insert"
    at: int
    clip_id: str
    source: FrameRange


@dataclass(frozen=True, slots=True)
class Remove:
    op: ClassVar[str] = "remove"
    shot: int


@dataclass(frozen=True, slots=True)
class Replace:
    op: ClassVar[str] = "replace"
    shot: int
    clip_id: str
    source: FrameRange


@dataclass(frozen=True, slots=True)
class Trim:
    op: ClassVar[str] = "trim"
    shot: int
    source: FrameRange


@dataclass(frozen=True, slots=True)
class Move:
    op: ClassVar[str] = "move"
    from_: int
    to: int


@dataclass(frozen=True, slots=True)
class Swap:
    op: ClassVar[str] = "swap"
    a: int
    b: int


@dataclass(frozen=True, slots=True)
class SetTransition:
    op: ClassVar[str] = "set_transition"
    shot: int
    transition: Transition


@dataclass(frozen=True, slots=True)
class SetMusic:
    op: ClassVar[str] = "set_music"
    track_id: str
    offset: int
    fade_out: int | None = None


@dataclass(frozen=True, slots=True)
class SnapToBeats:
    op: ClassVar[str] = "snap_to_beats"
    tolerance: int


@dataclass(frozen=True, slots=True)
class FitDuration:
    op: ClassVar[str] = "fit_duration"
    target: int


Op = (
    Insert
    | Remove
    | Replace
    | Trim
    | Move
    | Swap
    | SetTransition
    | SetMusic
    | SnapToBeats
    | FitDuration
)


def _index(timeline: Timeline, index: int, field: str, *, allow_end: bool = False) -> int:
    limit = len(timeline.shots) + (1 if allow_end else 0)
    if not 0 <= index < limit:
        raise OpError("shot_out_of_range", f"{field} {index} is outside 0–{limit - 1}", field)
    return index


def _source(task: Task, clip_id: str, source: FrameRange) -> None:
    clip = task.clips.get(clip_id)
    if clip is None:
        raise OpError("unknown_clip", f"clip {clip_id} is not in the pool", "clip_id")
    if source.start < 0 or source.end <= source.start:
        raise OpError("empty_range", "a shot needs 0 ≤ in < out", "out_s")
    if source.end > clip.duration:
        raise OpError(
            "range_outside_clip",
            f"out point {source.end / task.fps:.3f} s is past the end of {clip_id} "
            f"({clip.duration / task.fps:.3f} s)",
            "out_s",
        )


def insert(timeline: Timeline, op: Insert, task: Task) -> Timeline:
    """``[A, B] --insert(at=1, C)--> [A, C, B]``; the new shot enters on a cut."""
    _index(timeline, op.at, "at", allow_end=True)
    _source(task, op.clip_id, op.source)
    shots = list(timeline.shots)
    shots.insert(op.at, Shot(op.clip_id, op.source, CUT))
    return timeline.with_shots(shots)


def remove(timeline: Timeline, op: Remove, task: Task) -> Timeline:
    """``[A, B, C] --remove(1)--> [A, C]``."""
    _index(timeline, op.shot, "shot")
    shots = list(timeline.shots)
    del shots[op.shot]
    return timeline.with_shots(shots)


def replace_shot(timeline: Timeline, op: Replace, task: Task) -> Timeline:
    """``[A, B] --replace(1, C)--> [A, C]``; the shot keeps its incoming transition."""
    _index(timeline, op.shot, "shot")
    _source(task, op.clip_id, op.source)
    shots = list(timeline.shots)
    shots[op.shot] = Shot(op.clip_id, op.source, shots[op.shot].transition_in)
    return timeline.with_shots(shots)


def trim(timeline: Timeline, op: Trim, task: Task) -> Timeline:
    """``[A(0–4 s)] --trim(0, 1–3 s)--> [A(1–3 s)]``: new in/out points on the same clip."""
    _index(timeline, op.shot, "shot")
    shots = list(timeline.shots)
    _source(task, shots[op.shot].clip_id, op.source)
    shots[op.shot] = shots[op.shot]._replace(source=op.source)
    return timeline.with_shots(shots)


def move(timeline: Timeline, op: Move, task: Task) -> Timeline:
    """``[A, B, C] --move(0 → 2)--> [B, C, A]``: ``to`` indexes the resulting track."""
    _index(timeline, op.from_, "from")
    _index(timeline, op.to, "to")
    shots = list(timeline.shots)
    shots.insert(op.to, shots.pop(op.from_))
    return timeline.with_shots(shots)


def swap(timeline: Timeline, op: Swap, task: Task) -> Timeline:
    """``[A, B, C] --swap(0, 2)--> [C, B, A]``; transitions stay with their positions."""
    _index(timeline, op.a, "a")
    _index(timeline, op.b, "b")
    shots = list(timeline.shots)
    a, b = shots[op.a], shots[op.b]
    shots[op.a] = Shot(b.clip_id, b.source, a.transition_in)
    shots[op.b] = Shot(a.clip_id, a.source, b.transition_in)
    return timeline.with_shots(shots)


def set_transition(timeline: Timeline, op: SetTransition, task: Task) -> Timeline:
    """``[A, |B] --set_transition(1, dissolve 0.5 s)--> [A, ⋈B]``."""
    _index(timeline, op.shot, "shot")
    kind, duration = op.transition.type, op.transition.duration
    if (kind is TransitionType.CUT) != (duration == 0) or duration < 0:
        raise OpError(
            "bad_transition", "a cut has no duration; other transitions need one > 0", "duration_s"
        )
    shots = list(timeline.shots)
    shots[op.shot] = shots[op.shot]._replace(transition_in=op.transition)
    return timeline.with_shots(shots)


def set_music(timeline: Timeline, op: SetMusic, task: Task) -> Timeline:
    """``music: none --set_music(m01, 2 s)--> music: m01 from its 2 s mark``."""
    if op.track_id not in task.tracks:
        raise OpError("unknown_track", f"music track {op.track_id} is not in the task", "track_id")
    if op.offset < 0:
        raise OpError("negative_offset", "offset_s must be ≥ 0", "offset_s")
    fade = op.fade_out
    if fade is None:
        fade = timeline.music.fade_out if timeline.music else 0
    music = MusicPlacement(op.track_id, op.offset, fade)
    return Timeline(fps=timeline.fps, shots=timeline.shots, music=music)


def snap_to_beats(timeline: Timeline, op: SnapToBeats, task: Task) -> Timeline:
    """Move each cut within ``tolerance`` of a beat onto it by re-timing the outgoing shot's out.

    ``cuts at 2.03 s, 4.10 s; beats every 0.5 s --snap(0.1 s)--> cuts at 2.0 s, 4.0 s``.
    Cuts that would leave a shot empty (or shorter than its transitions) or run past its
    media stay where they are.
    """
    music = timeline.music
    track = task.tracks.get(music.track_id) if music else None
    if music is None or track is None or not track.beats:
        raise OpError("no_music", "snap_to_beats needs a placed music track with beats", "op")
    beats = track.beats
    shots = list(timeline.shots)
    position = 0
    for i in range(len(shots) - 1):
        shot = shots[i]
        position += shot.length
        target = _nearest(beats, position + music.offset)
        if target is None:
            continue
        delta = target - music.offset - position
        if delta == 0 or abs(delta) > op.tolerance:
            continue
        clip = task.clips.get(shot.clip_id)
        new_end = shot.source.end + delta
        limit = clip.duration - shots[i + 1].transition_in.after_cut if clip else shot.source.end
        if shot.source.start + max(1, _covered(shots, i)) <= new_end <= limit:
            shots[i] = shot._replace(source=FrameRange(shot.source.start, new_end))
            position += delta
    return timeline.with_shots(shots)


def _nearest(grid: tuple[int, ...], value: int) -> int | None:
    i = bisect_left(grid, value)
    candidates = [grid[j] for j in (i - 1, i) if 0 <= j < len(grid)]
    return min(candidates, key=lambda g: (abs(g - value), g)) if candidates else None


def fit_duration(timeline: Timeline, op: FitDuration, task: Task) -> Timeline:
    """Stretch or shrink shots (out points, proportionally to length) to ``target`` frames.

    ``[A 4 s, B 2 s] --fit(9 s)--> [A 6 s, B 3 s]`` when the media allow; otherwise rejected.
    """
    if op.target <= 0:
        raise OpError("bad_target", "target_s must be > 0", "target_s")
    shots = list(timeline.shots)
    if not shots:
        raise OpError("empty_timeline", "fit_duration needs at least one shot", "op")
    remaining = op.target - sum(shot.length for shot in shots)
    sign = 1 if remaining > 0 else -1
    while remaining:
        rooms = [_room(task, shots, i, sign) for i in range(len(shots))]
        weights = [shot.length if room else 0 for shot, room in zip(shots, rooms, strict=True)]
        pool = sum(weights)
        if pool == 0:
            verb, gap = ("stretch", "short") if sign > 0 else ("shrink", "over")
            raise OpError(
                "cannot_fit",
                f"the media cannot {verb} the timeline to {op.target / task.fps:.3f} s: "
                f"{abs(remaining) / task.fps:.3f} s {gap}",
                "target_s",
            )
        need = share = abs(remaining)  # shares come from this round's need, not what is left
        for i, shot in enumerate(shots):
            if not weights[i] or not need:
                continue
            step = min(rooms[i], max(1, share * weights[i] // pool), need)
            shots[i] = shot._replace(
                source=FrameRange(shot.source.start, shot.source.end + sign * step)
            )
            need -= step
        remaining = sign * need
    return timeline.with_shots(shots)


def _covered(shots: list[Shot], i: int) -> int:
    """Frames of shot ``i`` its incoming and outgoing transitions play over: it keeps them."""
    incoming = shots[i].transition_in
    covered = incoming.duration if i == 0 else incoming.after_cut
    if i + 1 < len(shots):
        covered += shots[i + 1].transition_in.before_cut
    return covered


def _room(task: Task, shots: list[Shot], i: int, sign: int) -> int:
    shot = shots[i]
    if sign < 0:
        return max(0, shot.length - max(1, _covered(shots, i)))
    clip = task.clips.get(shot.clip_id)
    if clip is None:
        return 0
    handle = shots[i + 1].transition_in.after_cut if i + 1 < len(shots) else 0
    return max(0, clip.duration - handle - shot.source.end)


VERBS: dict[type, Callable[[Timeline, Op, Task], Timeline]] = {
    Insert: insert,
    Remove: remove,
    Replace: replace_shot,
    Trim: trim,
    Move: move,
    Swap: swap,
    SetTransition: set_transition,
    SetMusic: set_music,
    SnapToBeats: snap_to_beats,
    FitDuration: fit_duration,
}


def apply_patch(task: Task, timeline: Timeline, ops: tuple[Op, ...] | list[Op]) -> Timeline:
    """Apply every op in order, or raise :class:`PatchRejected` for the first that fails."""
    current = timeline
    for index, op in enumerate(ops):
        try:
            current = VERBS[type(op)](current, op, task)
        except OpError as error:
            raise PatchRejected(index, error.reason, error.message, field=error.field) from None
    return current
