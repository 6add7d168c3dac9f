"""Media URIs stay inside the media root; example media have the task's exact durations."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
import wave
from pathlib import Path

import pytest

from protocol.media import (
    FFMPEG_ENV,
    ffmpeg_binary,
    generate_example_media,
    resolve_media,
    run_ffmpeg,
)
from protocol.media_errors import FfmpegUnavailable, MediaNotFound, MediaOutsideRoot
from services.common.errors import RefineryError
from services.verifier.pool import Clip, Orientation
from services.verifier.task import Task
from tests.planner.export_factories import SIZE, small_task

needs_ffmpeg = pytest.mark.skipif(
    importlib.util.find_spec("imageio_ffmpeg") is None, reason="needs the planner extra's ffmpeg"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    media = tmp_path / "root"
    (media / "media").mkdir(parents=True)
    (media / "media" / "c01.mp4").write_bytes(b"x")
    return media


def test_relative_and_file_uris_resolve_inside_the_root(root: Path):
    inside = (root / "media" / "c01.mp4").resolve()
    assert resolve_media("media/c01.mp4", root) == inside
    assert resolve_media(f"file://{inside}", root) == inside
    assert resolve_media(inside.as_uri(), root, must_exist=True) == inside
    assert resolve_media(str(inside), root) == inside  # an absolute path inside is fine
    assert resolve_media("media/new%20clip.mp4", root).name == "new%20clip.mp4"


@pytest.mark.parametrize(
    "uri",
    [
        "../secret.mp4",
        "media/../../secret.mp4",
        "/etc/passwd",
        "file:///etc/passwd",
        "file://otherhost/media/c01.mp4",
        "http://example.com/c01.mp4",
        "s3://bucket/c01.mp4",
        "data:video/mp4;base64,AAAA",
        "",
    ],
)
def test_uris_escaping_the_root_are_refused(root: Path, uri: str):
    with pytest.raises(MediaOutsideRoot) as caught:
        resolve_media(uri, root, param="clips[3].uri")
    error = caught.value
    assert isinstance(error, RefineryError)
    assert (error.status_code, error.code) == (422, "media_outside_root")
    assert error.param == "clips[3].uri"
    assert error.envelope()["error"]["uri"] == uri


def test_a_symlink_leading_out_of_the_root_is_refused(root: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "c.mp4").write_bytes(b"x")
    os.symlink(outside, root / "media" / "link")
    with pytest.raises(MediaOutsideRoot):
        resolve_media("media/link/c.mp4", root)
    os.symlink(root / "media" / "c01.mp4", root / "media" / "alias.mp4")
    assert resolve_media("media/alias.mp4", root).name == "c01.mp4"  # a link inside is fine


def test_missing_file_is_reported_only_when_asked(root: Path):
    assert resolve_media("media/absent.mp4", root).name == "absent.mp4"
    with pytest.raises(MediaNotFound) as caught:
        resolve_media("media/absent.mp4", root, param="clips[0].uri", must_exist=True)
    assert caught.value.code == "media_not_found" and caught.value.param == "clips[0].uri"


def _probe(path: Path) -> dict:
    from services.planner.export.render import probe

    video, _ = probe(path)
    return video


@needs_ffmpeg
@pytest.mark.parametrize("fps", [30, 25])
def test_generated_media_have_exact_durations(tmp_path: Path, fps: int):
    base = small_task(fps, clips=2, seconds=1)
    portrait = Clip("p", fps // 2 + 1, "media/p.mp4", orientation=Orientation.PORTRAIT)
    task = Task.build(
        id="gen", fps=fps, brief=base.brief,
        clips=[*base.clips.values(), portrait], tracks=base.tracks.values(),
    )  # fmt: skip
    written = generate_example_media(task, tmp_path, size=SIZE)
    assert sorted(p.name for p in written) == ["c0.mp4", "c1.mp4", "m1.wav", "p.mp4"]
    for clip in task.clips.values():
        stream = _probe(tmp_path / clip.uri)
        assert stream["codec_name"] in ("h264", "mpeg4")
        assert int(stream["nb_frames"]) == clip.duration
        assert stream["r_frame_rate"] == f"{fps}/1"
    landscape, upright = _probe(tmp_path / "media/c0.mp4"), _probe(tmp_path / "media/p.mp4")
    assert (landscape["width"], landscape["height"]) == (160, 90)
    assert (upright["width"], upright["height"]) == (90, 160)
    with wave.open(str(tmp_path / "media/m1.wav")) as wav:
        assert wav.getframerate() == 44100
        seconds = wav.getnframes() / wav.getframerate()
    assert seconds == pytest.approx(task.tracks["m1"].duration / fps, abs=1e-4)


@needs_ffmpeg
def test_existing_files_are_kept_unless_overwrite(tmp_path: Path):
    task = small_task(25, clips=1, seconds=1)
    first = generate_example_media(task, tmp_path, size=SIZE)
    assert len(first) == 2
    stamp = (tmp_path / "media/c0.mp4").stat().st_mtime_ns
    assert generate_example_media(task, tmp_path, size=SIZE) == []
    assert (tmp_path / "media/c0.mp4").stat().st_mtime_ns == stamp
    again = generate_example_media(task, tmp_path, size=SIZE, overwrite=True)
    assert len(again) == 2
    assert not list((tmp_path / "media").glob(".*partial*"))


def test_a_bad_uri_refuses_the_whole_batch_before_writing(tmp_path: Path):
    base = small_task(25, clips=2, seconds=1)
    bad = Clip(id="x", duration=10, uri="../../x.mp4")
    task = Task.build(id="bad", fps=25, brief=base.brief, clips=[*base.clips.values(), bad])
    with pytest.raises(MediaOutsideRoot) as caught:
        generate_example_media(task, tmp_path)
    assert caught.value.param == "clips[2].uri"
    assert not (tmp_path / "media").exists()


@needs_ffmpeg
def test_ffmpeg_is_the_wheels_even_with_another_on_the_path(tmp_path: Path, monkeypatch):
    decoy = tmp_path / "ffmpeg"
    decoy.write_text("#!/bin/sh\nexit 1\n")
    decoy.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", str(decoy))
    monkeypatch.delenv(FFMPEG_ENV, raising=False)
    assert shutil.which("ffmpeg") == str(decoy)
    found = ffmpeg_binary()
    assert "imageio_ffmpeg" in found and found != str(decoy)
    version = subprocess.run([found, "-version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("ffmpeg version")


def test_the_setting_names_another_ffmpeg(tmp_path: Path, monkeypatch):
    other = tmp_path / "my-ffmpeg"
    other.write_text("#!/bin/sh\nexit 0\n")
    other.chmod(0o755)
    monkeypatch.setenv(FFMPEG_ENV, str(other))
    assert ffmpeg_binary() == str(other)
    monkeypatch.setenv(FFMPEG_ENV, str(tmp_path / "absent"))
    with pytest.raises(FfmpegUnavailable, match=FFMPEG_ENV):
        ffmpeg_binary()


def test_without_the_wheel_the_error_names_the_install(monkeypatch):
    monkeypatch.delenv(FFMPEG_ENV, raising=False)
    monkeypatch.setattr(sys.modules[ffmpeg_binary.__module__], "_bundled_ffmpeg", lambda: None)
    with pytest.raises(FfmpegUnavailable, match="pip install imageio-ffmpeg"):
        ffmpeg_binary()


def _processes_with(marker: str) -> dict[int, str]:
    """pid → state (``R``, ``S``, ``Z``…) of every ffmpeg whose command line has ``marker``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        if argv[0] == ffmpeg_binary() and marker in argv:
            found[int(entry.name)] = stat.rsplit(")", 1)[1].split()[0]
    return found


