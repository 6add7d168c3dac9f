"""EditBench planning: the planted shots, the music under them and the clip pool around them.

Everything is in integer frames at the task's fps. Beat periods are whole frames (so the bpm
is an integer and every beat lies on a frame), shot lengths are whole beats summing to whole
bars (so the planted edit ends on a downbeat), and clip durations sit on a 0.1/0.2/0.25 s
grid. Pure functions of a ``random.Random``; no I/O.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from benchmarks.editbench_vocab import DEFECTS, SHOT_TYPES, Theme
from services.verifier.score import DEFAULT_PACING_S, PACING_BANDS_S
from services.verifier.timeline import to_frames, to_seconds

FPS_CHOICES = (30, 30, 30, 30, 30, 30, 24, 24, 25, 25)
#: Beat periods (frames) whose bpm is an integer in 80–160, so every beat falls on a frame.
PERIODS = {30: (12, 15, 18, 20), 25: (10, 12, 15), 24: (9, 10, 12, 15, 16, 18)}
#: Duration grid (frames) per fps: 0.1 s, 0.2 s, 0.25 s — clip lengths stay short decimals.
STEP = {30: 3, 25: 5, 24: 6}
TARGETS_S = (15, 15, 20, 30, 30, 30, 45, 60)
TRANSITION_TYPES = ("dissolve", "wipe", "fade_black")


# --------------------------------------------------------------------------- values


@dataclass
class ClipSpec:
    subject: str
    action: str
    place: str
    place_phrase: str
    shot: str
    shot_phrase: str
    orientation: str
    duration: int  # frames
    quality: float
    ambience: tuple[str, ...] = ()
    defect: tuple[str, str] | None = None
    id: str = ""

    @property
    def tags(self) -> list[str]:
        tags = [self.subject, self.place, self.shot, *self.ambience]
        return [*tags, self.defect[0]] if self.defect else tags

    @property
    def caption(self) -> str:
        text = f"{self.subject} {self.action} {self.place_phrase}, {self.shot_phrase}"
        extra = [*self.ambience, *([self.defect[1]] if self.defect else [])]
        return text + (", " + ", ".join(extra) if extra else "")


@dataclass
class PlannedShot:
    clip: ClipSpec
    length: int  # frames
    start: int = 0  # source in point, frames
    transition: tuple[str, int] = ("cut", 0)


@dataclass
class Track:
    id: str
    period: int  # frames per beat; 0 for a track without beat analysis
    first_beat: int
    duration: int
    mood: str
    bpm: int

    def beats(self) -> list[int]:
        if not self.period:
            return []
        return list(range(self.first_beat, self.duration, self.period))


@dataclass
class Draft:
    """Everything one task is built from, in frames."""

    index: int
    task_id: str
    fps: int
    theme: Theme
    aspect: str
    orientation: str
    style: str
    target_s: int
    shots: list[PlannedShot] = field(default_factory=list)
    pool: list[ClipSpec] = field(default_factory=list)
    tracks: list[Track] = field(default_factory=list)
    track: Track | None = None
    offset: int = 0
    fade_out: int = 0
    ledger: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(shot.length for shot in self.shots)

    def seconds(self, frames: int) -> float:
        return to_seconds(frames, self.fps)


# --------------------------------------------------------------------------- shots & media


def _shot_lengths(rng: random.Random, draft: Draft, period: int) -> list[int]:
    """Beats per shot inside the style's pacing band, summing to whole bars (4 beats)."""
    fps = draft.fps
    low, high = PACING_BANDS_S.get(draft.style, DEFAULT_PACING_S)
    lo = max(1, math.ceil(low * fps / period))
    hi = max(lo, math.floor(high * fps / period))
    bars = max(1, round(draft.target_s * fps / (4 * period)))
    beats = 4 * bars
    while math.ceil(beats / hi) > beats // lo:
        hi += 1
    n_min, n_max = math.ceil(beats / hi), beats // lo
    n = rng.randint(n_min, max(n_min, min(n_max, 28)))
    counts = [lo] * n
    spare = beats - n * lo
    while spare:
        i = rng.randrange(n)
        if counts[i] < hi:
            counts[i] += 1
            spare -= 1
    return [count * period for count in counts]


