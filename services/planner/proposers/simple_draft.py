"""A small greedy first cut: the model proposers' default ``draft``.

The most brief-relevant clips (caption and tag words shared with the brief), each from its
start, on cuts, until the duration constraint's target (else the middle of its range) is
reached; when the pool runs short, later stretches of the same clips follow unless the
ledger forbids reuse. Music is the track a ``music`` constraint names, else the first, at
offset 0, when it is long enough to lie under the whole cut. Clips a hard ``must_exclude``
or ``orientation`` rules out are skipped while others remain. Always executable.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from services.verifier.ledger import Duration, MustExclude, NoReuse, OrientationRule, ShotLength
from services.verifier.ledger import Music as MusicRule
from services.verifier.pool import Clip
from services.verifier.score import DEFAULT_PACING_S, PACING_BANDS_S
from services.verifier.task import Task
from services.verifier.text import terms
from services.verifier.timeline import FrameRange, MusicPlacement, Shot, Timeline

DEFAULT_LENGTH_S = 15.0

DraftFn = Callable[..., Timeline]
"""``draft(task, *, seed) -> Timeline``: how a model proposer makes its first cut."""


def simple_draft(task: Task, *, seed: int = 0) -> Timeline:
    """Greedy cut for ``task``; ``seed`` only breaks ties between equally relevant clips."""
    goal = _goal(task)
    shot_length = _shot_length(task)
    ranked = _ranked(task, seed)
    reuse = not any(isinstance(rule, NoReuse) for rule in task.ledger)
    used: dict[str, int] = {}  # frames of each clip already placed (from its start)
    shots: list[Shot] = []
    total = 0
    while total < goal:
        placed = total
        for clip in ranked:
            start = used.get(clip.id, 0)
            length = min(clip.duration - start, shot_length, goal - total)
            if length <= 0 or (start and not reuse):
                continue
            shots.append(Shot(clip.id, FrameRange(start, start + length)))
            used[clip.id] = start + length
            total += length
            if total >= goal:
                break
        if total == placed:
            break  # the media (or no_reuse) allow no more
    return Timeline(fps=task.fps, shots=tuple(shots), music=_music(task, total))


def _goal(task: Task) -> int:
    for rule in task.ledger:
        if isinstance(rule, Duration):
            return rule.target if rule.target is not None else (rule.min + rule.max) // 2
    return round(DEFAULT_LENGTH_S * task.fps)


def _shot_length(task: Task) -> int:
    """The middle of a ``shot_length`` range, else of the style's pacing band."""
    for rule in task.ledger:
        if isinstance(rule, ShotLength):
            return max(1, (rule.min + rule.max) // 2)
    low, high = PACING_BANDS_S.get(task.brief.style.lower(), DEFAULT_PACING_S)
    return max(1, round((low + high) / 2 * task.fps))


def _allowed(task: Task, clip: Clip) -> bool:
    for rule in task.ledger:
        if not rule.hard:
            continue
        if isinstance(rule, MustExclude) and rule.selector.matches(clip):
            return False
        if isinstance(rule, OrientationRule) and clip.orientation != rule.value:
            return False
    return True


def _ranked(task: Task, seed: int) -> list[Clip]:
    brief = terms(task.brief.text)
    clips = list(task.clips.values())
    random.Random(seed).shuffle(clips)
    allowed = [c for c in clips if _allowed(task, c)] or clips

    def overlap(clip: Clip) -> int:
        return len(brief & (terms(clip.caption) | terms(" ".join(sorted(clip.tags)))))

    return sorted(allowed, key=lambda c: (-overlap(c), -c.quality))


def _music(task: Task, length: int) -> MusicPlacement | None:
    wanted = [r.track_id for r in task.ledger if isinstance(r, MusicRule)]
    track_id = next((t for t in wanted if t in task.tracks), next(iter(task.tracks), None))
    if track_id is None or task.tracks[track_id].duration < length:
        return None
    return MusicPlacement(track_id, 0, 0)
