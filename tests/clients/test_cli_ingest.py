"""`refinery ingest` and `refinery plan --media` against a real planner on real footage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from clients.cli import app as cli
from clients.cli_ingest import _bar_fields, relative_to_root
from clients.errors import RefineryClientError
from clients.verifier import VerifierClient
from protocol.verifier import TaskIn
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.test_media import needs_ffmpeg
from tests.servers import serve_in_thread

pytest.importorskip("scenedetect")
pytest.importorskip("librosa")
pytestmark = needs_ffmpeg

SPEC = {
    "fps": 25,
    "size": [192, 108],
    "files": [
        {"name": "footage/beach.mp4", "shots": [
            {"source": "testsrc2", "seconds": 3.0, "hue": 180},
            {"source": "mandelbrot", "seconds": 3.0, "hue": 30}]},
        {"name": "footage/sunset.mp4", "shots": [
            {"source": "smptebars", "seconds": 3.0, "hue": 20},
            {"source": "rgbtestsrc", "seconds": 3.0, "hue": 300}]},
    ],
    "music": [{"name": "music/track.wav", "bpm": 120, "seconds": 20.0}],
}  # fmt: skip
CAPTIONS = (
    "file,start_s,end_s,caption,tags\n"
    "beach.mp4,0,3,waves on the beach,beach;ocean\n"
    "beach.mp4,3,6,a surfer rides a wave,surfer;wave\n"
    "sunset.mp4,0,3,the sun sets over the sea,sunset;ocean\n"
    "sunset.mp4,3,6,friends by a bonfire,friends;fire\n"
)
BRIEF = "A 10-second reel: open on the beach, end on the sunset, no clip twice."


@pytest.fixture
def example(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "trip" / "footage").mkdir(parents=True)
    (root / "trip" / "media.json").write_text(json.dumps(SPEC))
    (root / "trip" / "footage" / "captions.csv").write_text(CAPTIONS)
    return root


@pytest.fixture
def planner_url(example: Path, tmp_path: Path, database_url: str) -> Iterator[str]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(
        data_dir=tmp_path / "data", database_url=database_url, media_root=example
    )
    with serve_in_thread(build_app(settings, verifier=verifier)) as url:
        yield url


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code in (0, 1), result.output
    return result.output


def test_plan_from_footage_makes_media_analyses_compiles_and_plans(
    example: Path, planner_url: str, tmp_path: Path
) -> None:
    footage = example / "trip" / "footage"
    otio = tmp_path / "cut.otio"
    output = _invoke(
        "plan", "--media", str(footage), "--music", str(example / "trip/music/track.wav"),
        "--brief", BRIEF, "--make-media", "--media-root", str(example), "--url", planner_url,
        "--otio", str(otio),
    )  # fmt: skip
    assert "generated 3 media files" in output
    assert "analysed 4 shots and 1 music tracks" in output
    assert "ledger compiled from the brief" in output and "“open on the beach”" in output
    assert "FEASIBLE" in output
    document = json.loads(otio.read_text())
    assert document["OTIO_SCHEMA"].startswith("Timeline")
    cut = json.dumps(document)
    assert "footage/beach.mp4" in cut and "footage/sunset.mp4" in cut


def test_ingest_writes_a_compiled_task_or_the_analysis(
    example: Path, planner_url: str, tmp_path: Path
) -> None:
    from protocol.footage import generate_footage

    generate_footage(example / "trip" / "media.json")
    footage, track = example / "trip" / "footage", example / "trip/music/track.wav"
    task_path, analysis_path = tmp_path / "task.json", tmp_path / "analysis.json"
    common = ["--music", str(track), "--media-root", str(example), "--url", planner_url]
    _invoke("ingest", str(footage), *common, "--brief", BRIEF, "--out", str(task_path))
    task = TaskIn.model_validate(json.loads(task_path.read_text())).to_task()
    assert len(task.clips) == 4 and len(task.tracks) == 1
    assert {c.kind for c in task.ledger} >= {"order", "no_reuse"}
    sources = {clip["caption_source"] for clip in json.loads(task_path.read_text())["clips"]}
    assert sources == {"sidecar"}
    _invoke("ingest", str(footage), *common, "--out", str(analysis_path))
    analysis = json.loads(analysis_path.read_text())
    assert set(analysis) == {"clips", "music"} and analysis["music"][0]["beats_s"]


def test_footage_outside_the_media_root_is_refused_in_one_line(
    example: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    with pytest.raises(RefineryClientError, match="outside the media root"):
        relative_to_root(outside, example)
    assert relative_to_root(example / "trip", example) == "trip"
    result = CliRunner().invoke(
        cli, ["ingest", str(outside), "--media-root", str(example), "--url", "http://127.0.0.1:9"]
    )
    assert result.exit_code == 2
    assert "outside the media root" in result.output


def test_the_analysis_bar_runs_on_footage_seconds_when_the_planner_counts_them() -> None:
    seconds = _bar_fields({"files_done": 1, "files_total": 3, "current": "a.mp4",
                           "footage_s_done": 42.4, "footage_s_total": 90.0})  # fmt: skip
    assert (seconds["completed"], seconds["total"]) == (42.4, 90.0)
    assert seconds["done"] == "1/3 files · 42/90 s of footage"
    files = _bar_fields({"files_done": 1, "files_total": 3, "current": None})
    assert (files["completed"], files["total"], files["current"]) == (1, 3, "")
