"""ffmpeg render: one filter pass, exact length, handles at the right frames, safe media."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from protocol.media import ffmpeg_binary, generate_example_media, run_ffmpeg, video_encoder
from protocol.media_errors import MediaOutsideRoot, RenderFailed
from services.planner.export import NotExecutable, build_render_command, render
from services.planner.export.render import default_size, probe
from services.verifier.pool import Clip
from services.verifier.task import Task
from services.verifier.timeline import FrameRange, Shot, Timeline, Transition, TransitionType
from tests.planner.export_factories import SIZE, small_task, three_shots
from tests.planner.test_media import needs_ffmpeg

pytestmark = needs_ffmpeg

CUT, DISSOLVE, WIPE, FADE = (
    TransitionType.CUT,
    TransitionType.DISSOLVE,
    TransitionType.WIPE,
    TransitionType.FADE_BLACK,
)
CASES = {
    30: ([(CUT, 0), (DISSOLVE, 10), (WIPE, 9)], True),
    24: ([(CUT, 0), (DISSOLVE, 1), (WIPE, 0)], True),  # d // 2 == 0; a 0-frame wipe is a cut
    25: ([(FADE, 6), (DISSOLVE, 7), (FADE, 8)], False),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    fps = request.param
    transitions, music = CASES[fps]
    task = small_task(fps)
    root = tmp_path_factory.mktemp(f"media{fps}")
    generate_example_media(task, root, size=SIZE)
    return task, three_shots(task, transitions, music=music), root


def test_render_lasts_exactly_the_timeline(case, tmp_path: Path):
    task, timeline, root = case
    result = render(task, timeline, root, tmp_path / "out" / "reel.mp4", size=SIZE)
    assert result.path.is_file()
    assert result.expected_s == timeline.length / task.fps
    assert result.frames == timeline.length
    assert abs(result.duration_s - result.expected_s) < 1 / task.fps
    assert result.audio_duration_s is not None  # music, or silence when there is none
    assert result.audio_duration_s == pytest.approx(result.expected_s, abs=0.05)
    video, audio = probe(result.path)
    assert (video["width"], video["height"]) == SIZE
    assert video["r_frame_rate"] == f"{task.fps}/1"
    assert audio["codec_name"] == "aac"
    assert not list(result.path.parent.glob(".*partial*"))


def test_one_filter_pass_one_input_per_shot(case, tmp_path: Path):
    task, timeline, root = case
    argv = build_render_command(task, timeline, root, tmp_path / "o.mp4", size=SIZE)
    assert argv.count("-filter_complex") == 1
    inputs = len(timeline.shots) + (timeline.music is not None)
    assert argv.count("-i") == inputs
    graph = argv[argv.index("-filter_complex") + 1]
    joins = [s.transition_in for s in timeline.shots[1:]]
    blends = [t for t in joins if t.type is not CUT and t.duration]
    assert graph.count("xfade=") == len(blends) > 0
    assert ("concat=" in graph) is (len(blends) < len(joins))  # runs of cuts are concats
    assert ("anullsrc" in graph) is (timeline.music is None)
    if timeline.shots[0].transition_in.type is FADE:
        assert "fade=t=in:s=0:n=6" in graph


def test_render_at_another_output_rate(tmp_path: Path):
    task = small_task(25, clips=2)
    root = tmp_path / "m"
    generate_example_media(task, root, size=SIZE)
    timeline = three_shots(task, [(CUT, 0), (DISSOLVE, 8)])
    result = render(task, timeline, root, tmp_path / "r30.mp4", size=SIZE, fps=30)
    assert result.frames == timeline.length * 30 // 25
    assert abs(result.duration_s - result.expected_s) < 1 / 30


def _luma_clip(path: Path, fps: int, frames: int, expr: str) -> None:
    """A lossless clip whose frame N is flat grey at luma ``expr(N)``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [ffmpeg_binary(), "-v", "error", "-y", "-f", "lavfi",
         "-i", f"color=c=black:s=64x36:r={fps},format=yuv420p,geq=lum='{expr}':cb=128:cr=128",
         "-frames:v", str(frames), "-c:v", "ffv1", str(path)],
        check=True,
    )  # fmt: skip


