"""Render a timeline to an MP4 with one ffmpeg call and one ``-filter_complex`` pass.

Each shot is one input, cut to its source range *plus its transition handles*: a shot
entered by a transition of ``d`` frames starts ``d // 2`` frames before its in point, and
one left by a transition ends ``d - d // 2`` frames after its out point. Runs of cuts are
joined with ``concat``; every other transition is an ``xfade`` of ``d`` frames whose
offset is ``cut − d // 2`` (the cut's timeline frame), so the video lasts exactly
``timeline.length`` frames. Source frames count from the clip's ``start`` inside its file
(a shot found in a longer file), so every seek and trim is offset by it. See
``docs/planner.md`` ("Export and render").
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from protocol.media import (
    SAMPLE_RATE,
    encoder_args,
    ffmpeg_binary,
    resolve_media,
    run_child,
    run_ffmpeg,
)
from protocol.media_errors import MediaNotFound, RenderFailed
from services.planner.export.errors import NotExecutable
from services.verifier.executability import check
from services.verifier.task import Task
from services.verifier.timeline import Timeline, Transition, TransitionType

__all__ = ["XFADE", "RenderResult", "build_render_command", "default_size", "render"]

XFADE = {
    TransitionType.DISSOLVE: "fade",
    TransitionType.FADE_BLACK: "fadeblack",
    TransitionType.WIPE: "wipeleft",
}


@dataclass(frozen=True, slots=True)
class RenderResult:
    """What :func:`render` wrote, and what ffmpeg measured in it."""

    path: Path
    expected_s: float
    duration_s: float
    frames: int | None
    audio_duration_s: float | None
    elapsed_s: float
    command: tuple[str, ...]


def default_size(aspect: str, *, short_side: int = 720) -> tuple[int, int]:
    """``"16:9"`` → (1280, 720), ``"9:16"`` → (720, 1280); even numbers, 16:9 if unparsable."""
    try:
        w, h = (Fraction(part) for part in aspect.split(":"))
        ratio = w / h
    except (ValueError, ZeroDivisionError):
        ratio = Fraction(16, 9)
    if ratio <= 0:
        ratio = Fraction(16, 9)
    if ratio >= 1:
        return 2 * round(short_side * ratio / 2), short_side
    return short_side, 2 * round(short_side / ratio / 2)


def _secs(frames: int, fps: int) -> str:
    return f"{frames / fps:.6f}"


def build_render_command(
    task: Task,
    timeline: Timeline,
    media_root: Path,
    out_path: Path,
    *,
    size: tuple[int, int] | None = None,
    fps: int | None = None,
) -> list[str]:
    """The ffmpeg argv that renders ``timeline``; refuses non-executable timelines and any
    media URI outside ``media_root`` before anything runs."""
    errors = check(task, timeline)
    if errors:
        first = errors[0]
        raise NotExecutable(
            f"timeline is not executable: {first.message}",
            param=None if first.shot is None else f"shots[{first.shot}]",
            context={"errors": [e._asdict() for e in errors]},
        )
    rate = task.fps
    out_fps = fps or rate
    width, height = size or default_size(task.brief.aspect)
    sources = [_clip_path(task, shot.clip_id, media_root) for shot in timeline.shots]
    if timeline.music is not None:
        sources.append(_track_path(task, timeline.music.track_id, media_root))
    for path, param in sources:  # every URI is inside the root; now check the files
        if not path.is_file():
            raise MediaNotFound(f"no media file at {path}", param=param)
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
    spans = _file_spans(task, timeline)
    seeks = [max(0, first - rate) for first, _ in spans]  # a second's margin
    for index, (path, _) in enumerate(sources):
        if index < len(seeks) and seeks[index]:
            argv += ["-ss", _secs(seeks[index], rate)]
        argv += ["-i", str(path)]

    chains = [*_video_chains(timeline, spans, seeks, (width, height), out_fps)]
    chains.append(_audio_chain(timeline))
    return [
        *argv,
        "-filter_complex", ";".join(chains),
        "-map", "[vout]", "-map", "[aout]",
        *encoder_args(fps=out_fps), "-r", str(out_fps),
        "-c:a", "aac", "-b:a", "128k", "-ar", str(SAMPLE_RATE),
        "-movflags", "+faststart", str(out_path),
    ]  # fmt: skip


def _spans(timeline: Timeline) -> list[tuple[int, int]]:
    """Each shot's source frames with the handles its blended transitions play."""
    shots = timeline.shots
    spans = []
    for i, shot in enumerate(shots):
        enter = shot.transition_in if i and _blends(shot.transition_in) else None
        leave = shots[i + 1].transition_in if i + 1 < len(shots) else None
        before = enter.before_cut if enter else 0
        after = leave.after_cut if leave and _blends(leave) else 0
        spans.append((shot.source.start - before, shot.source.end + after))
    return spans


