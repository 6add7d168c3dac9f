"""POST /v1/media:analyze end to end: a real planner app, its worker thread, real footage."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from protocol.media import ffmpeg_binary
from protocol.planner import AnalysisOutput
from protocol.verifier import TaskIn
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_openai import serve
from tests.planner.ingest.fake_vlm import FakeVision


@pytest.fixture
def root(media: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "media"
    (folder / "trip" / "more").mkdir(parents=True)
    shutil.copy(media / "cuts.mp4", folder / "trip" / "beach_walk.mp4")
    shutil.copy(media / "portrait.mp4", folder / "trip" / "more" / "selfie.MOV")
    (folder / "trip" / "notes.txt").write_text("not footage")
    (folder / "trip" / "broken.mp4").write_bytes(b"\x00\x01 no video here" * 20)
    (folder / "tunes").mkdir()
    clicks = "0.6*sin(2*PI*880*t)*exp(-40*mod(t,0.5))+0.5*sin(2*PI*60*t)*exp(-30*mod(t,2))"
    subprocess.run(
        [ffmpeg_binary(), "-v", "error", "-y", "-f", "lavfi",
         "-i", f"aevalsrc=exprs='{clicks}':s=22050:d=8", str(folder / "tunes" / "beat.wav")],
        check=True, timeout=60,
    )  # fmt: skip
    return folder


def planner_for(root: Path, tmp_path: Path, database_url: str, **extra) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(
        data_dir=tmp_path / "data", database_url=database_url, media_root=root, **extra
    )
    with TestClient(build_app(settings, verifier=verifier)) as client:
        yield client


@pytest.fixture
def planner(root: Path, tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    yield from planner_for(root, tmp_path, database_url)


def finish(client: TestClient, job: dict) -> dict:
    deadline = time.monotonic() + 120
    while job["status"] in {"queued", "running"}:
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
        job = client.get(f"/v1/jobs/{job['job_id']}").json()
    return job


def test_a_folder_becomes_task_clips(planner: TestClient):
    answer = planner.post("/v1/media:analyze", json={"paths": ["trip"], "music": ["tunes"]})
    assert answer.status_code == 202
    job = finish(planner, answer.json())
    assert job["status"] == "succeeded", job
    assert job["kind"] == "planner.analyze"
    progress = job["progress"]
    assert (progress["files_done"], progress["files_total"], progress["current"]) == (4, 4, None)
    assert progress["footage_s_done"] == progress["footage_s_total"] > 0
    output = planner.get(f"/v1/jobs/{job['job_id']}/output")
    assert output.headers["content-type"].startswith("application/json")
    body = output.json()
    AnalysisOutput.model_validate(body)
    assert [c["uri"] for c in body["clips"]] == ["trip/beach_walk.mp4"] * 3 + [
        "trip/more/selfie.MOV"
    ]
    assert body["clips"][3]["orientation"] == "portrait"
    assert body["clips"][0]["caption"] == "beach walk"
    assert body["errors"] == [
        {"path": "trip/broken.mp4", "code": "not_media", "message": body["errors"][0]["message"]}
    ]
    (track,) = body["music"]
    assert track["uri"] == "tunes/beat.wav"
    assert track["bpm"] == pytest.approx(120, rel=0.05)
    assert track["duration_s"] == pytest.approx(8, abs=0.05)
    task = TaskIn.model_validate(
        {"id": "from-footage", "brief": {"text": "a beach walk"}, "clips": body["clips"],
         "music": body["music"]}
    ).to_task()  # fmt: skip
    assert len(task.clips) == 4 and len(task.tracks) == 1


def test_split_shots_false_and_no_captions(planner: TestClient):
    job = planner.post(
        "/v1/media:analyze",
        json={"paths": ["trip/beach_walk.mp4"], "split_shots": False, "captions": "none"},
    ).json()
    body = planner.get(f"/v1/jobs/{finish(planner, job)['job_id']}/output").json()
    assert len(body["clips"]) == 1
    assert body["clips"][0]["caption_source"] == "manual"


@pytest.mark.parametrize(
    "body, param, code",
    [
        ({"paths": ["../outside.mp4"]}, "paths[0]", "media_outside_root"),
        ({"paths": ["/etc/passwd"]}, "paths[0]", "media_outside_root"),
        ({"paths": ["trip", "missing.mp4"]}, "paths[1]", "media_not_found"),
        ({"paths": [], "music": ["nope.wav"]}, "music[0]", "media_not_found"),
        ({"paths": ["trip/more"], "music": ["trip"]}, "music[0]", "media_not_found"),
        ({"paths": [], "music": []}, None, None),
        ({"paths": ["trip"], "captions": "maybe"}, "captions", None),
        ({"paths": ["trip"], "shots": True}, "shots", None),
    ],
)
def test_bad_requests_are_422_naming_the_field(planner: TestClient, body, param, code):
    answer = planner.post("/v1/media:analyze", json=body)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["message"]
    if param is not None:
        assert error["param"] == param
    if code is not None:
        assert error["code"] == code
    assert planner.get("/v1/jobs/nope/output").status_code == 404


def test_output_before_the_job_is_done_is_409(planner: TestClient):
    job = planner.app.state.jobs.submit("planner.analyze.other", {})
    answer = planner.get(f"/v1/jobs/{job.id}/output")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "job_not_ready"


def test_a_configured_vision_model_captions_the_shots(root, tmp_path, database_url):
    fake = FakeVision(models=("fake-vlm",))
    with serve(fake.app) as url:
        for client in planner_for(root, tmp_path, database_url, vlm_model="fake-vlm",
                                  vlm_base_url=url):  # fmt: skip
            job = client.post("/v1/media:analyze", json={"paths": ["trip/more"]}).json()
            body = client.get(f"/v1/jobs/{finish(client, job)['job_id']}/output").json()
    (clip,) = body["clips"]
    assert clip["caption_source"] == "llm"
    assert clip["caption"].startswith("a bright frame")
    assert len(fake.requests) == 1
