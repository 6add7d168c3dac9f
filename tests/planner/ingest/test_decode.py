"""Frames from the ffmpeg pipe: small, rotated as shown, every one of them."""

from __future__ import annotations

from pathlib import Path

from services.planner.ingest.decode import FfmpegCapture
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