def _lumas(path: Path) -> list[float]:
    raw = subprocess.run(
        [ffmpeg_binary(), "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "yuv420p",
         "-"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    luma, frame = 64 * 36, 64 * 36 * 3 // 2  # mean of each frame's Y plane, no range change
    return [sum(raw[i : i + luma]) / luma for i in range(0, len(raw), frame)]


def test_every_frame_comes_from_the_right_source_frame(tmp_path: Path):
    """Luma encodes the source frame; pure frames must match exactly, blends sit between."""
    fps = 25
    up, down = "16+4*N", "220-4*N"
    _luma_clip(tmp_path / "x.mkv", fps, 50, up)
    _luma_clip(tmp_path / "y.mkv", fps, 50, down)
    task = Task.build(
        id="luma", fps=fps, brief=small_task(fps).brief,
        clips=[Clip("x", 50, "x.mkv"), Clip("y", 50, "y.mkv")],
    )  # fmt: skip
    timeline = Timeline(
        fps=fps,
        shots=(
            Shot("x", FrameRange(10, 30)),
            Shot("y", FrameRange(12, 32), Transition(DISSOLVE, 8)),  # spans frames 16..23
            Shot("x", FrameRange(40, 50), Transition(WIPE, 6)),  # 37..42; ends at x's end
        ),
    )
    result = render(task, timeline, tmp_path, tmp_path / "luma.mp4", size=(64, 36))
    lumas = _lumas(result.path)
    assert len(lumas) == timeline.length == 50

    def expected(k: int) -> float | None:
        if k < 16:
            return 16 + 4 * (10 + k)
        if 24 <= k < 37:
            return 220 - 4 * (12 + k - 20)
        if k >= 43:
            return 16 + 4 * k  # shot 2 shows x frame 40 at timeline frame 40
        return None  # inside a transition

    for k, luma in enumerate(lumas):
        want = expected(k)
        if want is not None:
            assert abs(luma - want) < 1.5, (k, luma, want)
    outgoing, incoming = 16 + 4 * 30, 220 - 4 * 12  # x's tail handle, y's head handle
    assert min(outgoing, incoming) + 3 < lumas[20] < max(outgoing, incoming) - 3


@pytest.mark.parametrize("fps", [24, 30])
def test_inputs_seek_near_their_shot_and_stay_frame_exact(tmp_path: Path, fps: int):
    """Shots deep into a long clip: the input opens a second before its first frame (-ss),
    and every pure frame is still the right source frame."""
    length = 12 * fps
    _luma_clip(tmp_path / "long.mkv", fps, length, "16+mod(N*4,200)")
    task = Task.build(
        id="seek", fps=fps, brief=small_task(fps).brief, clips=[Clip("z", length, "long.mkv")]
    )
    late, early = (10 * fps, 10 * fps + 15), (3 * fps + 7, 3 * fps + 37)
    timeline = Timeline(
        fps=fps,
        shots=(
            Shot("z", FrameRange(*late)),
            Shot("z", FrameRange(*early), Transition(DISSOLVE, 6)),  # timeline frames 12..17
        ),
    )
    argv = build_render_command(task, timeline, tmp_path, tmp_path / "seek.mp4")
    seeks = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-ss"]
    assert seeks == [f"{(late[0] - fps) / fps:.6f}", f"{(early[0] - 3 - fps) / fps:.6f}"]
    result = render(task, timeline, tmp_path, tmp_path / "seek.mp4", size=(64, 36))
    lumas = _lumas(result.path)
    assert len(lumas) == timeline.length

    def source(frame: int) -> int:
        return 16 + (frame * 4) % 200

    for k, luma in enumerate(lumas):
        if k < 12:
            assert abs(luma - source(late[0] + k)) < 1.5, (k, luma)
        elif k >= 18:
            assert abs(luma - source(early[0] + k - 15)) < 1.5, (k, luma)


def test_a_uri_outside_the_root_is_refused_before_ffmpeg_runs(tmp_path: Path, monkeypatch):
    task = small_task(30, music=False)
    clips = list(task.clips.values())
    clips[1] = clips[1]._replace(uri="../outside.mp4")
    task = Task.build(id="t", fps=30, brief=task.brief, clips=clips)
    timeline = three_shots(task, [(CUT, 0)] * 3, music=False)

    def no_subprocess(*args, **kwargs):
        raise AssertionError("ffmpeg must not run")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    with pytest.raises(MediaOutsideRoot) as caught:
        render(task, timeline, tmp_path, tmp_path / "never.mp4")
    assert caught.value.param == "clips[1].uri"
    assert not (tmp_path / "never.mp4").exists()


def test_a_non_executable_timeline_is_refused(tmp_path: Path):
    task = small_task(30, music=False)
    timeline = Timeline(
        fps=30,
        shots=(Shot("c0", FrameRange(0, 30)), Shot("c1", FrameRange(0, 30), Transition(WIPE, 10))),
    )
    with pytest.raises(NotExecutable) as caught:
        build_render_command(task, timeline, tmp_path, tmp_path / "o.mp4")
    assert caught.value.param == "shots[1]"
    assert caught.value.context["errors"][0]["code"] == "missing_handles"


def test_ffmpeg_failure_is_a_typed_error_with_its_stderr(tmp_path: Path):
    task = small_task(30, clips=1, music=False)
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "c0.mp4").write_bytes(b"not a video")
    timeline = Timeline(fps=30, shots=(Shot("c0", FrameRange(0, 30)),))
    with pytest.raises(RenderFailed) as caught:
        render(task, timeline, tmp_path, tmp_path / "bad.mp4")
    assert caught.value.status_code == 500 and caught.value.stderr
    assert "c0.mp4" in caught.value.envelope()["error"]["stderr"]
    assert not list(tmp_path.glob("*bad*"))


@pytest.mark.parametrize(
    ("aspect", "size"),
    [("16:9", (1280, 720)), ("9:16", (720, 1280)), ("1:1", (720, 720)), ("oops", (1280, 720))],
)
def test_default_size_follows_the_brief_aspect(aspect: str, size: tuple[int, int]):
    assert default_size(aspect) == size


def test_probe_measures_the_render_with_ffmpeg_alone(case, tmp_path: Path):
    task, timeline, root = case
    result = render(task, timeline, root, tmp_path / "reel.mp4", size=SIZE)
    video, audio = probe(result.path)
    expected_s = timeline.length / task.fps
    assert video["codec_name"] == ("h264" if video_encoder() == "libx264" else "mpeg4")
    assert (video["width"], video["height"]) == SIZE
    assert video["r_frame_rate"] == f"{task.fps}/1"
    assert int(video["nb_frames"]) == result.frames == timeline.length
    assert float(video["duration"]) == pytest.approx(expected_s, abs=1e-3)
    assert audio["codec_name"] == "aac"
    assert float(audio["duration"]) == pytest.approx(expected_s, abs=0.05)


def test_probe_finds_no_audio_in_a_silent_file(tmp_path: Path):
    _luma_clip(tmp_path / "silent.mkv", 25, 10, "16")
    video, audio = probe(tmp_path / "silent.mkv")
    assert audio is None
    assert (video["codec_name"], video["nb_frames"]) == ("ffv1", "10")


def test_shots_of_one_file_play_from_their_clip_start(tmp_path: Path):
    """Two clips are two shots of one file (``start`` 20 and 70): each shot's frames come
    from its clip's stretch of the file, seeks and trims offset by the start."""
    fps = 25
    _luma_clip(tmp_path / "reel.mkv", fps, 100, "16+2*N")
    task = Task.build(
        id="starts", fps=fps, brief=small_task(fps).brief,
        clips=[Clip("a", 30, "reel.mkv", start=20), Clip("b", 30, "reel.mkv", start=70)],
    )  # fmt: skip
    timeline = Timeline(
        fps=fps,
        shots=(Shot("b", FrameRange(5, 15)), Shot("a", FrameRange(0, 12))),
    )
    result = render(task, timeline, tmp_path, tmp_path / "starts.mp4", size=(64, 36))
    lumas = _lumas(result.path)
    assert len(lumas) == 22
    for k, luma in enumerate(lumas):
        source = 70 + 5 + k if k < 10 else 20 + k - 10
        assert abs(luma - (16 + 2 * source)) < 1.5, (k, luma, source)


def test_progress_comes_from_ffmpeg_and_rises_to_one(tmp_path: Path, monkeypatch):
    # a report every millisecond of ffmpeg's time: the render outlasts several, however fast
    fast_reports = ("-progress", "pipe:1", "-stats_period", "0.001", "-nostats")
    monkeypatch.setattr(sys.modules[run_ffmpeg.__module__], "PROGRESS_ARGS", fast_reports)
    task = small_task(30, clips=3, seconds=4)
    generate_example_media(task, tmp_path, size=SIZE)
    shots = tuple(
        Shot(clip_id, FrameRange(0, 4 * 30), Transition(CUT, 0)) for clip_id in task.clips
    )
    timeline = Timeline(fps=30, shots=shots, music=None)
    seen: list[float] = []
    result = render(
        task, timeline, tmp_path, tmp_path / "reel.mp4", size=SIZE, on_progress=seen.append
    )
    assert result.frames == timeline.length
    assert seen[-1] == 1.0
    assert seen == sorted(seen)  # never goes back
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert len(seen) >= 2 and seen[0] < 1.0  # reports arrive while ffmpeg is still writing


def test_a_failing_progress_callback_stops_ffmpeg(case, tmp_path: Path):
    task, timeline, root = case

    def refuse(_fraction: float) -> None:
        raise RuntimeError("lease lost")

    with pytest.raises(RuntimeError, match="lease lost"):
        render(task, timeline, root, tmp_path / "reel.mp4", size=SIZE, on_progress=refuse)
    assert not list(tmp_path.glob("*.mp4")) and not list(tmp_path.glob(".*partial*"))


def test_ffmpeg_reports_its_output_time_while_it_runs():
    # -re paces the input in real time, so 1.5 s of output takes 1.5 s: several reports
    source = "testsrc=size=160x90:rate=30:duration=1.5"
    argv = [ffmpeg_binary(), "-nostdin", "-re", "-f", "lavfi", "-i", source, "-f", "null", "-"]
    times: list[float] = []
    run_ffmpeg(argv, timeout_s=60, on_time=times.append)
    assert times == sorted(times)
    assert len({t for t in times if 0.0 < t < 1.4}) >= 2  # intermediate, distinct
    assert times[-1] == pytest.approx(1.5, abs=0.05)
