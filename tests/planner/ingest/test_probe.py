"""Probing: duration, frame rate, rotation-aware display size and orientation from ffmpeg."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.planner.ingest.errors import NotMedia
from services.planner.ingest.probe import orientation_of, parse_header, probe


def test_a_landscape_file(media: Path):
    found = probe(media / "cuts.mp4")
    assert (found.width, found.height, found.rotation) == (320, 180, 0)
    assert found.duration_s == pytest.approx(6.0, abs=0.05)
    assert found.fps == 30
    assert found.orientation == "landscape"


def test_stored_portrait(media: Path):
    found = probe(media / "portrait.mp4")
    assert found.display_size == (180, 320)
    assert found.orientation == "portrait"


def test_a_display_matrix_turns_landscape_into_portrait(media: Path):
    found = probe(media / "rotated.mp4")
    assert (found.width, found.height) == (320, 180)
    assert found.rotation in (90, 270)
    assert found.display_size == (180, 320)
    assert found.orientation == "portrait"


def test_high_frame_rate(media: Path):
    assert probe(media / "slowmo.mp4").fps == 60


def test_not_media(tmp_path: Path):
    text = tmp_path / "notes.mp4"
    text.write_text("not a video at all\n")
    with pytest.raises(NotMedia):
        probe(text)


def test_header_text_variants():
    header = (
        "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'x.mov':\n"
        "  Duration: 00:01:02.50, start: 0.000000, bitrate: 1000 kb/s\n"
        "  Stream #0:0[0x1](und): Video: hevc (Main) (hvc1 / 0x31637668), yuv420p(tv), "
        "1920x1080, 9000 kb/s, 29.97 fps, 29.97 tbr, 600 tbn (default)\n"
        "    Side data:\n      displaymatrix: rotation of -90.00 degrees\n"
    )
    found = parse_header(header)
    assert found.duration_s == pytest.approx(62.5)
    assert found.fps == pytest.approx(29.97)
    assert found.rotation == 270
    assert found.orientation == "portrait"
    assert found.codec == "hevc"
    with pytest.raises(NotMedia):
        parse_header(header.replace("Video:", "Audio:"))
    newer = header.replace("displaymatrix:", "Display Matrix:")  # ffmpeg 7 and later
    assert parse_header(newer).rotation == 270


@pytest.mark.parametrize(
    "size, expected",
    [((1920, 1080), "landscape"), ((1080, 1920), "portrait"), ((1080, 1080), "square"),
     ((1000, 960), "square"), ((1000, 900), "landscape")],
)  # fmt: skip
def test_orientation_of(size: tuple[int, int], expected: str):
    assert orientation_of(*size) == expected