def _clip(
    rng: random.Random,
    draft: Draft,
    *,
    subject: str | None = None,
    place: str | None = None,
    orientation: str | None = None,
) -> ClipSpec:
    theme = draft.theme
    subject = subject or rng.choice(sorted(theme.subjects))
    place = place or rng.choice(sorted(theme.places))
    shot, shot_phrase = rng.choice(SHOT_TYPES)
    ambience = tuple(sorted(rng.sample(theme.ambience, rng.choice((0, 1, 1, 2)))))
    step = STEP[draft.fps]
    duration = step * rng.randint(math.ceil(2 * draft.fps / step), 20 * draft.fps // step)
    return ClipSpec(
        subject=subject,
        action=rng.choice(theme.subjects[subject]),
        place=place,
        place_phrase=theme.places[place],
        shot=shot,
        shot_phrase=shot_phrase,
        orientation=orientation or draft.orientation,
        duration=duration,
        quality=round(rng.uniform(0.3, 1.0), 2),
        ambience=ambience,
    )


def plan_shots(rng: random.Random, draft: Draft, period: int) -> None:
    lengths = _shot_lengths(rng, draft, period)
    subjects = sorted(draft.theme.subjects)
    shots = []
    for i, length in enumerate(lengths):
        # Neighbouring shots show different subjects, as an editor would cut them.
        previous = shots[i - 1].clip.subject if i else None
        subject = rng.choice([s for s in subjects if s != previous])
        clip = _clip(rng, draft, subject=subject)
        clip.quality = round(rng.uniform(0.5, 1.0), 2)
        shots.append(PlannedShot(clip, length))
    _plan_transitions(rng, draft, shots)
    step = STEP[draft.fps]
    for i, shot in enumerate(shots):
        before = shot.transition[1] // 2 if i else 0  # incoming media before the in point
        after_d = shots[i + 1].transition[1] if i + 1 < len(shots) else 0
        after = after_d - after_d // 2  # outgoing media after the out point
        need = before + shot.length + after
        low = max(need, 2 * draft.fps)
        duration = step * rng.randint(
            math.ceil(low / step), max(math.ceil(low / step), 20 * draft.fps // step)
        )
        shot.clip.duration = duration
        shot.start = before + step * rng.randint(0, (duration - need) // step)
    draft.shots = shots


def _plan_transitions(rng: random.Random, draft: Draft, shots: list[PlannedShot]) -> None:
    n = len(shots)
    count = min(n - 1, rng.choice((0, 0, 1, 1, 2, 3)))
    kinds = rng.sample(TRANSITION_TYPES, rng.randint(1, 2))
    for i in sorted(rng.sample(range(1, n), count)):
        limit = min(shots[i - 1].length, shots[i].length) // 2
        wanted = to_frames(rng.choice((0.2, 0.4, 0.5, 0.6, 0.8, 1.0)), draft.fps)
        frames = max(2, min(limit, wanted)) // 2 * 2
        shots[i].transition = (rng.choice(kinds), frames)
    if rng.random() < 0.15:
        frames = max(2, min(shots[0].length // 2, draft.fps // 2)) // 2 * 2
        shots[0].transition = ("fade_black", frames)


def plan_music(rng: random.Random, draft: Draft, period: int) -> None:
    fps, step = draft.fps, STEP[draft.fps]
    count = rng.choice((1, 1, 2, 2, 3))
    for i in range(count):
        p = period if i == 0 else rng.choice(PERIODS[fps])
        low = 60 * fps if i else max(60 * fps, draft.total + 8 * p)
        duration = step * rng.randint(math.ceil(low / step), 240 * fps // step)
        draft.tracks.append(
            Track(
                id="",
                period=p,
                first_beat=rng.randrange(0, p, 1),
                duration=duration,
                mood=rng.choice(draft.theme.moods),
                bpm=60 * fps // p,
            )
        )
    rng.shuffle(draft.tracks)
    for i, track in enumerate(draft.tracks):
        track.id = f"m{i + 1:02d}"
    draft.track = next(
        t for t in draft.tracks if t.period == period and t.duration >= draft.total + 8 * period
    )
    downbeats = draft.track.beats()[::4]
    fits = [d for d in downbeats if d + draft.total <= draft.track.duration]
    draft.offset = rng.choice(fits[: max(1, len(fits) // 3)])
    draft.fade_out = min(draft.total, to_frames(rng.choice((0.0, 0.5, 1.0, 2.0)), fps))


def build_pool(rng: random.Random, draft: Draft) -> None:
    planted = [shot.clip for shot in draft.shots]
    n = len(planted)
    size = rng.randint(max(15, n + 4), 80)
    decoys = []
    for i in range(rng.randint(3, min(10, size - n))):
        base = rng.choice(planted)
        variant = (
            ("orientation", "defect", "short")[i]
            if i < 3
            else rng.choice(("orientation", "defect", "short", "defect"))
        )
        clip = _clip(rng, draft, subject=base.subject, place=base.place)
        clip.quality = round(rng.uniform(0.75, 1.0), 2)  # decoys look attractive
        if variant == "orientation":
            clip.orientation = rng.choice(
                [o for o in ("portrait", "landscape", "square") if o != draft.orientation]
            )
        elif variant == "defect":
            clip.defect = rng.choice(DEFECTS)
        else:
            clip.duration = 2 * draft.fps
        decoys.append(clip)
    fillers = []
    for _ in range(size - n - len(decoys)):
        orientation = (
            draft.orientation
            if rng.random() < 0.8
            else rng.choice(("portrait", "landscape", "square"))
        )
        fillers.append(_clip(rng, draft, orientation=orientation))
    pool = planted + decoys + fillers
    rng.shuffle(pool)
    for i, clip in enumerate(pool):
        clip.id = f"c{i + 1:02d}"
    draft.pool = pool
