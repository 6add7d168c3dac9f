"""Example footage from a small JSON spec: files of several shots, and music with a beat.

The main job's example (``examples/surf-trip/media.json``) is made with ffmpeg on first
run instead of shipping binaries. A spec reads::

    {"fps": 30, "size": [640, 360],
     "files": [{"name": "footage/beach.mp4", "orientation": "landscape",
                "shots": [{"source": "testsrc2", "seconds": 3.0},
                          {"source": "mandelbrot", "seconds": 2.5, "transition": "dissolve"}]}],
     "music": [{"name": "music/track.wav", "bpm": 120, "seconds": 40.0}]}

Each shot is a lavfi source, tinted by its ``hue`` (degrees) so shots differ in colour; a
shot with ``"transition": "dissolve"`` fades in from the one before it over
``dissolve_s`` (default 0.5 s), any other starts on a hard cut. A track has a kick on every
beat, a stronger one on each bar's first beat, a hi-hat between beats and a bass note, so
beat trackers hear what a listener hears. Paths stay inside the spec's folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from protocol.media import SAMPLE_RATE, encoder_args, resolve_media, write_media

__all__ = ["FootageSpec", "find_spec", "generate_footage"]

SPEC_NAME = "media.json"


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ShotSpec(_Spec):
    source: str = Field(pattern=r"^[a-z0-9]+$")
    """A lavfi video source: testsrc2, smptebars, mandelbrot, cellauto, life, rgbtestsrc…"""
    seconds: float = Field(gt=0, le=600)
    hue: float = 0.0
    transition: Literal["cut", "dissolve"] = "cut"
    dissolve_s: float = Field(0.5, gt=0, le=5)


class FileSpec(_Spec):
    name: str = Field(min_length=1)
    orientation: Literal["landscape", "portrait", "square"] = "landscape"
    shots: list[ShotSpec] = Field(min_length=1, max_length=100)


class TrackSpec(_Spec):
    name: str = Field(min_length=1)
    bpm: float = Field(gt=30, le=300)
    seconds: float = Field(gt=0, le=1800)
    beats_per_bar: int = Field(4, ge=2, le=12)


class FootageSpec(_Spec):
    fps: int = Field(30, ge=1, le=120)
    size: tuple[int, int] = (640, 360)
    files: list[FileSpec] = []
    music: list[TrackSpec] = []

    @classmethod
    def load(cls, path: Path) -> FootageSpec:
        return cls.model_validate(json.loads(path.read_text()))


def find_spec(folder: Path) -> Path | None:
    """The ``media.json`` in ``folder`` or the folder above it (the example's own layout)."""
    for candidate in (folder / SPEC_NAME, folder.parent / SPEC_NAME):
        if candidate.is_file():
            return candidate
    return None


def generate_footage(spec_path: Path, *, overwrite: bool = False) -> list[Path]:
    """Write every file and track the spec at ``spec_path`` names; returns those written."""
    spec = FootageSpec.load(spec_path)
    root = spec_path.parent
    targets = [
        (resolve_media(item.name, root, param=f"{field}[{i}].name"), item)
        for field, items in (("files", spec.files), ("music", spec.music))
        for i, item in enumerate(items)
    ]  # every name is checked before anything is written
    written: list[Path] = []
    for path, item in targets:
        if path.exists() and not overwrite:
            continue
        if isinstance(item, FileSpec):
            args = _file_args(item, spec.fps, spec.size)
        else:
            args = _track_args(item)
        write_media(path, args, timeout_s=600.0)
        written.append(path)
    return written


def _frame_size(orientation: str, size: tuple[int, int]) -> tuple[int, int]:
    long, short = max(size), min(size)
    return {"portrait": (short, long), "square": (short, short)}.get(orientation, (long, short))


def _file_args(item: FileSpec, fps: int, size: tuple[int, int]) -> list[str]:
    width, height = _frame_size(item.orientation, size)
    inputs: list[str] = []
    for shot in item.shots:
        source = f"{shot.source}=s={width}x{height}:r={fps}"
        inputs += ["-f", "lavfi", "-t", f"{shot.seconds + 1:.6f}", "-i", source]
    steps = [
        f"[{i}:v]trim=end_frame={round(shot.seconds * fps)},setpts=PTS-STARTPTS,"
        f"hue=h={shot.hue:g},format=yuv420p,fps={fps},settb=1/{fps}[s{i}]"
        for i, shot in enumerate(item.shots)
    ]
    label, length = "s0", item.shots[0].seconds  # xfade holds a frame past its end: -frames:v
    for i, shot in enumerate(item.shots[1:], start=1):
        if shot.transition == "dissolve":
            offset = length - shot.dissolve_s
            steps.append(
                f"[{label}][s{i}]xfade=transition=fade:duration={shot.dissolve_s:g}"
                f":offset={offset:.6f}[j{i}]"
            )
            length += shot.seconds - shot.dissolve_s
        else:
            steps.append(f"[{label}][s{i}]concat=n=2:v=1:a=0,settb=1/{fps}[j{i}]")
            length += shot.seconds
        label = f"j{i}"
    return [
        *inputs, "-filter_complex", ";".join(steps), "-map", f"[{label}]",
        "-frames:v", str(round(length * fps)), *encoder_args(fps=fps), "-an",
    ]  # fmt: skip


def _track_args(item: TrackSpec) -> list[str]:
    beat = 60.0 / item.bpm
    bar = beat * item.beats_per_bar
    expr = (
        f"0.55*sin(2*PI*55*t)*exp(-18*mod(t,{beat:.6f}))"
        f"+0.35*sin(2*PI*50*t)*exp(-10*mod(t,{bar:.6f}))"
        f"+0.10*(2*random(0)-1)*exp(-70*mod(t+{beat / 2:.6f},{beat:.6f}))"
        f"+0.08*sin(2*PI*110*t)"
    )
    graph = f"aevalsrc=exprs='{expr}':s={SAMPLE_RATE}:d={item.seconds:.6f}"
    return ["-f", "lavfi", "-i", graph, "-c:a", "pcm_s16le", "-vn"]
