"""Footage and music with known ground truth for ``python -m benchmarks ingest``.

Footage is drawn by ffmpeg's lavfi sources (testsrc2, SMPTE bars with moving captions,
mandelbrot zooms, gradients, life, cellular automata, colour fields with moving text and
sensor grain), joined by hard cuts and ``xfade`` dissolves. Ground truth per file: the cut
frames (a dissolve's cut is its midpoint, as the planner places it) and per shot the
tags it must get (``shaky``, ``dark``, ``slowmo``) and the file's orientation. The set
holds handheld/tripod pairs (the same scenes through a jittering crop and a steady one),
night/day pairs (the same scenes darkened and lit), portrait and landscape files, 1280×720
files and one at 60 fps. Music comes from :mod:`benchmarks.ingest_tracks`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.ingest_tracks import TrackTruth, default_specs, write_tracks
from protocol.media import ffmpeg_binary

__all__ = ["FOOTAGE", "FileTruth", "MediaTruth", "Segment", "ShotTruth", "generate"]

_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


@dataclass(frozen=True)
class Segment:
    """One shot: a lavfi scene name, its length in frames, how it is entered."""

    scene: str
    frames: int
    dissolve_s: float = 0.0  # > 0: a dissolve of that length from the previous shot
    hue: int = 0
    look: str = "plain"  # plain | handheld | dark


@dataclass(frozen=True)
class FileSpec:
    name: str
    width: int
    height: int
    fps: int
    segments: tuple[Segment, ...]


@dataclass
class ShotTruth:
    start_frame: int
    end_frame: int
    scene: str
    tags: list[str]


@dataclass
class FileTruth:
    name: str
    path: Path
    fps: int
    width: int
    height: int
    frames: int
    orientation: str
    cuts: list[int]
    dissolves: list[int]
    shots: list[ShotTruth] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        return self.frames / self.fps


@dataclass
class MediaTruth:
    footage: list[FileTruth]
    tracks: list[TrackTruth]

    def as_dict(self) -> dict[str, Any]:
        raw = asdict(self)
        for item in (*raw["footage"], *raw["tracks"]):
            item["path"] = str(item["path"])
        return raw


def _s(seconds: float, fps: int = 30) -> int:
    return round(seconds * fps)


def _pair(look: str, scenes: tuple[str, str], fps: int = 30) -> tuple[Segment, ...]:
    return (
        Segment(scenes[0], _s(4.0, fps), look=look),
        Segment(scenes[1], _s(3.5, fps), hue=200, look=look),
    )


FOOTAGE: tuple[FileSpec, ...] = (
    FileSpec("city_cuts", 1280, 720, 30, (
        Segment("testsrc2", _s(3.0)), Segment("bars", _s(2.5)), Segment("mandelbrot", _s(3.0)),
        Segment("gradients", _s(2.0)), Segment("life", _s(2.5)),
        Segment("caption", _s(2.0), hue=40), Segment("testsrc2", _s(2.5), hue=150),
    )),
    FileSpec("travel_dissolves", 1280, 720, 30, (
        Segment("gradients", _s(3.0), hue=90), Segment("mandelbrot", _s(3.0), dissolve_s=1.0),
        Segment("testsrc2", _s(3.0), dissolve_s=0.5), Segment("cellauto", _s(2.5)),
        Segment("caption", _s(3.0), dissolve_s=0.8, hue=300),
    )),
    FileSpec("walk_handheld", 1280, 720, 30, _pair("handheld", ("testsrc2", "caption"))),
    FileSpec("walk_tripod", 1280, 720, 30, _pair("plain", ("testsrc2", "caption"))),
    FileSpec("street_night", 1280, 720, 30, _pair("dark", ("gradients", "bars"))),
    FileSpec("street_day", 1280, 720, 30, _pair("plain", ("gradients", "bars"))),
    FileSpec("phone_portrait", 720, 1280, 30, (
        Segment("bars", _s(2.5)), Segment("mandelbrot", _s(2.5), hue=60),
        Segment("gradients", _s(2.5), dissolve_s=0.6),
        Segment("life", _s(2.5), look="handheld"),
    )),
    FileSpec("surf_slowmo", 1280, 720, 60, (
        Segment("testsrc2", _s(2.5, 60), hue=20), Segment("gradients", _s(2.0, 60), hue=180),
        Segment("mandelbrot", _s(2.0, 60), hue=250),
    )),
    FileSpec("market_mixed", 960, 540, 25, (
        Segment("caption", _s(2.0, 25), hue=120), Segment("life", _s(2.5, 25), look="dark"),
        Segment("testsrc2", _s(3.0, 25), dissolve_s=1.0, hue=270),
        Segment("bars", _s(2.0, 25), hue=330),
    )),
)  # fmt: skip


def _scene(seg: Segment, w: int, h: int, fps: int) -> str:
    """The lavfi graph of one scene at ``w``×``h`` (before its look)."""
    small = f"{max(8, w // 8 * 2)}x{max(8, h // 8 * 2)}"
    up = f"scale={w}:{h}:flags=neighbor"
    text = ""
    if _FONT.is_file():
        text = (
            f",drawtext=fontfile={_FONT}:text='Refinery {seg.scene}':fontcolor=white"
            f":fontsize={max(8, h // 12)}:x=mod(t*{w // 5}\\,{w})-tw/2:y=h*0.7"
        )
    graphs = {
        "testsrc2": f"testsrc2=s={w}x{h}:r={fps}",
        "bars": f"smptehdbars=s={w}x{h}:r={fps}{text}",
        "mandelbrot": f"mandelbrot=s={small}:r={fps},scale={w}:{h}",
        "gradients": f"gradients=s={w}x{h}:r={fps}:speed=0.03:n=4",
        "life": f"life=s={small}:r={fps}:ratio=0.3:life_color=#ffcc33:death_color=#4f7cac,{up}",
        "cellauto": f"cellauto=s={small}:r={fps}:rule=30:scroll=1,{up}",
        "caption": f"color=c=#3a6ea5:s={w}x{h}:r={fps}{text},noise=alls=10:allf=t",
    }
    return graphs[seg.scene] + (f",hue=h={seg.hue}" if seg.hue else "")


def _look(seg: Segment, w: int, h: int, fps: int) -> str:
    """Handheld: the scene drawn 12 % larger and cropped by a swaying, trembling window
    (about 2.5 % of the width of sway at 0.7–1.9 Hz, 0.5 % tremor at 7–11 Hz); dark: the
    scene at a fifth of its brightness, as a night shot."""
    if seg.look == "handheld":
        bw, bh = round(w * 1.12) // 2 * 2, round(h * 1.12) // 2 * 2
        sway, tremor = 0.025 * w, 0.005 * w
        x = (f"(iw-ow)/2+{sway:.1f}*sin(t*4.4)+{sway * 0.6:.1f}*sin(t*11.9+1)"
             f"+{tremor:.1f}*sin(t*47)+{tremor * 0.7:.1f}*sin(t*69+2)")  # fmt: skip
        y = (f"(ih-oh)/2+{sway * 0.7:.1f}*sin(t*5.3+2)+{sway * 0.4:.1f}*sin(t*9.7)"
             f"+{tremor:.1f}*sin(t*55+1)")  # fmt: skip
        base = _scene(seg, bw, bh, fps)
        return f"{base},crop={w}:{h}:x='{x}':y='{y}'"
    scene = _scene(seg, w, h, fps)
    if seg.look == "dark":
        return f"{scene},eq=brightness=-0.12:contrast=0.55:gamma=0.6,noise=alls=6:allf=t"
    return scene


def _truth_tags(seg: Segment, fps: int) -> list[str]:
    tags = {"handheld": ["shaky"], "dark": ["dark"]}.get(seg.look, [])
    return tags + (["slowmo"] if fps >= 50 else [])


def _graph(spec: FileSpec) -> tuple[str, list[int], list[int], list[ShotTruth], int]:
    """The filter graph joining the segments, and cuts, dissolves, shots and frame count."""
    fps, parts, cuts, dissolves, shots = spec.fps, [], [], [], []
    length = 0  # frames so far in the joined stream
    start = 0
    for i, seg in enumerate(spec.segments):
        scene = _look(seg, spec.width, spec.height, fps)
        parts.append(f"{scene},trim=end_frame={seg.frames},setpts=N/({fps}*TB),"
                     "format=yuv420p,setsar=1,"
                     f"settb=1/{fps}[s{i}]")  # fmt: skip
        if i == 0:
            length = seg.frames
            continue
        prev, out = ("s0" if i == 1 else f"j{i - 1}"), f"j{i}"
        if seg.dissolve_s > 0:
            d = round(seg.dissolve_s * fps)
            parts.append(f"[{prev}][s{i}]xfade=transition=fade:duration={d / fps:.6f}:"
                         f"offset={(length - d) / fps:.6f}[{out}]")  # fmt: skip
            cut = round(length - d / 2)
            dissolves.append(cut)
            length += seg.frames - d
        else:
            parts.append(f"[{prev}][s{i}]concat=n=2:v=1,settb=1/{fps}[{out}]")
            cut = length
            length += seg.frames
        cuts.append(cut)
        shots.append(ShotTruth(start, cut, spec.segments[i - 1].scene,
                               _truth_tags(spec.segments[i - 1], fps)))  # fmt: skip
        start = cut
    last = spec.segments[-1]
    shots.append(ShotTruth(start, length, last.scene, _truth_tags(last, fps)))
    return ";".join(parts), cuts, dissolves, shots, length


def _write_file(spec: FileSpec, path: Path, timeout_s: float, *, reuse: bool) -> FileTruth:
    graph, cuts, dissolves, shots, frames = _graph(spec)
    orientation = "portrait" if spec.height > spec.width else "landscape"
    truth = FileTruth(spec.name, path, spec.fps, spec.width, spec.height, frames, orientation,
                      cuts, dissolves, shots)  # fmt: skip
    stamp = path.with_suffix(".graph")
    if reuse and path.is_file() and stamp.is_file() and stamp.read_text() == graph:
        return truth
    final = "s0" if len(spec.segments) == 1 else f"j{len(spec.segments) - 1}"
    inputs: list[str] = []
    chains = []
    for part in graph.split(";"):
        if part.startswith("["):
            chains.append(part)
        else:  # a scene: its source becomes an input, the rest filters it
            source, _, rest = part.partition(",")
            chains.append(f"[{len(inputs) // 4}]{rest}")
            inputs += ["-f", "lavfi", "-i", source]
    path.parent.mkdir(parents=True, exist_ok=True)
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y", *inputs,
            "-filter_complex", ";".join(chains), "-map", f"[{final}]", "-frames:v", str(frames),
            "-r", str(spec.fps), "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
            "-g", str(2 * spec.fps), "-pix_fmt", "yuv420p", "-an", str(path)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ffmpeg could not write {path.name}: {done.stderr.strip()[-800:]}")
    stamp.write_text(graph)
    return truth


def _scaled(spec: FileSpec, scale: float) -> FileSpec:
    if scale == 1.0:
        return spec
    w, h = (max(16, round(v * scale / 2) * 2) for v in (spec.width, spec.height))
    return FileSpec(spec.name, w, h, spec.fps, spec.segments)


def generate(
    folder: Path,
    *,
    files: Sequence[str] | None = None,
    scale: float = 1.0,
    tracks: int = 8,
    track_seconds: float = 30.0,
    timeout_s: float = 300.0,
    reuse: bool = True,
) -> MediaTruth:
    """Write footage (``<folder>/footage/<name>.mp4``) and music (``<folder>/music/*.wav``)
    and return their ground truth. ``files`` picks footage by name (all by default);
    ``scale`` shrinks every frame size (1.0: as specified, most files 1280×720). With
    ``reuse``, a file already written from the same filter graph is kept."""
    chosen = [s for s in FOOTAGE if files is None or s.name in files]
    unknown = set(files or ()) - {s.name for s in FOOTAGE}
    if unknown:
        raise ValueError(f"unknown footage {sorted(unknown)}; known: {[s.name for s in FOOTAGE]}")
    footage = [
        _write_file(
            _scaled(spec, scale), folder / "footage" / f"{spec.name}.mp4", timeout_s, reuse=reuse
        )
        for spec in chosen
    ]
    music = write_tracks(folder / "music", default_specs(tracks, track_seconds))
    return MediaTruth(footage, music)
