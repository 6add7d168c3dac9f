"""Media on disk: resolve task URIs safely under one root, drive ffmpeg, make example media.

Every path a render or an export opens comes through :func:`resolve_media`, so no URI
in a task can reach outside the media root (``..``, absolute paths, symlinks, ``http:``).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.resources
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import IO
from urllib.parse import unquote, urlsplit

from protocol.media_errors import (
    FfmpegUnavailable,
    MediaNotFound,
    MediaOutsideRoot,
    RenderFailed,
)
from services.verifier.pool import Clip, MusicTrack, Orientation
from services.verifier.task import Task

__all__ = [
    "FFMPEG_ENV",
    "SAMPLE_RATE",
    "ffmpeg_binary",
    "generate_example_media",
    "resolve_media",
    "run_child",
    "run_ffmpeg",
    "video_encoder",
    "write_media",
]

SAMPLE_RATE = 44100
_PATTERNS = ("testsrc2", "smptebars", "rgbtestsrc", "smptehdbars", "testsrc", "color")
_COLORS = ("teal", "orange", "purple", "olive", "navy", "maroon")


def resolve_media(
    uri: str, media_root: Path, *, param: str | None = None, must_exist: bool = False
) -> Path:
    """The file a task URI names, guaranteed to lie inside ``media_root``.

    ``media/c01.mp4`` → ``<root>/media/c01.mp4``; ``file:///<root>/x.wav`` is accepted;
    ``../x``, ``/etc/passwd``, ``http://…`` and symlinks leading out raise
    :class:`MediaOutsideRoot` (naming ``param``, e.g. ``clips[3].uri``).
    """

    def refuse(why: str) -> MediaOutsideRoot:
        return MediaOutsideRoot(f"media URI {uri!r} {why}", param=param, context={"uri": uri})

    if not uri or "\x00" in uri:
        raise refuse("is empty or malformed")
    parts = urlsplit(uri)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
            raise refuse("is not a local file URI")
        raw = unquote(parts.path)
    elif parts.scheme:
        raise refuse(f"uses the {parts.scheme}: scheme; only paths and file: URIs are allowed")
    else:
        raw = uri
    root = Path(media_root).resolve()
    candidate = Path(raw)
    if ".." in candidate.parts:
        raise refuse("climbs out with '..'")
    resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not resolved.is_relative_to(root):
        raise refuse(f"resolves outside the media root {root}")
    if must_exist and not resolved.is_file():
        raise MediaNotFound(f"no media file at {resolved} for {uri!r}", param=param)
    return resolved


FFMPEG_ENV = "REFINERY_FFMPEG"
"""The setting that names another ffmpeg binary (a path) in place of the wheel's."""


def ffmpeg_binary() -> str:
    """The one ffmpeg every render, probe, analysis and test runs.

    The static build the ``imageio-ffmpeg`` wheel ships (the planner extra installs it),
    whatever other ffmpeg is on the PATH: one binary, one behaviour, on a fresh machine and
    on one with a distribution's ffmpeg alike. ``REFINERY_FFMPEG`` may name another binary.
    :class:`FfmpegUnavailable` when there is neither.
    """
    named = os.environ.get(FFMPEG_ENV)
    if named:
        found = shutil.which(named)
        if found is None:
            raise FfmpegUnavailable(f"{FFMPEG_ENV}={named!r} names no executable file")
        return found
    found = _bundled_ffmpeg()
    if found is None:
        raise FfmpegUnavailable(
            f"no ffmpeg: pip install imageio-ffmpeg (the planner extra), or set {FFMPEG_ENV}"
        )
    return found


@functools.cache
def _bundled_ffmpeg() -> str | None:
    """The binary inside the wheel's ``binaries`` folder, or None (no wheel, or none for this
    platform). Not ``get_ffmpeg_exe``: it prefers ``IMAGEIO_FFMPEG_EXE`` and falls back to
    an ffmpeg on the PATH."""
    try:
        folder = importlib.resources.files("imageio_ffmpeg.binaries")
    except ModuleNotFoundError:
        return None
    found = sorted(
        str(entry) for entry in folder.iterdir()
        if entry.name.startswith("ffmpeg") and entry.is_file()
    )  # fmt: skip
    return found[0] if found else None


