"""Facts about one timeline, computed once and shared by every constraint and rubric."""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate, repeat
from operator import add, sub
from typing import Protocol

from services.verifier.pool import Clip, MusicTrack, Orientation, Selector
from services.verifier.timeline import (
    CUT,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
)


class NearGrid:
    """The frames within ``tolerance`` of a sorted grid, tested by binary search: what a
    frozenset of those frames answers, for grids too dense or tolerances too wide to list."""

    __slots__ = ("grid", "tolerance")

    def __init__(self, grid: tuple[int, ...], tolerance: int) -> None:
        self.grid, self.tolerance = grid, tolerance

    def __contains__(self, frame: object) -> bool:
        if not isinstance(frame, int):
            return False
        grid = self.grid
        i = bisect_left(grid, frame - self.tolerance)
        return i < len(grid) and grid[i] <= frame + self.tolerance


def near_frames(grid: tuple[int, ...], tolerance: int, limit: int) -> frozenset[int] | NearGrid:
    """Frames within ``tolerance`` of ``grid`` (sorted): listed when at most ``limit``."""
    if len(grid) * (2 * tolerance + 1) > limit:
        return NearGrid(grid, tolerance)
    return frozenset(point + delta for point in grid for delta in range(-tolerance, tolerance + 1))


class TaskIndex(Protocol):
    """Per-task lookups, memoised across verifications (see :class:`~score.Verifier`)."""

    def matching(self, selector: Selector) -> frozenset[str]: ...
    def clips_with_terms(self, words: frozenset[str]) -> frozenset[str]: ...
    def clips_with_orientation(self, value: Orientation) -> frozenset[str]: ...
    def near_beats(self, track: MusicTrack, tolerance: int) -> frozenset[int] | NearGrid: ...


class TimelineView:
    """Read-only, precomputed facts about a timeline inside its task."""

    __slots__ = (
        "_aligned",
        "_clips",
        "_pool",
        "clip_ids",
        "cuts",
        "ends",
        "fps",
        "ids",
        "index",
        "lengths",
        "matching",
        "music",
        "shots",
        "starts",
        "total",
        "track",
        "transitions",
    )

    def __init__(
        self,
        timeline: Timeline,
        pool: dict[str, Clip],
        track: MusicTrack | None,
        index: TaskIndex,
    ) -> None:
        shots = timeline.shots
        self.fps: int = timeline.fps
        self.shots: tuple[Shot, ...] = shots
        self._pool = pool
        self._clips: list[Clip] | None = None
        self.music: MusicPlacement | None = timeline.music
        self.track = track
        self.index = index
        self.matching = index.matching
        # shots and ranges are named tuples: transposing them with zip stays in C
        ids, sources, entries = zip(*shots, strict=True) if shots else ((), (), ())
        self.ids: tuple[str, ...] = ids
        self.clip_ids = set(ids)
        self.starts, self.ends = zip(*sources, strict=True) if sources else ((), ())
        self.lengths = list(map(sub, self.ends, self.starts))
        self.cuts = list(accumulate(self.lengths))
        self.total = self.cuts.pop() if self.cuts else 0
        self.transitions: list[tuple[int, Transition]] = (
            [
                (i, entry)
                for i, entry in enumerate(entries)
                if entry is not CUT and entry.type is not TransitionType.CUT
            ]
            if entries.count(CUT) != len(entries)
            else []
        )
        self._aligned: dict[int, int] = {}

    @property
    def clips(self) -> list[Clip]:
        """The clip of each shot (a zero-length stand-in for an id not in the pool)."""
        if self._clips is None:
            pool = self._pool
            self._clips = [pool.get(i) or Clip(id=i, duration=0) for i in self.ids]
        return self._clips

    def count_matching(self, selector: Selector) -> int:
        """Shots whose clip the selector matches."""
        return sum(map(self.matching(selector).__contains__, self.ids))

    def seconds(self, frames: int | float) -> float:
        return round(frames / self.fps, 3)

    def nearest_distance(self, grid: tuple[int, ...], position: int) -> int | None:
        """Frames from a timeline position to the nearest grid point of the placed track."""
        if not grid or self.music is None:
            return None
        target = position + self.music.offset
        i = bisect_left(grid, target)
        best = None
        if i < len(grid):
            best = grid[i] - target
        if i > 0:
            below = target - grid[i - 1]
            if best is None or below < best:
                best = below
        return best

    def aligned_cuts(self, tolerance: int) -> int:
        """How many cuts lie within ``tolerance`` frames of a beat of the placed track."""
        known = self._aligned.get(tolerance)
        if known is not None:
            return known
        if self.track is None or self.music is None or not self.track.beats:
            return 0
        near = self.index.near_beats(self.track, tolerance)
        offset = self.music.offset
        positions = map(add, self.cuts, repeat(offset)) if offset else self.cuts
        aligned = sum(map(near.__contains__, positions))
        self._aligned[tolerance] = aligned
        return aligned
