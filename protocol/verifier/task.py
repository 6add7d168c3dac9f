"""Task.1: the brief, the clip pool, the music and the constraint ledger."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from protocol.common import StrictBool
from protocol.verifier.base import (
    MAX_ITEMS,
    MAX_SMALL_ITEMS,
    MAX_TEXT,
    Bpm,
    Count,
    Fps,
    Fraction,
    Id,
    PositiveCount,
    PositiveSeconds,
    Seconds,
    ShortText,
    Tag,
    Tolerance,
    Weight,
    Wire,
)
from services.verifier import ledger as L
from services.verifier.pool import Brief, Clip, MusicTrack, Orientation, Selector
from services.verifier.task import Task
from services.verifier.timeline import TransitionType, to_frames, to_frames_many


class BriefIn(Wire):
    text: str = Field(min_length=1, max_length=MAX_TEXT)
    aspect: str = Field("16:9", max_length=20, pattern=r"^\d+:\d+$")
    style: Tag = "neutral"


CaptionSource = Literal["sidecar", "llm", "filename", "manual"]


class ClipIn(Wire):
    id: Id
    uri: ShortText = ""
    duration_s: PositiveSeconds
    caption: ShortText = ""
    tags: list[Tag] = Field([], max_length=MAX_SMALL_ITEMS)
    orientation: Orientation = Orientation.LANDSCAPE
    quality: Fraction = 0.5
    start_s: Seconds = 0.0
    """Where the clip begins inside its file (one file may yield many shots)."""
    caption_source: CaptionSource = "manual"
    """Where ``caption`` came from: an asset manager's sidecar, a vision model, the file name,
    or a person."""


class MusicTrackIn(Wire):
    id: Id
    uri: ShortText = ""
    duration_s: PositiveSeconds
    bpm: Bpm = 120.0
    beats_s: list[Seconds] = Field([], max_length=MAX_ITEMS)
    downbeats_s: list[Seconds] = Field([], max_length=MAX_ITEMS)
    mood: Tag = ""


class SelectorIn(Wire):
    clip_ids: list[Id] | None = Field(None, max_length=MAX_ITEMS)
    tags: list[Tag] | None = Field(None, max_length=MAX_SMALL_ITEMS)

    @model_validator(mode="after")
    def _not_empty(self) -> SelectorIn:
        if not self.clip_ids and not self.tags:
            raise ValueError("a selector needs clip_ids or tags")
        return self

    def to_selector(self) -> Selector:
        return Selector(frozenset(self.clip_ids or ()), _tags(self.tags or ()))


class ConstraintIn(Wire):
    id: Id
    hard: StrictBool = True
    weight: Weight = 1.0

    def _common(self) -> dict[str, Any]:
        return {"id": self.id, "hard": self.hard, "weight": self.weight}


class DurationIn(ConstraintIn):
    kind: Literal["duration"]
    min_s: Seconds
    max_s: PositiveSeconds
    target_s: Seconds | None = None

    @model_validator(mode="after")
    def _ordered(self) -> DurationIn:
        if self.min_s > self.max_s:
            raise ValueError("min_s must be ≤ max_s")
        if self.target_s is not None and not self.min_s <= self.target_s <= self.max_s:
            raise ValueError("target_s must lie within min_s–max_s")
        return self

    def to_constraint(self, fps: int) -> L.Constraint:
        target = None if self.target_s is None else to_frames(self.target_s, fps)
        return L.Duration(
            **self._common(),
            min=to_frames(self.min_s, fps),
            max=to_frames(self.max_s, fps),
            target=target,
        )


class ShotLengthIn(ConstraintIn):
    kind: Literal["shot_length"]
    min_s: Seconds
    max_s: PositiveSeconds

    @model_validator(mode="after")
    def _ordered(self) -> ShotLengthIn:
        if self.min_s > self.max_s:
            raise ValueError("min_s must be ≤ max_s")
        return self

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.ShotLength(
            **self._common(), min=to_frames(self.min_s, fps), max=to_frames(self.max_s, fps)
        )


class MustIncludeIn(ConstraintIn, SelectorIn):
    kind: Literal["must_include"]
    min_count: PositiveCount = 1

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.MustInclude(
            **self._common(), selector=self.to_selector(), min_count=self.min_count
        )


class MustExcludeIn(ConstraintIn, SelectorIn):
    kind: Literal["must_exclude"]

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.MustExclude(**self._common(), selector=self.to_selector())


class NoReuseIn(ConstraintIn):
    kind: Literal["no_reuse"]
    max_uses: PositiveCount = 1

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.NoReuse(**self._common(), max_uses=self.max_uses)


class OrderIn(ConstraintIn):
    kind: Literal["order"]
    first: SelectorIn | None = None
    last: SelectorIn | None = None
    before: SelectorIn | None = None
    after: SelectorIn | None = None

    @model_validator(mode="after")
    def _shape(self) -> OrderIn:
        if (self.before is None) != (self.after is None):
            raise ValueError("before and after come together")
        if self.first is None and self.last is None and self.before is None:
            raise ValueError("order needs first, last, or before + after")
        return self

    def to_constraint(self, fps: int) -> L.Constraint:
        def sel(value: SelectorIn | None) -> Selector | None:
            return value.to_selector() if value is not None else None

        return L.Order(
            **self._common(),
            first=sel(self.first),
            last=sel(self.last),
            before=sel(self.before),
            after=sel(self.after),
        )


class TransitionsIn(ConstraintIn):
    kind: Literal["transitions"]
    allowed: list[TransitionType] | None = Field(None, max_length=MAX_SMALL_ITEMS)
    max_count: Count | None = None
    min_duration_s: Seconds | None = None
    max_duration_s: Seconds | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TransitionsIn:
        low, high = self.min_duration_s, self.max_duration_s
        if low is not None and high is not None and low > high:
            raise ValueError("min_duration_s must be ≤ max_duration_s")
        return self

    def to_constraint(self, fps: int) -> L.Constraint:
        def frames(value: float | None) -> int | None:
            return None if value is None else to_frames(value, fps)

        allowed = frozenset(self.allowed) if self.allowed is not None else None
        return L.Transitions(
            **self._common(),
            allowed=allowed,
            max_count=self.max_count,
            min_duration=frames(self.min_duration_s),
            max_duration=frames(self.max_duration_s),
        )


class MusicIn(ConstraintIn):
    kind: Literal["music"]
    track_id: Id

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.Music(**self._common(), track_id=self.track_id)


class BeatAlignmentIn(ConstraintIn):
    kind: Literal["beat_alignment"]
    tolerance_s: Tolerance = 0.1
    min_fraction: Fraction = 0.8

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.BeatAlignment(
            **self._common(),
            tolerance=to_frames(self.tolerance_s, fps),
            min_fraction=self.min_fraction,
        )


class EndOnDownbeatIn(ConstraintIn):
    kind: Literal["end_on_downbeat"]
    tolerance_s: Tolerance = 0.1

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.EndOnDownbeat(**self._common(), tolerance=to_frames(self.tolerance_s, fps))


class OrientationIn(ConstraintIn):
    kind: Literal["orientation"]
    value: Orientation

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.OrientationRule(**self._common(), value=self.value)


class MaxConsecutiveTagIn(ConstraintIn):
    kind: Literal["max_consecutive_tag"]
    tag: Tag = Field(min_length=1)
    max_run: PositiveCount

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.MaxConsecutiveTag(**self._common(), tag=self.tag.lower(), max_run=self.max_run)


class CoverageIn(ConstraintIn):
    kind: Literal["coverage"]
    topics: list[Annotated[ShortText, Field(min_length=1)]] = Field(
        min_length=1, max_length=MAX_SMALL_ITEMS
    )
    min_fraction: Fraction = 1.0

    def to_constraint(self, fps: int) -> L.Constraint:
        return L.Coverage(
            **self._common(), topics=tuple(self.topics), min_fraction=self.min_fraction
        )


ConstraintUnion = Annotated[
    DurationIn
    | ShotLengthIn
    | MustIncludeIn
    | MustExcludeIn
    | NoReuseIn
    | OrderIn
    | TransitionsIn
    | MusicIn
    | BeatAlignmentIn
    | EndOnDownbeatIn
    | OrientationIn
    | MaxConsecutiveTagIn
    | CoverageIn,
    Field(discriminator="kind"),
]


def _unique(items: list[Any], what: str) -> None:
    seen: set[str] = set()
    for index, item in enumerate(items):
        if item.id in seen:
            raise ValueError(f"{what}[{index}].id {item.id!r} is repeated; ids must be unique")
        seen.add(item.id)


class TaskIn(Wire):
    schema_: Literal["Task.1"] = Field("Task.1", alias="schema")
    id: Id
    fps: Fps = 30
    brief: BriefIn
    clips: list[ClipIn] = Field(min_length=1, max_length=MAX_ITEMS)
    music: list[MusicTrackIn] = Field([], max_length=MAX_ITEMS)
    ledger: list[ConstraintUnion] = Field([], max_length=MAX_ITEMS)

    @model_validator(mode="after")
    def _references(self) -> TaskIn:
        _unique(self.clips, "clips")
        _unique(self.music, "music")
        _unique(self.ledger, "ledger")
        tracks = {track.id for track in self.music}
        for index, constraint in enumerate(self.ledger):
            if isinstance(constraint, MusicIn) and constraint.track_id not in tracks:
                raise ValueError(
                    f"ledger[{index}].track_id {constraint.track_id!r} is not in music"
                )
        return self

    def to_task(self) -> Task:
        fps = self.fps
        clips = [
            Clip(
                id=c.id,
                duration=to_frames(c.duration_s, fps),
                uri=c.uri,
                caption=c.caption,
                tags=_tags(c.tags),
                orientation=c.orientation,
                quality=c.quality,
                start=to_frames(c.start_s, fps),
                caption_source=c.caption_source,
            )
            for c in self.clips
        ]
        tracks = [
            MusicTrack(
                id=m.id,
                duration=to_frames(m.duration_s, fps),
                uri=m.uri,
                bpm=m.bpm,
                beats=_grid(m.beats_s, fps),
                downbeats=_grid(m.downbeats_s, fps),
                mood=m.mood,
            )
            for m in self.music
        ]
        brief = Brief(self.brief.text, self.brief.aspect, self.brief.style)
        ledger = [constraint.to_constraint(fps) for constraint in self.ledger]
        return Task.build(
            id=self.id, fps=fps, brief=brief, clips=clips, tracks=tracks, ledger=ledger
        )


GRID_MEMO_MAX = 4_096
"""Grids up to this many points are memoised (a typical track has a few hundred beats)."""


def _grid(times_s: list[float], fps: int) -> tuple[int, ...]:
    """Beat times → sorted frames; memoised, since clients resend the same track per call."""
    if len(times_s) > GRID_MEMO_MAX:
        return tuple(sorted(to_frames_many(times_s, fps)))
    return _frames_of_grid(tuple(times_s), fps)


@lru_cache(maxsize=128)
def _frames_of_grid(times_s: tuple[float, ...], fps: int) -> tuple[int, ...]:
    return tuple(sorted(to_frames_many(list(times_s), fps)))


def _tags(tags: list[str] | tuple[str, ...]) -> frozenset[str]:
    """Tags compare case-insensitively: they are lower-cased once, here."""
    return frozenset(map(str.lower, tags))