@functools.cache
def video_encoder() -> str:
    """``libx264`` when this ffmpeg has it, else ``mpeg4`` (asked once per process)."""
    listing = subprocess.run(
        [ffmpeg_binary(), "-hide_banner", "-encoders"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return "libx264" if " libx264 " in listing else "mpeg4"


def encoder_args(*, fps: int) -> list[str]:
    """Fast H.264 (or MPEG-4 part 2) settings with a keyframe every second."""
    if video_encoder() == "libx264":
        return ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", str(fps)]
    return ["-c:v", "mpeg4", "-q:v", "4", "-pix_fmt", "yuv420p", "-g", str(fps)]


_PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` on Linux (looked up before any fork), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking the kernel to SIGKILL the child when its parent dies.

    The signal follows the *thread* that started the child, which here is the one waiting
    for it. If the parent died between ``fork`` and ``prctl``, the child exits at once.
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def setup() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return setup


def _kill_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
    proc.kill()  # reaches it even where it could not start its own group


def run_child(argv: list[str], *, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (no shell) so that it cannot outlive us, capturing its output.

    The child gets its own process group and, on Linux, a parent-death signal: a planner
    killed mid-render takes its ffmpeg with it. Past ``timeout_s`` (or on any exception in
    the waiting thread) the whole group is killed and reaped before
    :class:`subprocess.TimeoutExpired` (or that exception) propagates.
    """
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_die_with_parent(),  # one prctl call, nothing that could deadlock
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        _kill_group(proc)
        stdout, stderr = proc.communicate()
        raise subprocess.TimeoutExpired(argv, timeout_s, output=stdout, stderr=stderr) from exc
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def run_ffmpeg(
    argv: list[str],
    *,
    timeout_s: float,
    what: str = "ffmpeg",
    on_time: Callable[[float], None] | None = None,
) -> None:
    """Run one ffmpeg argv (no shell); :class:`RenderFailed` with its stderr tail on failure.
    See :func:`run_child`: the ffmpeg dies with us and is killed, group and all, on timeout.

    ``on_time`` hears ffmpeg's own ``-progress`` reports: the output time written so far
    (seconds), several times a second and once at the end; what it raises stops ffmpeg
    and propagates."""
    try:
        if on_time is None:
            done = run_child(argv, timeout_s=timeout_s)
        else:
            done = _run_reporting(argv, timeout_s=timeout_s, on_time=on_time)
    except subprocess.TimeoutExpired as exc:
        tail = _tail(exc.stderr)
        message = f"{what} ran past {timeout_s} s"
        raise RenderFailed(message, stderr=tail, code="render_timeout") from None
    if done.returncode != 0:
        raise RenderFailed(f"{what} exited with {done.returncode}", stderr=_tail(done.stderr))


PROGRESS_ARGS = ("-progress", "pipe:1", "-stats_period", "0.25", "-nostats")
"""ffmpeg writes ``key=value`` blocks to stdout, each ending ``progress=continue|end``."""


def _out_seconds(block: dict[str, str]) -> float | None:
    raw = block.get("out_time_us") or block.get("out_time_ms")  # both are microseconds
    if raw is None or not raw.strip().lstrip("-").isdigit():
        return None  # "N/A" before the first frame
    return max(0, int(raw)) / 1e6


def _read_progress(stream: IO[str], on_time: Callable[[float], None]) -> None:
    block: dict[str, str] = {}
    for line in stream:
        key, _, value = line.strip().partition("=")
        block[key] = value
        if key == "progress":
            seconds = _out_seconds(block)
            if seconds is not None:
                on_time(seconds)
            block = {}


def _run_reporting(
    argv: list[str], *, timeout_s: float, on_time: Callable[[float], None]
) -> subprocess.CompletedProcess[str]:
    """:func:`run_child` for an ffmpeg argv, feeding ``on_time`` from ``-progress``."""
    argv = [argv[0], *PROGRESS_ARGS, *argv[1:]]
    with tempfile.TemporaryFile("w+") as errors:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            start_new_session=True,
            preexec_fn=_die_with_parent(),
        )
        failure: list[BaseException] = []

        def read() -> None:
            assert proc.stdout is not None
            try:
                _read_progress(proc.stdout, on_time)
            except BaseException as exc:  # the callback's; stop ffmpeg, re-raise below
                failure.append(exc)
                _kill_group(proc)

        reader = threading.Thread(target=read, name="ffmpeg-progress", daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout_s)
        except BaseException:
            _kill_group(proc)
            proc.wait()
            raise
        finally:
            reader.join()
            errors.seek(0)
            stderr = errors.read()
        if failure:
            raise failure[0]
    return subprocess.CompletedProcess(argv, proc.returncode, "", stderr)


def _tail(stderr: str | bytes | None, lines: int = 20) -> str:
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    return "\n".join((stderr or "").strip().splitlines()[-lines:])


def generate_example_media(
    task: Task,
    media_root: Path,
    *,
    size: tuple[int, int] = (320, 180),
    overwrite: bool = False,
    timeout_s: float = 300.0,
) -> list[Path]:
    """Write a synthetic file for every clip and music track at the path its URI names.

    Clips are distinct lavfi test patterns at the task fps, exactly ``start + duration`` frames
    (clips sharing a file: the longest), oriented like the clip (portrait swaps ``size``);
    tracks are a WAV at 44.1 kHz with a click on every beat and a higher one on downbeats.
    Existing files are kept unless ``overwrite``. Returns the paths written.
    """
    longest: dict[str, Clip] = {}  # shots of one file: write it long enough for the last
    for clip in task.clips.values():
        known = longest.get(clip.uri)
        if known is None or clip.start + clip.duration > known.start + known.duration:
            longest[clip.uri] = clip
    jobs = [
        (resolve_media(clip.uri, media_root, param=f"clips[{i}].uri"), longest[clip.uri], i)
        for i, clip in enumerate(task.clips.values())
    ]
    jobs += [
        (resolve_media(track.uri, media_root, param=f"music[{i}].uri"), track, i)
        for i, track in enumerate(task.tracks.values())
    ]  # every URI is checked before anything is written
    written: list[Path] = []
    for path, item, index in jobs:
        if path.exists() and not overwrite:
            continue
        if isinstance(item, Clip):
            args = _clip_args(item, index, task.fps, size)
        else:
            args = _track_args(item, task.fps)
        write_media(path, args, timeout_s=timeout_s)
        written.append(path)
    return written


def write_media(path: Path, args: list[str], *, timeout_s: float) -> None:
    """Encode to a hidden sibling, then rename: a killed run leaves no half file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.stem}.partial{path.suffix}")
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
    try:
        run_ffmpeg([*argv, *args, str(partial)], timeout_s=timeout_s, what=f"writing {path.name}")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _clip_args(clip: Clip, index: int, fps: int, size: tuple[int, int]) -> list[str]:
    long, short = max(size), min(size)
    width, height = {
        Orientation.PORTRAIT: (short, long),
        Orientation.SQUARE: (short, short),
    }.get(clip.orientation, (long, short))
    pattern = _PATTERNS[index % len(_PATTERNS)]
    source = f"{pattern}=s={width}x{height}:r={fps}"
    if pattern == "color":
        source = f"color=c={_COLORS[index % len(_COLORS)]}:s={width}x{height}:r={fps}"
    graph = f"{source},hue=h={(index // len(_PATTERNS)) * 53 % 360},format=yuv420p"
    return [
        "-f", "lavfi", "-i", graph,
        "-frames:v", str(clip.start + clip.duration), *encoder_args(fps=fps), "-an",
    ]  # fmt: skip


def _track_args(track: MusicTrack, fps: int) -> list[str]:
    samples = round(Fraction(track.duration * SAMPLE_RATE, fps))
    beat = 60.0 / track.bpm if track.bpm > 0 else 0.5
    phase = track.beats[0] / fps if track.beats else 0.0
    down = track.downbeats[0] / fps if track.downbeats else phase
    expr = (
        f"0.12*sin(2*PI*110*t)"
        f"+0.45*sin(2*PI*880*t)*exp(-40*mod(t-{phase:.6f},{beat:.6f}))"
        f"+0.35*sin(2*PI*1760*t)*exp(-40*mod(t-{down:.6f},{4 * beat:.6f}))"
    )
    seconds = samples / SAMPLE_RATE + 0.1
    graph = f"aevalsrc=exprs='{expr}':s={SAMPLE_RATE}:d={seconds:.6f},atrim=end_sample={samples}"
    return ["-f", "lavfi", "-i", graph, "-c:a", "pcm_s16le", "-vn"]
