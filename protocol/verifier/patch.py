"""Patch.1: the edit ops on the wire; ``PatchIn.to_ops`` gives the domain verbs."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from protocol.verifier.base import (
    MAX_ITEMS,
    Count,
    Id,
    PositiveSeconds,
    Seconds,
    Tolerance,
    Wire,
)
from services.verifier import patches as P
from services.verifier.timeline import FrameRange, Transition, TransitionType, to_frames, to_seconds

ShotIndex = Count


class InsertOp(Wire):
    op: Literal["insert"]
    at: ShotIndex
    clip_id: Id
    in_s: Seconds
    out_s: Seconds

    def to_op(self, fps: int) -> P.Op:
        return P.Insert(self.at, self.clip_id, _range(self.in_s, self.out_s, fps))


class RemoveOp(Wire):
    op: Literal["remove"]
    shot: ShotIndex

    def to_op(self, fps: int) -> P.Op:
        return P.Remove(self.shot)


class ReplaceOp(Wire):
    op: Literal["replace"]
    shot: ShotIndex
    clip_id: Id
    in_s: Seconds
    out_s: Seconds

    def to_op(self, fps: int) -> P.Op:
        return P.Replace(self.shot, self.clip_id, _range(self.in_s, self.out_s, fps))


class TrimOp(Wire):
    op: Literal["trim"]
    shot: ShotIndex
    in_s: Seconds
    out_s: Seconds

    def to_op(self, fps: int) -> P.Op:
        return P.Trim(self.shot, _range(self.in_s, self.out_s, fps))


class MoveOp(Wire):
    op: Literal["move"]
    from_: ShotIndex = Field(alias="from")
    to: ShotIndex

    def to_op(self, fps: int) -> P.Op:
        return P.Move(self.from_, self.to)


class SwapOp(Wire):
    op: Literal["swap"]
    a: ShotIndex
    b: ShotIndex

    def to_op(self, fps: int) -> P.Op:
        return P.Swap(self.a, self.b)


class SetTransitionOp(Wire):
    op: Literal["set_transition"]
    shot: ShotIndex
    type: TransitionType
    duration_s: Seconds = 0.0

    def to_op(self, fps: int) -> P.Op:
        return P.SetTransition(self.shot, Transition(self.type, to_frames(self.duration_s, fps)))


class SetMusicOp(Wire):
    op: Literal["set_music"]
    track_id: Id
    offset_s: Seconds = 0.0
    fade_out_s: Seconds | None = None

    def to_op(self, fps: int) -> P.Op:
        fade = None if self.fade_out_s is None else to_frames(self.fade_out_s, fps)
        return P.SetMusic(self.track_id, to_frames(self.offset_s, fps), fade)


class SnapToBeatsOp(Wire):
    op: Literal["snap_to_beats"]
    tolerance_s: Tolerance = 0.1

    def to_op(self, fps: int) -> P.Op:
        return P.SnapToBeats(to_frames(self.tolerance_s, fps))


class FitDurationOp(Wire):
    op: Literal["fit_duration"]
    target_s: PositiveSeconds

    def to_op(self, fps: int) -> P.Op:
        return P.FitDuration(to_frames(self.target_s, fps))


def _range(in_s: float, out_s: float, fps: int) -> FrameRange:
    return FrameRange(to_frames(in_s, fps), to_frames(out_s, fps))


OpUnion = Annotated[
    InsertOp
    | RemoveOp
    | ReplaceOp
    | TrimOp
    | MoveOp
    | SwapOp
    | SetTransitionOp
    | SetMusicOp
    | SnapToBeatsOp
    | FitDurationOp,
    Field(discriminator="op"),
]


class PatchIn(Wire):
    schema_: Literal["Patch.1"] = Field("Patch.1", alias="schema")
    ops: list[OpUnion] = Field(min_length=1, max_length=MAX_ITEMS)

    def to_ops(self, fps: int) -> list[P.Op]:
        return [op.to_op(fps) for op in self.ops]


def op_payload(op: P.Op, fps: int) -> dict[str, Any]:
    """One domain op as its Patch.1 wire object (seconds)."""
    seconds = lambda frames: to_seconds(frames, fps)  # noqa: E731
    match op:
        case P.Insert(at, clip_id, source):
            return {
                "op": "insert",
                "at": at,
                "clip_id": clip_id,
                "in_s": seconds(source.start),
                "out_s": seconds(source.end),
            }
        case P.Remove(shot):
            return {"op": "remove", "shot": shot}
        case P.Replace(shot, clip_id, source):
            return {
                "op": "replace",
                "shot": shot,
                "clip_id": clip_id,
                "in_s": seconds(source.start),
                "out_s": seconds(source.end),
            }
        case P.Trim(shot, source):
            return {
                "op": "trim",
                "shot": shot,
                "in_s": seconds(source.start),
                "out_s": seconds(source.end),
            }
        case P.Move(from_, to):
            return {"op": "move", "from": from_, "to": to}
        case P.Swap(a, b):
            return {"op": "swap", "a": a, "b": b}
        case P.SetTransition(shot, transition):
            return {
                "op": "set_transition",
                "shot": shot,
                "type": transition.type.value,
                "duration_s": seconds(transition.duration),
            }
        case P.SetMusic(track_id, offset, fade_out):
            payload: dict[str, Any] = {
                "op": "set_music",
                "track_id": track_id,
                "offset_s": seconds(offset),
            }
            if fade_out is not None:
                payload["fade_out_s"] = seconds(fade_out)
            return payload
        case P.SnapToBeats(tolerance):
            return {"op": "snap_to_beats", "tolerance_s": seconds(tolerance)}
        case P.FitDuration(target):
            return {"op": "fit_duration", "target_s": seconds(target)}
    raise TypeError(f"not a patch op: {op!r}")


def patch_payload(ops: list[P.Op] | tuple[P.Op, ...], fps: int) -> dict[str, Any]:
    """Domain ops as a Patch.1 document; ``PatchIn.model_validate(...).to_ops(fps)`` inverts it."""
    return {"schema": "Patch.1", "ops": [op_payload(op, fps) for op in ops]}
