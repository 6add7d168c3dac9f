"""Frames from the ffmpeg pipe: small, rotated as shown, every one of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from protocol.media import ffmpeg_binary
from services.planner.ingest import decode
from services.planner.ingest.decode import (
    SKIM_MAX_S,
    FfmpegCapture,
    FrameBatches,
    SkimmedBatches,
    _alike,
)
from services.planner.ingest.probe import probe
from tests.planner.ingest import footage


def frames_of(path: Path) -> list:
    capture = FfmpegCapture(path, probe(path))
    frames = []
    try:
        while capture.grab():
            frames.append(capture.retrieve()[1])
    finally:
        capture.release()
    return frames


def test_every_frame_arrives_at_its_size(media: Path):
    frames = frames_of(media / "cuts.mp4")
    assert len(frames) == 180
    assert {f.shape for f in frames} == {(180, 320, 3)}


def test_a_rotated_file_arrives_as_shown(media: Path):
    frames = frames_of(media / "rotated.mp4")
    assert frames[0].shape == (320, 180, 3)


def test_large_frames_are_scaled_to_the_analysis_width(tmp_path: Path):
    path = footage.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30,trim=duration=0.5"],
                          tmp_path / "hd.mp4")  # fmt: skip
    capture = FfmpegCapture(path, probe(path))
    assert (capture.get(3), capture.get(4)) == (320.0, 180.0)  # CAP_PROP_FRAME_WIDTH/HEIGHT
    capture.release()
    frames = frames_of(path)
    assert len(frames) == 15 and frames[0].shape == (180, 320, 3)


def _with_b_frames(out: Path) -> Path:
    """x264 at its default preset: B-frames, some of them no other frame refers to."""
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30,trim=duration=2",
            "-c:v", "libx264", "-preset", "medium", "-bf", "3", "-pix_fmt", "yuv420p",
            str(out)]  # fmt: skip
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    return out


def _grab_all(path: Path, *, fast: bool) -> tuple[list[np.ndarray], list[bool]]:
    capture = FfmpegCapture(path, probe(path), fast=fast)
    frames, repeats = [], []
    try:
        while capture.grab():
            frames.append(capture.retrieve()[1])
            repeats.append(capture.repeated)
    finally:
        capture.release()
    return frames, repeats


def test_skipped_frames_keep_their_place_and_are_marked_repeated(tmp_path: Path):
    path = _with_b_frames(tmp_path / "b.mp4")
    fast, repeats = _grab_all(path, fast=True)
    full, none = _grab_all(path, fast=False)
    assert len(fast) == len(full) == 60 and not any(none)
    skipped = [i for i, r in enumerate(repeats) if r]
    assert 5 <= len(skipped) <= 40  # the decoder left out the unreferenced B-frames
    for i in skipped:  # a skipped frame is handed out as the frame before it
        assert fast[i] is fast[i - 1]
    for i, (a, b) in enumerate(zip(fast, full, strict=True)):
        if not repeats[i]:  # decoded frames are the file's frames, at the same index
            assert np.abs(a.astype(int) - b).mean() < 4, i


def test_a_still_picture_is_never_repeated(tmp_path: Path):
    path = footage.ffmpeg(["-f", "lavfi", "-i", "color=c=teal:s=320x180:r=30,trim=duration=1"],
                          tmp_path / "still.mp4")  # fmt: skip
    frames, repeats = _grab_all(path, fast=True)
    assert len(frames) == 30 and not any(repeats)


def test_batches_hold_the_decoded_frames_at_their_places(tmp_path: Path):
    path = _with_b_frames(tmp_path / "b.mp4")
    frames, repeats = _grab_all(path, fast=True)
    batches = FrameBatches(path, probe(path), batch=7)
    try:
        got = [
            (int(n), f) for numbers, batch in batches for n, f in zip(numbers, batch, strict=True)
        ]
    finally:
        batches.close()
    decoded = [i for i, repeated in enumerate(repeats) if not repeated]
    assert [n for n, _ in got] == decoded and batches.frames == len(frames) == 60
    for n, frame in got:
        assert np.array_equal(frame, frames[n]), n


START = decode._start


def _still_then_moving(out: Path) -> Path:
    """1.5 s of a still colour, a cut at frame 45, 1.5 s of testsrc2; a keyframe every 10
    frames (x264 at its default preset, B-frames)."""
    graph = "[0][1]concat=n=2:v=1[v]"
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
            *footage.source("teal", 1.5), *footage.source("test", 1.5),
            "-filter_complex", graph, "-map", "[v]", "-c:v", "libx264", "-g", "10",
            "-pix_fmt", "yuv420p", str(out)]  # fmt: skip
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    return out


def _numbered(batches: FrameBatches | SkimmedBatches) -> dict[int, np.ndarray]:
    try:
        return {
            int(n): f.copy()
            for numbers, batch in batches
            for n, f in zip(numbers, batch, strict=True)
        }
    finally:
        batches.close()


def test_skimming_leaves_out_still_spans_and_keeps_the_cut_exact(tmp_path: Path):
    path = _still_then_moving(tmp_path / "still-cut.mp4")
    full = FrameBatches(path, probe(path), batch=8)
    every = _numbered(full)
    skimmed = SkimmedBatches(path, probe(path), batch=8)
    some = _numbered(skimmed)
    assert skimmed.frames == full.frames == 90
    assert set(some) < set(every) and skimmed.left_out >= 18  # the still spans went undecoded
    assert 0 in some and {n for n in every if 40 <= n < 60} <= set(some)  # around the cut
    for n, frame in some.items():  # what is handed out is the file's frame at its place
        assert np.array_equal(frame, every[n]), n


def test_an_intra_only_file_is_skimmed_by_its_keyframe_pass(tmp_path: Path, monkeypatch):
    path = footage.ffmpeg_intra(footage.source("life", 1), tmp_path / "intra.mkv")
    every = _numbered(FrameBatches(path, probe(path), batch=8))
    started = []
    monkeypatch.setattr(decode, "_start", lambda *a, **k: started.append(k) or START(*a, **k))
    some = _numbered(SkimmedBatches(path, probe(path), batch=8))
    assert sorted(some) == sorted(every) == list(range(30))
    assert all(np.array_equal(some[n], every[n]) for n in every)
    assert len(started) == 2 and started[1]["at"] > 0.95  # the keyframes, then the last one


def test_keyframes_are_alike_only_when_close_and_near_identical():
    sky = np.full((18, 32, 3), (200, 120, 40), np.uint8)
    noisy = sky + np.random.default_rng(0).integers(0, 3, sky.shape, dtype=np.uint8)
    grass = np.full((18, 32, 3), (40, 160, 60), np.uint8)
    assert _alike((0.0, sky), (1.0, noisy), 30.0)
    assert not _alike((0.0, sky), (1.0, grass), 30.0)
    assert not _alike((0.0, sky), (SKIM_MAX_S + 0.1, sky), 30.0)
