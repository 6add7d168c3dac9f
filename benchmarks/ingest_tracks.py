"""Music tracks with known beats, synthesised with numpy for ``python -m benchmarks ingest``.

Two styles, each with its own drum kit, bass and harmony, and a humanised performance
(hits land up to ±6 ms off the grid, velocities vary); the ground-truth beats are the grid:

- ``four_floor``: kick on every beat, snare/clap on 2 and 4, straight sixteenth hats with
  accents and an open hat on the off-beats, a bass line of eighths on the bar's root, a
  chord pad changing every bar, a crash on the first beat of every fourth bar.
- ``ballad``: sparse and syncopated. Kick on 1 and on the "and" of 2 (sometimes of 3),
  a rimshot/snare on 3 (half-time feel) with ghost notes on swung sixteenths, swung hats,
  a bass line that anticipates the next bar by an eighth, piano-like chord stabs on the
  bar's first beat and its "and" of 2.

Every track opens with an intro of a few seconds (a pad swell, no rhythm) which has no
ground-truth beats, then the groove; a bar is 4/4 and the downbeats are beats 0, 4, 8 …
of the groove.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soundfile

SR = 44_100
_MINOR = (0, 3, 7, 10)
_MAJOR = (0, 4, 7, 11)
_PROGRESSIONS = ((0, 5, 3, 4), (0, 3, 5, 4), (0, 4, 5, 3), (0, 5, 2, 4))
"""Scale degrees (semitones from the key below) of the bar roots, one chord a bar."""
_DEGREES = (0, 2, 3, 5, 7, 8, 10)


@dataclass(frozen=True)
class TrackSpec:
    name: str
    style: str
    bpm: float
    seconds: float
    intro_s: float
    key_hz: float
    seed: int


@dataclass
class TrackTruth:
    """Where a generated track is and its ground truth (seconds)."""

    name: str
    path: Path
    style: str
    bpm: float
    duration_s: float
    beats_s: list[float] = field(default_factory=list)
    downbeats_s: list[float] = field(default_factory=list)


def default_specs(count: int = 8, seconds: float = 30.0) -> list[TrackSpec]:
    """``count`` tracks at tempi spread over 70–170 BPM, alternating styles and timbres."""
    tempi = (72.0, 166.0, 96.0, 128.0, 84.0, 140.0, 110.0, 152.0)
    styles = ("ballad", "ballad", "four_floor", "four_floor", "ballad", "four_floor")
    specs = []
    for i in range(count):
        bpm = tempi[i % len(tempi)] + 3.0 * (i // len(tempi))
        style = styles[i % len(styles)] if i < len(styles) else ("ballad", "four_floor")[i % 2]
        specs.append(
            TrackSpec(
                name=f"track{i + 1:02d}_{style}_{bpm:g}",
                style=style,
                bpm=bpm,
                seconds=seconds,
                intro_s=(0.0, 2.5, 4.0, 1.2)[i % 4],
                key_hz=(55.0, 61.7, 49.0, 65.4, 58.3, 51.9)[i % 6],
                seed=1000 + i,
            )
        )
    return specs


# ----------------------------------------------------------------------------- voices


def _env(n: int, decay: float) -> np.ndarray:
    return np.exp(-np.arange(n) / SR * decay)


def _kick(rng: np.random.Generator, tone: float) -> np.ndarray:
    n = int(0.35 * SR)
    t = np.arange(n) / SR
    freq = tone + 110.0 * np.exp(-t * 30)
    body = np.sin(2 * np.pi * np.cumsum(freq) / SR) * _env(n, 9)
    click = rng.standard_normal(n) * _env(n, 400) * 0.3
    return body + click


def _snare(rng: np.random.Generator, tone: float, decay: float) -> np.ndarray:
    n = int(0.3 * SR)
    noise = np.diff(rng.standard_normal(n + 1)) * 0.5
    body = np.sin(2 * np.pi * tone * np.arange(n) / SR)
    return (noise * _env(n, decay) + 0.6 * body * _env(n, 25)) * 0.8


def _hat(rng: np.random.Generator, length: float) -> np.ndarray:
    n = int(length * SR)
    noise = np.diff(np.diff(rng.standard_normal(n + 2)))
    return noise * _env(n, 6.0 / length) * 0.12


def _tone(freq: float, seconds: float, *, harmonics: int, decay: float, attack: float = 0.005):
    n = int(seconds * SR)
    t = np.arange(n) / SR
    wave = sum(np.sin(2 * np.pi * freq * k * t) / k**1.3 for k in range(1, harmonics + 1))
    rise = np.minimum(1.0, t / attack)
    return wave * rise * np.exp(-t * decay)


def _chord(root: float, quality: tuple[int, ...], seconds: float, **kw) -> np.ndarray:
    notes = [root * 4 * 2 ** (s / 12) for s in quality]
    return sum(_tone(f, seconds, **kw) for f in notes) / len(notes)


class _Mix:
    def __init__(self, seconds: float, rng: np.random.Generator, jitter_s: float) -> None:
        self.y = np.zeros(int(seconds * SR) + SR)
        self.rng = rng
        self.jitter = jitter_s

    def add(self, at_s: float, sound: np.ndarray, gain: float, *, humanise: bool = True):
        if humanise:
            at_s += self.rng.uniform(-self.jitter, self.jitter)
            gain *= self.rng.uniform(0.85, 1.1)
        start = max(0, round(at_s * SR))
        end = min(self.y.size, start + sound.size)
        if end > start:
            self.y[start:end] += gain * sound[: end - start]


# ----------------------------------------------------------------------------- styles


def _four_floor(mix: _Mix, spec: TrackSpec, grid: np.ndarray, roots: list[float]) -> None:
    rng, beat = mix.rng, 60.0 / spec.bpm
    kick = _kick(rng, tone=rng.uniform(42, 55))
    snare = _snare(rng, tone=rng.uniform(170, 230), decay=rng.uniform(14, 22))
    closed, open_hat = _hat(rng, 0.05), _hat(rng, 0.25)
    for i, b in enumerate(grid):
        bar, pos = divmod(i, 4)
        root = roots[bar % len(roots)]
        mix.add(b, kick, 0.9)
        if pos in (1, 3):
            mix.add(b, snare, 0.55)
        for s in range(4):
            mix.add(b + s * beat / 4, closed, (0.7, 0.35, 0.5, 0.35)[s])
        mix.add(b + beat / 2, open_hat, 0.4)
        for e in range(2):
            bass = _tone(root, beat / 2 * 0.9, harmonics=4, decay=6)
            mix.add(b + e * beat / 2, bass, 0.28 if pos or e else 0.34)
        if pos == 0:
            pad = _chord(root, _MINOR, 4 * beat, harmonics=3, decay=0.4, attack=0.05)
            mix.add(b, pad, 0.22, humanise=False)
            if bar % 4 == 0:
                mix.add(b, _hat(rng, 1.2) * 3.0, 0.45)


def _ballad(mix: _Mix, spec: TrackSpec, grid: np.ndarray, roots: list[float]) -> None:
    rng, beat = mix.rng, 60.0 / spec.bpm
    swing = beat * rng.uniform(0.08, 0.12)  # the off-beat sixteenth/eighth comes late
    kick = _kick(rng, tone=rng.uniform(38, 50))
    snare = _snare(rng, tone=rng.uniform(250, 330), decay=rng.uniform(25, 40))
    hat = _hat(rng, 0.08)
    quality = _MAJOR if spec.seed % 2 else _MINOR
    for i, b in enumerate(grid):
        bar, pos = divmod(i, 4)
        root = roots[bar % len(roots)]
        following = roots[(bar + 1) % len(roots)]
        if pos == 0:
            mix.add(b, kick, 0.85)
            stab = _chord(root, quality, 2.5 * beat, harmonics=6, decay=1.6)
            mix.add(b, stab, 0.4)
            mix.add(b + 1.5 * beat + swing, stab, 0.22)
            mix.add(b, _tone(root, 1.4 * beat, harmonics=3, decay=2.5), 0.45)
        if pos == 1:
            mix.add(b + beat / 2 + swing, kick, 0.6)
        if pos == 2:
            mix.add(b, snare, 0.6)
            if bar % 2:
                mix.add(b + beat / 2 + swing, kick, 0.5)
        if pos == 3:
            mix.add(b + beat / 2 + swing, _tone(following, beat, harmonics=3, decay=3), 0.35)
        for s, gain in enumerate((0.45, 0.0, 0.3, 0.0)):
            if gain:
                mix.add(b + s * beat / 4 + (swing if s == 2 else 0.0), hat, gain)
        if rng.random() < 0.35:
            mix.add(b + 3 * beat / 4 + swing / 2, snare, 0.12)  # ghost note


def synthesise(spec: TrackSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Samples at :data:`SR`, the beats and the downbeats (seconds) of one track."""
    rng = np.random.default_rng(spec.seed)
    mix = _Mix(spec.seconds, rng, jitter_s=0.006)
    beat = 60.0 / spec.bpm
    bars = int((spec.seconds - spec.intro_s - 0.5) / (4 * beat))
    grid = spec.intro_s + beat * np.arange(4 * bars)
    progression = _PROGRESSIONS[spec.seed % len(_PROGRESSIONS)]
    roots = [spec.key_hz * 2 ** (_DEGREES[d % 7] / 12) for d in progression]
    if spec.intro_s > 0:
        swell = _chord(roots[0], _MINOR, spec.intro_s + beat, harmonics=2, decay=0.0)
        swell *= np.minimum(1.0, np.arange(swell.size) / (spec.intro_s * SR))
        mix.add(0.0, swell, 0.25, humanise=False)
    (_four_floor if spec.style == "four_floor" else _ballad)(mix, spec, grid, roots)
    y = mix.y[: int(spec.seconds * SR)]
    y = np.tanh(1.2 * y / max(1e-9, np.percentile(np.abs(y), 99.9))) * 0.7
    return y.astype(np.float32), grid, grid[::4]


def write_tracks(folder: Path, specs: list[TrackSpec]) -> list[TrackTruth]:
    """Write every spec as ``<folder>/<name>.wav`` (16-bit, 44.1 kHz) with its ground truth."""
    folder.mkdir(parents=True, exist_ok=True)
    truths = []
    for spec in specs:
        samples, beats, downbeats = synthesise(spec)
        path = folder / f"{spec.name}.wav"
        soundfile.write(path, samples, SR, subtype="PCM_16")
        truths.append(
            TrackTruth(
                name=spec.name,
                path=path,
                style=spec.style,
                bpm=spec.bpm,
                duration_s=samples.size / SR,
                beats_s=[round(float(b), 4) for b in beats],
                downbeats_s=[round(float(b), 4) for b in downbeats],
            )
        )
    return truths