def _file_spans(task: Task, timeline: Timeline) -> list[tuple[int, int]]:
    """:func:`_spans` in frames of each shot's *file*: offset by its clip's ``start``."""
    return [
        (first + task.clips[shot.clip_id].start, end + task.clips[shot.clip_id].start)
        for shot, (first, end) in zip(timeline.shots, _spans(timeline), strict=True)
    ]


def _video_chains(
    timeline: Timeline,
    spans: list[tuple[int, int]],
    seeks: list[int],
    size: tuple[int, int],
    out_fps: int,
) -> list[str]:
    """One chain per shot (``[s<i>]``), a concat per run of cuts (``[g<j>]``), an xfade per
    other transition (``[x<j>]``), and the output ``[vout]``. ``spans`` are the file frames
    each shot plays; input ``i`` was opened ``seeks[i]`` frames in (``-ss``), so its frames
    count from there."""
    rate, shots = timeline.fps, timeline.shots
    width, height = size
    chains: list[str] = []
    groups: list[list[str]] = [[]]
    joins: list[tuple[str, int, int]] = []  # (xfade name, duration, offset) into group j
    cuts = [0, *timeline.cut_positions()]
    for i, (shot, (first, end)) in enumerate(zip(shots, spans, strict=True)):
        enter = shot.transition_in if i and _blends(shot.transition_in) else None
        before = enter.before_cut if enter else 0
        steps = [
            f"fps={rate}",
            f"trim=start_frame={first - seeks[i]}:end_frame={end - seeks[i]}",
            "setpts=PTS-STARTPTS",
            # media a little shorter than its declared duration: hold its last frame (≤ 1 s)
            f"tpad=stop_mode=clone:stop={rate}",
            f"trim=end_frame={end - first}",
        ]
        first = shot.transition_in
        if i == 0 and first.type is TransitionType.FADE_BLACK and first.duration:
            steps.append(f"fade=t=in:s=0:n={first.duration}")
        steps += [
            f"scale={width}:{height}:force_original_aspect_ratio=decrease",
            f"pad={width}:{height}:(ow-iw)/2:(oh-ih)/2:color=black",
            "setsar=1,format=yuv420p,settb=AVTB",
        ]
        chains.append(f"[{i}:v]{','.join(steps)}[s{i}]")
        if enter:  # the transition starts before_cut frames before the cut
            joins.append((XFADE[enter.type], enter.duration, cuts[i] - before))
            groups.append([])
        groups[-1].append(f"[s{i}]")
    for j, members in enumerate(groups):
        join = f"concat=n={len(members)}:v=1:a=0,settb=AVTB" if len(members) > 1 else "null"
        chains.append(f"{''.join(members)}{join}[g{j}]")
    current = "[g0]"
    for j, (name, duration, offset) in enumerate(joins, start=1):
        chains.append(
            f"{current}[g{j}]xfade=transition={name}:duration={_secs(duration, rate)}"
            f":offset={_secs(offset, rate)}[x{j}]"
        )
        current = f"[x{j}]"
    # xfade and concat end their stream at the last frame's start, and ``fps`` would drop
    # that frame: clone it once, renumber, and let ``trim`` end the stream after frame N.
    chains.append(
        f"{current}tpad=stop_mode=clone:stop=1,setpts=N/({rate}*TB),"
        f"trim=end_frame={timeline.length},fps={out_fps},format=yuv420p[vout]"
    )
    return chains


def _audio_chain(timeline: Timeline) -> str:
    """The music from ``offset`` for the timeline's length, faded out; else silence."""
    rate, length = timeline.fps, _secs(timeline.length, timeline.fps)
    music = timeline.music
    if music is None:
        return f"anullsrc=r={SAMPLE_RATE}:cl=stereo,atrim=end={length}[aout]"
    fade = ""
    if music.fade_out:
        start = _secs(timeline.length - music.fade_out, rate)
        fade = f",afade=t=out:st={start}:d={_secs(music.fade_out, rate)}"
    return (
        f"[{len(timeline.shots)}:a]atrim=start={_secs(music.offset, rate)}"
        f":end={_secs(music.offset + timeline.length, rate)},asetpts=PTS-STARTPTS,"
        f"aformat=sample_fmts=fltp:sample_rates={SAMPLE_RATE}:channel_layouts=stereo"
        f"{fade},apad=whole_dur={length},atrim=end={length}[aout]"
    )


def _blends(transition: Transition) -> bool:
    """Anything but a cut, of at least one frame, is an ``xfade`` (``d // 2`` may be 0)."""
    return transition.type is not TransitionType.CUT and transition.duration > 0


def _clip_path(task: Task, clip_id: str, media_root: Path) -> tuple[Path, str]:
    param = f"clips[{list(task.clips).index(clip_id)}].uri"
    return resolve_media(task.clips[clip_id].uri, media_root, param=param), param


