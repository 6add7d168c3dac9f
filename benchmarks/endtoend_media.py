"""A shoot and a track with known truth for ``python -m benchmarks endtoend``.

The shoot is :data:`SHOOT_FILES` files of about :data:`FILE_S` seconds each (ten minutes
in all), drawn by the ingest benchmark's generator (:mod:`benchmarks.ingest_media`: lavfi
scenes, hard cuts and ``xfade`` dissolves, handheld and dark looks) at 1280×720, every
fifth file in portrait (720×1280). Each file is named after what it shows
(``beach_01.mp4``, ``sunset_harbour_04.mp4``…), which is where the planner's captions and
tags come from when no sidecar or vision model gives them. The track is one
:mod:`benchmarks.ingest_tracks` track of three minutes at 120 BPM.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from pathlib import Path

from benchmarks.ingest_media import FileSpec, FileTruth, Segment, _scaled, _write_file
from benchmarks.ingest_tracks import TrackSpec, TrackTruth, write_tracks

__all__ = ["FILE_S", "SHOOT_FILES", "Shoot", "shoot_specs", "write_shoot"]

SHOOT_FILES = 20
FILE_S = 30.0
FPS = 30
TRACK = TrackSpec("track_120", "four_floor", 120.0, 180.0, 1.2, 55.0, seed=4242)
_SCENES = ("testsrc2", "bars", "mandelbrot", "gradients", "life", "cellauto", "caption")
_TOPICS = (
    "beach", "surf", "harbour", "market", "street", "cafe", "hills", "forest", "river",
    "bridge", "boat", "tram", "garden", "rooftop", "station", "festival", "lighthouse",
    "crowd", "dunes", "pier",
)  # fmt: skip


@dataclass
class Shoot:
    footage: list[FileTruth]
    track: TrackTruth


def _segments(rng: random.Random, frames: int, look: str) -> tuple[Segment, ...]:
    """Shots of 3–7 s, a different scene and hue each time, about one in three entered
    by a dissolve of 0.5–1 s; the last shot (3–10 s) fills the file to ``frames``."""
    segments: list[Segment] = []
    used, scene = 0, ""
    while frames - used > 10 * FPS:
        scene = rng.choice([s for s in _SCENES if s != scene])
        length = rng.randrange(3 * FPS, 7 * FPS)
        dissolve = rng.choice((0.5, 0.8, 1.0)) if segments and rng.random() < 0.35 else 0.0
        hue = rng.randrange(0, 360, 30)
        segments.append(Segment(scene, length, dissolve_s=dissolve, hue=hue, look=look))
        used += length - round(dissolve * FPS)
    scene = rng.choice([s for s in _SCENES if s != scene])
    segments.append(Segment(scene, frames - used, hue=rng.randrange(0, 360, 30), look=look))
    return tuple(segments)


def shoot_specs(files: int = SHOOT_FILES, file_s: float = FILE_S) -> list[FileSpec]:
    """The shoot: ``files`` files of ``file_s`` seconds (deterministic). Every fifth file
    is portrait, every fourth handheld, every seventh shot at night (dark); the sunset
    files (every sixth) close the day."""
    rng = random.Random(20261207)
    specs = []
    for i in range(files):
        look = "handheld" if i % 4 == 3 else "dark" if i % 7 == 5 else "plain"
        topic = _TOPICS[i % len(_TOPICS)]
        prefix = "sunset_" if i % 6 == 4 else "night_" if look == "dark" else ""
        name = f"{prefix}{topic}_{i + 1:02d}"
        width, height = (720, 1280) if i % 5 == 2 else (1280, 720)
        specs.append(FileSpec(name, width, height, FPS, _segments(rng, round(file_s * FPS), look)))
    return specs


def write_shoot(
    folder: Path,
    *,
    files: int = SHOOT_FILES,
    file_s: float = FILE_S,
    scale: float = 1.0,
    track_s: float = TRACK.seconds,
    timeout_s: float = 1800.0,
) -> Shoot:
    """Write the shoot under ``<folder>/footage`` and the track under ``<folder>/music``
    (files already written from the same filter graph are kept) and return their truth."""
    footage = [
        _write_file(
            _scaled(spec, scale), folder / "footage" / f"{spec.name}.mp4", timeout_s, reuse=True
        )
        for spec in shoot_specs(files, file_s)
    ]
    track_spec = dataclasses.replace(TRACK, seconds=track_s)
    (track,) = write_tracks(folder / "music", [track_spec])
    return Shoot(footage, track)
