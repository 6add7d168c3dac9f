"""The discretisation the exact solver is exact on (``docs/exact.md``).

- **Clips**: the pool's clips (at most ``max_clips``), each used at most once.
- **Shots**: 1 to ``max_shots`` of them.
- **Music**: each track at offset 0 and at each of its first ``offset_beats`` beats; with no
  track that has beats, no music.
- **Cut points**: every cut and the end lie on the placed track's beat grid (in timeline
  frames); with no music, on a step of a quarter second.
- **Transitions**: a plain cut into every shot when the ledger allows cuts; otherwise the
  first allowed type at the shortest allowed duration into every shot but the first.
- **Source ranges**: each shot starts its clip at the first frame its incoming transition
  leaves free (VES never looks at in points beyond the media they need).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.verifier import ledger as L
from services.verifier.task import Task
from services.verifier.timeline import CUT, MusicPlacement, Transition, TransitionType

OFFSET_BEATS = 4
"""Offsets tried per track besides 0: its first beats (a bar of 4/4 covers every downbeat
phase on a regular grid)."""
DEFAULT_TRANSITION_FRAMES = 2


@dataclass(frozen=True, slots=True)
class MusicOption:
    placement: MusicPlacement | None
    grid: tuple[int, ...]
    """Timeline frames a cut or the end may fall on, ascending, all ≥ 1."""
    on_beats: bool
    """Every grid point lies on a beat of the placed track."""


def horizon(task: Task) -> int:
    """The longest timeline considered: what any duration rule allows, else all the media."""
    media = sum(clip.duration for clip in task.clips.values())
    limits = [r.max for r in task.ledger if isinstance(r, L.Duration)]
    return min(media, max(limits)) if limits else media


def music_options(task: Task, offset_beats: int = OFFSET_BEATS) -> list[MusicOption]:
    longest = horizon(task)
    options: list[MusicOption] = []
    for track in task.tracks.values():
        if not track.beats:
            continue
        offsets = sorted({0, *(b for b in track.beats[:offset_beats] if b < track.duration)})
        for offset in offsets:
            room = min(track.duration - offset, longest)
            grid = tuple(b - offset for b in track.beats if 1 <= b - offset <= room)
            if grid:
                options.append(MusicOption(MusicPlacement(track.id, offset), grid, True))
    if not options:
        step = max(1, round(task.fps / 4))
        options.append(MusicOption(None, tuple(range(step, longest + 1, step)), False))
    return options


def transition_in(task: Task) -> Transition:
    """The transition into every shot after the first (see the module docstring)."""
    rules = [r for r in task.ledger if isinstance(r, L.Transitions)]
    allowed = [r.allowed for r in rules if r.allowed is not None]
    if all(TransitionType.CUT in a for a in allowed):
        return CUT
    types = [
        t for t in TransitionType if t is not TransitionType.CUT and all(t in a for a in allowed)
    ]
    kind = types[0] if types else next(t for t in sorted(allowed[0]))
    lows = [r.min_duration for r in rules if r.min_duration is not None]
    return Transition(kind, max(lows) if lows else DEFAULT_TRANSITION_FRAMES)