def _track_path(task: Task, track_id: str, media_root: Path) -> tuple[Path, str]:
    param = f"music[{list(task.tracks).index(track_id)}].uri"
    return resolve_media(task.tracks[track_id].uri, media_root, param=param), param


def _fraction_of(total_s: float, report: Callable[[float], None]) -> Callable[[float], None]:
    """Turns ffmpeg's output times into a non-decreasing fraction of ``total_s``."""
    best = 0.0

    def on_time(seconds: float) -> None:
        nonlocal best
        fraction = min(1.0, seconds / total_s) if total_s > 0 else 1.0
        if fraction >= best:
            best = fraction
            report(fraction)

    return on_time


def render(
    task: Task,
    timeline: Timeline,
    media_root: Path,
    out_path: Path,
    *,
    size: tuple[int, int] | None = None,
    fps: int | None = None,
    timeout_s: float = 600.0,
    on_progress: Callable[[float], None] | None = None,
) -> RenderResult:
    """Render ``timeline`` to ``out_path`` (written whole or not at all) and measure it.

    ``on_progress`` hears the fraction of the timeline ffmpeg has written (from its
    ``-progress`` reports), never decreasing, ending at 1.0 when ffmpeg is done."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    partial = out_path.with_name(f".{out_path.stem}.partial{out_path.suffix}")
    argv = build_render_command(task, timeline, media_root, partial, size=size, fps=fps)
    started = time.monotonic()
    try:
        on_time = (
            None if on_progress is None else _fraction_of(timeline.length / task.fps, on_progress)
        )
        run_ffmpeg(argv, timeout_s=timeout_s, what="render", on_time=on_time)
        partial.replace(out_path)
    finally:
        partial.unlink(missing_ok=True)
    elapsed = time.monotonic() - started
    video, audio = probe(out_path)
    if video is None:
        raise RenderFailed(f"ffmpeg wrote no video stream to {out_path}")
    frames = video.get("nb_frames")
    return RenderResult(
        path=out_path,
        expected_s=timeline.length / task.fps,
        duration_s=float(video["duration"]),
        frames=int(frames) if str(frames).isdigit() else None,
        audio_duration_s=float(audio["duration"]) if audio and "duration" in audio else None,
        elapsed_s=round(elapsed, 3),
        command=tuple(argv),
    )


_VIDEO_LINE = re.compile(
    r"Stream #0:\d+.*?: Video: (\w+).*?, (\d+)x(\d+)(?:[ ,].*?)?, ([\d.]+) fps"
)
_AUDIO_LINE = re.compile(r"Stream #0:\d+.*?: Audio: (\w+)")
_STATS = re.compile(r"frame=\s*(\d+).*?time=(\d+):(\d+):([\d.]+)")
_TIME = re.compile(r"time=(\d+):(\d+):([\d.]+)")


def probe(path: Path) -> tuple[dict | None, dict | None]:
    """The first video and first audio stream of ``path`` (``None`` where absent), under
    ffprobe's keys, measured with ffmpeg alone (no ffprobe ships with the wheel).

    The video stream is copied to the null muxer (its packet count is its frame count,
    its length frames / fps); the audio stream is decoded to the null muxer, whose last
    time stamp is its length.
    """
    header = _ffmpeg_null(path, "0:v:0?", copy=True)
    video: dict | None = None
    if (match := _VIDEO_LINE.search(header)) is not None:
        stats = _STATS.findall(header)
        frames = int(stats[-1][0]) if stats else 0
        rate = Fraction(match.group(4)).limit_denominator(1001)
        video = {
            "codec_type": "video", "codec_name": match.group(1),
            "width": int(match.group(2)), "height": int(match.group(3)),
            "r_frame_rate": f"{rate.numerator}/{rate.denominator}",
            "nb_frames": str(frames), "duration": f"{float(frames / rate):.6f}",
        }  # fmt: skip
    audio: dict | None = None
    if (match := _AUDIO_LINE.search(header)) is not None:
        times = _TIME.findall(_ffmpeg_null(path, "0:a:0", copy=False))
        hours, minutes, seconds = times[-1] if times else ("0", "0", "0")
        length = int(hours) * 3600 + int(minutes) * 60 + float(seconds)
        audio = {"codec_type": "audio", "codec_name": match.group(1), "duration": f"{length:.6f}"}
    return video, audio


def _ffmpeg_null(path: Path, stream: str, *, copy: bool) -> str:
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-i", str(path), "-map", stream]
    argv += ["-c", "copy"] if copy else []
    done = run_child([*argv, "-f", "null", "-"], timeout_s=60)
    if done.returncode != 0:
        raise RenderFailed(f"ffmpeg could not read {path}", stderr=done.stderr[-2000:])
    return done.stderr
