"""Example footage from a spec: shots joined by cuts and dissolves, music with a beat."""

from __future__ import annotations

import json
import wave
from pathlib import Path

import pytest

from protocol.footage import find_spec, generate_footage
from protocol.media_errors import MediaOutsideRoot
from services.planner.export.render import probe
from tests.planner.test_media import needs_ffmpeg

pytestmark = needs_ffmpeg

SPEC = {
    "fps": 24,
    "size": [160, 90],
    "files": [
        {"name": "footage/a.mp4", "shots": [
            {"source": "testsrc2", "seconds": 1.0},
            {"source": "smptebars", "seconds": 1.0, "hue": 90},
            {"source": "mandelbrot", "seconds": 1.5, "transition": "dissolve"}]},
        {"name": "footage/b.mp4", "orientation": "portrait",
         "shots": [{"source": "rgbtestsrc", "seconds": 0.5}]},
    ],
    "music": [{"name": "music/t.wav", "bpm": 100, "seconds": 2.0}],
}  # fmt: skip


def _spec(folder: Path, spec: dict) -> Path:
    path = folder / "media.json"
    path.write_text(json.dumps(spec))
    return path


def test_files_have_their_shots_and_dissolves_overlap(tmp_path: Path):
    spec = _spec(tmp_path, SPEC)
    written = generate_footage(spec)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == [
        "footage/a.mp4", "footage/b.mp4", "music/t.wav",
    ]  # fmt: skip
    video, _ = probe(tmp_path / "footage/a.mp4")
    assert int(video["nb_frames"]) == 24 * (1.0 + 1.0 + 1.5 - 0.5)  # the dissolve overlaps
    portrait, _ = probe(tmp_path / "footage/b.mp4")
    assert (portrait["width"], portrait["height"]) == (90, 160)
    with wave.open(str(tmp_path / "music/t.wav")) as track:
        assert track.getnframes() == pytest.approx(2.0 * track.getframerate(), abs=2)
    assert generate_footage(spec) == []  # existing files are kept


def test_the_spec_is_found_beside_or_above_the_footage(tmp_path: Path):
    spec = _spec(tmp_path, SPEC)
    (tmp_path / "footage").mkdir()
    assert find_spec(tmp_path / "footage") == spec
    assert find_spec(tmp_path) == spec
    assert find_spec(tmp_path / "footage" / "deeper") is None


def test_a_name_outside_the_spec_folder_is_refused_before_writing(tmp_path: Path):
    folder = tmp_path / "example"
    folder.mkdir()
    escape = {"name": "../escape.wav", "bpm": 100, "seconds": 1.0}
    spec = _spec(folder, {**SPEC, "music": [escape]})
    with pytest.raises(MediaOutsideRoot):
        generate_footage(spec)
    assert not (folder / "footage").exists()
