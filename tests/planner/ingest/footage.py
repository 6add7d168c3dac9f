"""Tiny generated footage with known content, written by real ffmpeg (lavfi sources).

Every file is 320×180 (180×320 portrait) H.264 at 30 fps unless said otherwise; the cut
frames of the multi-shot files are exact (concat) or the midpoint of an ``xfade``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from protocol.media import ffmpeg_binary

FPS = 30
SIZE = "320x180"
SOURCES = {
    "bars": f"smptebars=s={SIZE}:r={FPS}",
    "test": f"testsrc2=s={SIZE}:r={FPS}",
    "fractal": f"mandelbrot=s={SIZE}:r={FPS}",
    "teal": f"color=c=teal:s={SIZE}:r={FPS}",
    "life": (
        f"life=s=90x50:r={FPS}:mold=10:ratio=0.3,scale=360x200:flags=neighbor,"
        "crop=320:180:20+16*(random(1)-0.5):10+12*(random(2)-0.5)"
    ),
}


def ffmpeg(args: list[str], out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y", *args]
    argv += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-an", str(out)]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    return out


def ffmpeg_intra(args: list[str], out: Path) -> Path:
    """As :func:`ffmpeg`, every frame a keyframe (Motion JPEG)."""
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y", *args]
    argv += ["-c:v", "mjpeg", "-q:v", "4", "-pix_fmt", "yuvj420p", "-an", str(out)]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    return out


def source(name: str, seconds: float) -> list[str]:
    graph = f"{SOURCES[name]},trim=duration={seconds},format=yuv420p,settb=1/{FPS}"
    return ["-f", "lavfi", "-i", graph]


def hard_cuts(out: Path, names: tuple[str, ...] = ("test", "bars", "fractal"), seconds=2.0):
    """Shots of ``seconds`` each joined by cuts: cuts at frames 60, 120 … (30 fps)."""
    inputs = [arg for name in names for arg in source(name, seconds)]
    graph = "".join(f"[{i}]" for i in range(len(names))) + f"concat=n={len(names)}:v=1[v]"
    return ffmpeg([*inputs, "-filter_complex", graph, "-map", "[v]"], out)


def dissolve(out: Path, *, a="test", b="fractal", offset=1.5, duration=1.0, seconds=4.0):
    """``a`` dissolving into ``b`` from ``offset`` for ``duration`` s: the cut is the middle."""
    graph = f"[0][1]xfade=transition=fade:duration={duration}:offset={offset}[v]"
    return ffmpeg([*source(a, seconds), *source(b, seconds), "-filter_complex", graph,
                   "-map", "[v]"], out)  # fmt: skip


def mixed(out: Path) -> tuple[Path, list[int]]:
    """test 2 s | cut | bars 2 s, its last second dissolving into fractal 2.5 s | cut |
    teal 1.5 s: cuts at frames 60, 105 (the dissolve's middle) and 165; 210 frames."""
    graph = (
        f"[0][1]concat=n=2:v=1,settb=1/{FPS}[ab];"
        "[ab][2]xfade=transition=fade:duration=1:offset=3[abc];"
        "[abc][3]concat=n=2:v=1[v]"
    )
    args = [*source("test", 2), *source("bars", 2), *source("fractal", 2.5), *source("teal", 1.5)]
    path = ffmpeg([*args, "-filter_complex", graph, "-map", "[v]"], out)
    return path, [60, 105, 165]


def still(out: Path, *, vf: str, name: str = "test", seconds: float = 2.0, size="360x200"):
    """One shot of ``name`` through the filter ``vf`` (e.g. a jittered crop, a darkening)."""
    src = SOURCES[name].replace(SIZE, size)
    return ffmpeg(["-f", "lavfi", "-i", f"{src},trim=duration={seconds}", "-vf", vf], out)


def shaky(out: Path, seconds: float = 3.0) -> Path:
    """Handheld: the 320×180 window jumps up to ±8 px (x) and ±6 px (y) every frame."""
    return still(out, vf="crop=320:180:20+16*(random(1)-0.5):10+12*(random(2)-0.5)",
                 seconds=seconds)  # fmt: skip


def tripod(out: Path, seconds: float = 3.0) -> Path:
    return still(out, vf="crop=320:180:20:10", seconds=seconds)


def pan(out: Path, seconds: float = 3.0) -> Path:
    """A steady pan of 2 px a frame (even steps: chroma-aligned): moving, but not shaky."""
    return still(out, vf="crop=320:180:2*n:10", seconds=seconds, size="560x200")


def dark(out: Path, brightness: float = -0.35) -> Path:
    return still(out, vf=f"scale=320:180,eq=brightness={brightness}")


def lit(out: Path) -> Path:
    return still(out, vf="scale=320:180")


def portrait(out: Path) -> Path:
    """Stored portrait (a transposed landscape source)."""
    return still(out, vf="scale=320:180,transpose=1")


def rotated(out: Path) -> Path:
    """Stored landscape with a display matrix of a quarter turn clockwise (as a phone held
    upright writes it): shown portrait."""
    plain = lit(out.with_name(".plain_" + out.name))
    subprocess.run(
        [ffmpeg_binary(), "-hide_banner", "-loglevel", "error", "-y",
         "-display_rotation", "-90", "-i", str(plain), "-c", "copy", str(out)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    plain.unlink()
    return out


def slowmo(out: Path) -> Path:
    src = SOURCES["test"].replace(f"r={FPS}", "r=60")
    return ffmpeg(["-f", "lavfi", "-i", f"{src},trim=duration=1"], out)
