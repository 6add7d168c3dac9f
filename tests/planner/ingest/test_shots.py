"""Shot boundaries on generated footage with known cuts: hard cuts, dissolves, no false cuts."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.planner.ingest.shots import Cut, _peaks, merge_cuts, shot_spans
from services.planner.ingest.video import measure_video
from tests.planner.ingest import footage


def cuts_of(path: Path) -> list[tuple[int, str]]:
    shots = measure_video(path).shots
    return [(shot["start_frame"], shot["begins"]) for shot in shots[1:]]


def test_hard_cuts_are_found_on_their_frame(media: Path):
    assert cuts_of(media / "cuts.mp4") == [(60, "cut"), (120, "cut")]


def test_cuts_and_a_dissolve_in_one_file(media: Path):
    found = cuts_of(media / "trip" / "mixed.mp4")
    assert [kind for _, kind in found] == ["cut", "dissolve", "cut"]
    for (frame, _), truth in zip(found, [60, 105, 165], strict=True):
        assert abs(frame - truth) <= 2, (frame, truth)


@pytest.mark.parametrize("duration", [0.3, 0.5, 1.0, 2.0])
def test_a_dissolve_cuts_at_its_middle(duration: float, tmp_path: Path):
    path = footage.dissolve(tmp_path / "d.mp4", offset=1.5, duration=duration)
    middle = 30 * (1.5 + duration / 2)
    found = cuts_of(path)
    assert len(found) == 1, found
    assert found[0][1] == "dissolve"
    assert abs(found[0][0] - middle) <= 2, (found, middle)


def test_a_dissolve_between_other_patterns(tmp_path: Path):
    path = footage.dissolve(tmp_path / "d.mp4", a="bars", b="test", offset=2.0, duration=1.0)
    (frame, kind), *rest = cuts_of(path)
    assert not rest and kind == "dissolve" and abs(frame - 75) <= 2


@pytest.mark.parametrize("name", ["handheld.mp4", "tripod.mp4", "pan.mp4", "night.mp4"])
def test_one_continuous_shot_has_no_cut(media: Path, name: str):
    assert cuts_of(media / name) == []


def test_a_cut_into_busy_footage_and_none_inside_it(tmp_path: Path):
    """A shaken game of life changes most of the picture on every frame (a plain
    ContentDetector cuts it again 1.5 s in): only the jump out of the calm shot is a cut."""
    path = footage.hard_cuts(tmp_path / "busy.mp4", names=("bars", "life"), seconds=3.0)
    assert cuts_of(path) == [(90, "cut")]


def test_a_zooming_fractal_is_one_shot(tmp_path: Path):
    path = footage.ffmpeg(footage.source("fractal", 4), tmp_path / "zoom.mp4")
    assert cuts_of(path) == []


def test_merge_keeps_dissolves_over_a_mid_blend_cut_and_drops_the_ends():
    gradual = [Cut(61, "dissolve"), Cut(200, "dissolve"), Cut(299, "dissolve")]
    merged = merge_cuts([60, 0, 120], gradual, fps=30, frames=300)
    assert merged == [Cut(61, "dissolve"), Cut(120, "cut"), Cut(200, "dissolve")]
    assert shot_spans(merged, 300) == [
        (0, 61, "start"), (61, 120, "dissolve"), (120, 200, "cut"), (200, 300, "dissolve")
    ]  # fmt: skip


def test_the_shoulder_of_a_hard_cut_is_no_dissolve():
    """A steadily changing shot (a linear change, like a blend) runs into a hard cut: ``D``
    over the shot is high and even, then higher still across the cut. The shot's plateau is
    a shoulder of the cut's change, not a dissolve of its own."""
    steady = [(10.0, 0.5)] * 40 + [(45.0, 0.16)] * 25 + [(58.0, 0.5)] * 12 + [(10.0, 0.5)] * 40
    curve = [(n, change, ratio, 120.0) for n, (change, ratio) in enumerate(steady)]
    assert _peaks(curve, 6) == []
    blend = [(10.0, 0.5)] * 40 + [(45.0, 0.16)] * 12 + [(10.0, 0.5)] * 40
    (found,) = _peaks([(n, c, r, 120.0) for n, (c, r) in enumerate(blend)], 6)
    assert found[0] == 46 and not found[1]
