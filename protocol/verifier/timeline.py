"""Timeline.1 on the wire, and its conversion to frames against a task."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from protocol.verifier.base import MAX_ITEMS, Fps, Id, Seconds, Wire
from services.verifier.errors import UnknownReference
from services.verifier.task import Task
from services.verifier.timeline import (
    CUT,
    FrameRange,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
    to_frames,
    to_seconds,
)


class TransitionIn(Wire):
    type: TransitionType = TransitionType.CUT
    duration_s: Seconds = 0.0

    @model_validator(mode="after")
    def _duration(self) -> TransitionIn:
        if self.type is TransitionType.CUT and self.duration_s != 0:
            raise ValueError("a cut has no duration_s")
        if self.type is not TransitionType.CUT and self.duration_s <= 0:
            raise ValueError(f"a {self.type.value} needs duration_s > 0")
        return self

    def to_transition(self, fps: int) -> Transition:
        if self.type is TransitionType.CUT:
            return CUT
        return Transition(self.type, to_frames(self.duration_s, fps))


class ShotIn(Wire):
    clip_id: Id
    in_s: Seconds
    out_s: Seconds
    transition_in: TransitionIn = TransitionIn()

    @model_validator(mode="after")
    def _ordered(self) -> ShotIn:
        if self.out_s <= self.in_s:
            raise ValueError(f"out_s ({self.out_s}) must be greater than in_s ({self.in_s})")
        return self


class MusicPlacementIn(Wire):
    track_id: Id
    offset_s: Seconds = 0.0
    fade_out_s: Seconds = 0.0


class TimelineIn(Wire):
    schema_: Literal["Timeline.1"] = Field("Timeline.1", alias="schema")
    fps: Fps = 30
    shots: list[ShotIn] = Field([], max_length=MAX_ITEMS)
    music: MusicPlacementIn | None = None

    def to_timeline(self, task: Task, *, field: str = "timeline") -> Timeline:
        """Frames for ``task``; unknown clips or tracks are a 422 naming the field."""
        fps = task.fps
        if self.fps != fps:
            raise UnknownReference(
                f"timeline fps {self.fps} differs from the task's {fps}",
                param=f"{field}.fps",
                code="fps_mismatch",
            )
        shots = []
        for index, shot in enumerate(self.shots):
            if shot.clip_id not in task.clips:
                raise UnknownReference(
                    f"clip {shot.clip_id!r} is not in the task's pool",
                    param=f"{field}.shots[{index}].clip_id",
                )
            start, end = to_frames(shot.in_s, fps), to_frames(shot.out_s, fps)
            if end <= start:
                raise UnknownReference(
                    f"shot is shorter than one frame at {fps} fps",
                    param=f"{field}.shots[{index}].out_s",
                    code="empty_shot",
                )
            transition = shot.transition_in.to_transition(fps)
            if transition.type is not TransitionType.CUT and transition.duration == 0:
                raise UnknownReference(
                    f"{transition.type.value} is shorter than one frame at {fps} fps",
                    param=f"{field}.shots[{index}].transition_in.duration_s",
                    code="empty_transition",
                )
            shots.append(Shot(shot.clip_id, FrameRange(start, end), transition))
        music = None
        if self.music is not None:
            if self.music.track_id not in task.tracks:
                raise UnknownReference(
                    f"music track {self.music.track_id!r} is not in the task",
                    param=f"{field}.music.track_id",
                )
            music = MusicPlacement(
                self.music.track_id,
                to_frames(self.music.offset_s, fps),
                to_frames(self.music.fade_out_s, fps),
            )
        return Timeline(fps=fps, shots=tuple(shots), music=music)


class TimelineOut(TimelineIn):
    @classmethod
    def from_domain(cls, timeline: Timeline) -> TimelineOut:
        return cls.model_validate(timeline_payload(timeline))


def timeline_payload(timeline: Timeline) -> dict[str, Any]:
    """Timeline.1 as JSON-ready data (seconds), built directly."""
    fps = timeline.fps
    shots = []
    for shot in timeline.shots:
        transition = shot.transition_in
        shots.append(
            {
                "clip_id": shot.clip_id,
                "in_s": to_seconds(shot.source.start, fps),
                "out_s": to_seconds(shot.source.end, fps),
                "transition_in": {
                    "type": transition.type.value,
                    "duration_s": to_seconds(transition.duration, fps),
                },
            }
        )
    music = timeline.music
    return {
        "schema": "Timeline.1",
        "fps": fps,
        "shots": shots,
        "music": None
        if music is None
        else {
            "track_id": music.track_id,
            "offset_s": to_seconds(music.offset, fps),
            "fade_out_s": to_seconds(music.fade_out, fps),
        },
    }