def _alive(marker: str) -> dict[int, str]:
    return {pid: state for pid, state in _processes_with(marker).items() if state not in "ZX"}


def _endless_render(out: Path) -> list[str]:
    """An ffmpeg that would write ``out`` for an hour, at real-time pace (little CPU)."""
    return [
        ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-re",
        "-f", "lavfi", "-i", "testsrc=s=64x64:r=5:d=3600", "-c:v", "mpeg4", str(out),
    ]  # fmt: skip


def _wait_for(check, what: str, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


@needs_ffmpeg
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux")
def test_a_killed_planner_takes_its_ffmpeg_with_it(tmp_path: Path) -> None:
    out = tmp_path / ".job-sigkill.partial.mp4"
    script = (
        "import sys; from protocol.media import run_ffmpeg; "
        "run_ffmpeg(sys.argv[1:], timeout_s=600, what='render')"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    parent = subprocess.Popen([sys.executable, "-c", script, *_endless_render(out)], env=env)
    try:
        children = _wait_for(lambda: _alive(str(out)), "ffmpeg to start")
        (pid,) = children
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(fields[1]) == parent.pid  # ffmpeg is the child of the killed process
        assert os.getpgid(pid) == pid != os.getpgid(parent.pid)  # its own process group
        _wait_for(out.exists, "the partial output")
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        _wait_for(lambda: not _alive(str(out)), "ffmpeg to die with its parent")
    finally:
        for pid in _alive(str(out)):
            os.kill(pid, signal.SIGKILL)  # only on failure: never leave it running
    print(f"\nffmpeg {pid} of killed parent {parent.pid}: {_processes_with(str(out)) or 'gone'}")


@needs_ffmpeg
def test_an_ffmpeg_past_its_timeout_is_killed(tmp_path: Path) -> None:
    out = tmp_path / ".job-timeout.partial.mp4"
    with pytest.raises(RefineryError) as failed:
        run_ffmpeg(_endless_render(out), timeout_s=1.0, what="render")
    assert failed.value.code == "render_timeout"
    assert not _alive(str(out))
