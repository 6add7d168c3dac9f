"""The editing task in frames: brief, clip pool, music tracks and the constraint ledger.

The pool's own types (clip, track, brief, selector) are in :mod:`services.verifier.pool`,
below both the task and the ledger."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from services.verifier.ledger import Constraint
from services.verifier.pool import Brief, Clip, MusicTrack


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    fps: int
    brief: Brief
    clips: dict[str, Clip]
    tracks: dict[str, MusicTrack] = field(default_factory=dict)
    ledger: tuple[Constraint, ...] = ()

    @classmethod
    def build(
        cls,
        *,
        id: str,
        fps: int,
        brief: Brief,
        clips: Iterable[Clip],
        tracks: Iterable[MusicTrack] = (),
        ledger: Iterable[Constraint] = (),
    ) -> Task:
        return cls(
            id=id,
            fps=fps,
            brief=brief,
            clips={clip.id: clip for clip in clips},
            tracks={track.id: track for track in tracks},
            ledger=tuple(ledger),
        )
