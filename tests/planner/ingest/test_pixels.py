"""Pixel tags on generated footage: handheld vs tripod vs pan, dark vs lit, slow motion."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.planner.ingest.pixels import SHAKY_PX, Sample, measure
from services.planner.ingest.video import measure_video
from tests.planner.ingest import footage


def shot(path: Path) -> dict:
    (only,) = measure_video(path, split_shots=False).shots
    return only


def test_handheld_is_shaky_tripod_and_pan_are_not(media: Path):
    handheld, tripod, pan = (shot(media / n) for n in ("handheld.mp4", "tripod.mp4", "pan.mp4"))
    assert "shaky" in handheld["tags"]
    assert "shaky" not in tripod["tags"] and "shaky" not in pan["tags"]
    assert handheld["shake"] > 2 * SHAKY_PX > 4 * max(tripod["shake"], pan["shake"])
    assert handheld["quality"] < tripod["quality"]


def test_night_is_dark_day_is_not(media: Path):
    night, day = shot(media / "night.mp4"), shot(media / "day.mp4")
    assert night["tags"] == ["dark"]
    assert "dark" not in day["tags"]
    assert night["luma"] < day["luma"] - 40
    assert night["quality"] < day["quality"]


def test_sixty_fps_is_slowmo(media: Path):
    assert "slowmo" in shot(media / "slowmo.mp4")["tags"]
    assert "slowmo" not in shot(media / "day.mp4")["tags"]


def test_blur_lowers_quality(media: Path, tmp_path: Path):
    blurred = shot(footage.still(tmp_path / "blur.mp4", vf="scale=320:180,gblur=sigma=3"))
    sharp = shot(media / "day.mp4")
    assert blurred["sharpness"] < sharp["sharpness"] / 10
    assert blurred["quality"] < sharp["quality"] - 0.1
    assert 0 <= blurred["quality"] <= 1


def test_samples_are_sparse(media: Path):
    measured = shot(media / "tripod.mp4")  # 3 s at 30 fps: 90 frames, 6 samples a second
    assert 15 <= measured["samples"] <= 19


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_measure_without_samples_is_neutral(fps: float):
    empty = measure([], fps=fps)
    assert empty.samples == 0 and empty.quality == 0.5
    assert ("slowmo" in empty.tags) == (fps >= 50)


def test_a_steady_pan_has_no_shake_however_fast():
    moving = [Sample(i * 5, 120, 0.1, 0.0, 500.0, 6.0, 0.5) for i in range(12)]
    assert measure(moving, fps=30).shake == 0
    jitter = [Sample(i * 5, 120, 0.1, 0.0, 500.0, (-1) ** i * 4.0, 0.0) for i in range(12)]
    assert "shaky" in measure(jitter, fps=30).tags


def test_dark_things_in_good_light_are_not_low_light(tmp_path: Path):
    """A game of life on dark blue: a dim mean, but its live cells stay bright."""
    graph = ("life=s=80x45:r=30:mold=10:ratio=0.3:life_color=#ffcc33:death_color=#223355,"
             "scale=320x180:flags=neighbor,trim=duration=2")  # fmt: skip
    measured = shot(footage.ffmpeg(["-f", "lavfi", "-i", graph], tmp_path / "life.mp4"))
    assert measured["luma"] < 80 < 143 < measured["highlight"]
    assert "dark" not in measured["tags"]
