"""The analysis job: per-file progress, the content-hash cache, resuming after a dead worker."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

import services.planner.ingest.video as video
from services.common.db import create_tables
from services.common.jobs import JobQueue
from services.common.worker import Worker
from services.planner.config import PlannerSettings
from services.planner.ingesting import (
    ANALYZE_KIND,
    ANALYZE_LEASE_S,
    MediaAnalysisRow,
    analyze_handler,
    output_path,
)

MEASURE = video.measure_video


class Crash(BaseException):
    """A worker dying mid-job (not an ordinary exception: nothing catches it)."""


@pytest.fixture
def root(media: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    (folder / "trip").mkdir(parents=True)
    shutil.copy(media / "cuts.mp4", folder / "trip" / "a_cuts.mp4")
    shutil.copy(media / "handheld.mp4", folder / "trip" / "b_handheld.mp4")
    return folder


@pytest.fixture
def settings(root: Path, tmp_path: Path, database_url: str) -> PlannerSettings:
    return PlannerSettings(
        data_dir=tmp_path / "data", database_url=database_url, media_root=root, analyze_workers=1
    )


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def counting(monkeypatch, crash_on: str | None = None) -> list[str]:
    """Count real measurements (by file name); optionally die on one file."""
    calls: list[str] = []

    def measure(path, **kwargs):
        if crash_on and Path(path).name == crash_on:
            raise Crash(path)
        calls.append(Path(path).name)
        return MEASURE(path, **kwargs)

    monkeypatch.setattr(video, "measure_video", measure)
    return calls


PAYLOAD = {
    "files": ["trip/a_cuts.mp4", "trip/b_handheld.mp4"],
    "music": [],
    "split_shots": True,
    "captions": "auto",
}


def run_job(settings, engine, queue, worker_id="w1") -> dict:
    worker = Worker(queue, {ANALYZE_KIND: analyze_handler(settings, engine)}, worker_id=worker_id,
                    lease_s=ANALYZE_LEASE_S)  # fmt: skip
    assert worker.run_once()
    return json.loads(output_path(settings, queue.list()[0].id).read_text())


def test_a_job_analyses_each_file_and_reports_progress(settings, engine, monkeypatch):
    create_tables(engine)
    calls = counting(monkeypatch)
    queue = JobQueue(engine)
    job = queue.submit(ANALYZE_KIND, PAYLOAD)
    output = run_job(settings, engine, queue)
    assert calls == ["a_cuts.mp4", "b_handheld.mp4"]
    assert [c["uri"] for c in output["clips"]] == ["trip/a_cuts.mp4"] * 3 + ["trip/b_handheld.mp4"]
    assert "shaky" in output["clips"][3]["tags"]
    assert output["errors"] == [] and output["music"] == []
    done = queue.get(job.id)
    assert done.status == "succeeded"
    footage_s = sum(c["duration_s"] for c in output["clips"])
    assert done.result == {
        "clips": 4, "music": 0, "errors": 0, "footage_s": pytest.approx(footage_s, abs=0.1),
        "pool_cpu_s": 0.0, "pool_peak_rss_mb": 0.0,
    }  # fmt: skip
    assert done.progress == {
        "files_done": 2, "files_total": 2, "current": None,
        "footage_s_done": done.result["footage_s"], "footage_s_total": done.result["footage_s"],
    }  # fmt: skip


def test_analysing_again_costs_nothing(settings, engine, monkeypatch):
    create_tables(engine)
    calls = counting(monkeypatch)
    queue = JobQueue(engine)
    queue.submit(ANALYZE_KIND, PAYLOAD)
    first = run_job(settings, engine, queue)
    with Session(engine) as session:
        rows = session.exec(select(func.count()).select_from(MediaAnalysisRow)).one()
    assert rows == 4  # a measurement and the clips of each file
    queue.submit(ANALYZE_KIND, PAYLOAD)
    worker = Worker(queue, {ANALYZE_KIND: analyze_handler(settings, engine)}, lease_s=60)
    assert worker.run_once()
    second = json.loads(output_path(settings, queue.list()[0].id).read_text())
    assert calls == ["a_cuts.mp4", "b_handheld.mp4"]  # nothing measured the second time
    assert second == first


def test_the_skim_setting_reaches_the_decoder_and_keys_the_cache(settings, engine, monkeypatch):
    create_tables(engine)
    seen: list[bool] = []

    def measure(path, **kwargs):
        seen.append(kwargs["skim"])
        return MEASURE(path, **kwargs)

    monkeypatch.setattr(video, "measure_video", measure)
    queue = JobQueue(engine)
    queue.submit(ANALYZE_KIND, PAYLOAD)
    skimmed = run_job(settings, engine, queue)
    whole = settings.model_copy(update={"analyze_skim": False})
    queue.submit(ANALYZE_KIND, PAYLOAD)
    worker = Worker(queue, {ANALYZE_KIND: analyze_handler(whole, engine)}, lease_s=60)
    assert worker.run_once()
    again = json.loads(output_path(whole, queue.list()[0].id).read_text())
    assert seen == [True, True, False, False]  # the other setting measures afresh
    assert [c["start_s"] for c in again["clips"]] == [c["start_s"] for c in skimmed["clips"]]


def test_a_renamed_copy_reuses_the_measurement_but_names_its_own_uri(settings, engine, monkeypatch):
    create_tables(engine)
    calls = counting(monkeypatch)
    queue = JobQueue(engine)
    queue.submit(ANALYZE_KIND, PAYLOAD)
    run_job(settings, engine, queue)
    shutil.copy(settings.media_root / "trip" / "a_cuts.mp4", settings.media_root / "again.mp4")
    queue.submit(ANALYZE_KIND, {**PAYLOAD, "files": ["again.mp4"]})
    worker = Worker(queue, {ANALYZE_KIND: analyze_handler(settings, engine)}, lease_s=60)
    assert worker.run_once()
    output = json.loads(output_path(settings, queue.list()[0].id).read_text())
    assert len(calls) == 2
    assert {c["uri"] for c in output["clips"]} == {"again.mp4"}
    assert {c["caption"] for c in output["clips"]} == {"again"}


def test_a_dead_worker_s_job_resumes_without_measuring_a_file_twice(settings, engine, monkeypatch):
    create_tables(engine)
    clock = Clock()
    queue = JobQueue(engine, clock=clock)
    job = queue.submit(ANALYZE_KIND, PAYLOAD)
    calls = counting(monkeypatch, crash_on="b_handheld.mp4")
    dying = Worker(queue, {ANALYZE_KIND: analyze_handler(settings, engine)}, worker_id="dies",
                   lease_s=ANALYZE_LEASE_S)  # fmt: skip
    with pytest.raises(Crash):
        dying.run_once()
    assert calls == ["a_cuts.mp4"]
    running = queue.get(job.id)
    assert running.status == "running"
    assert running.progress["files_done"] == 1 and running.progress["current"] == (
        "trip/b_handheld.mp4"
    )
    clock.now += timedelta(seconds=ANALYZE_LEASE_S + 1)  # the lease runs out
    calls = counting(monkeypatch)
    output = run_job(settings, engine, queue, worker_id="takes-over")
    assert calls == ["b_handheld.mp4"]
    assert len(output["clips"]) == 4
    finished = queue.get(job.id)
    assert (finished.status, finished.attempts) == ("succeeded", 2)


def test_a_bad_file_is_reported_and_the_rest_analysed(settings, engine, monkeypatch):
    create_tables(engine)
    (settings.media_root / "trip" / "broken.mp4").write_bytes(b"\x00not a video" * 50)
    queue = JobQueue(engine)
    files = ["trip/broken.mp4", *PAYLOAD["files"]]
    queue.submit(ANALYZE_KIND, {**PAYLOAD, "files": files, "music": ["trip/broken.mp4"]})
    output = run_job(settings, engine, queue)
    assert len(output["clips"]) == 4
    assert [e["path"] for e in output["errors"]] == ["trip/broken.mp4", "trip/broken.mp4"]
    assert output["errors"][0]["code"] == "not_media"
    assert output["errors"][0]["message"]


def test_captions_from_a_failed_vision_model_are_not_cached(settings, engine, monkeypatch):
    import services.planner.ingesting as ingesting
    from services.planner.ingest.errors import CaptionerFailed

    class Broken:
        model = "broken-vlm"

        def caption(self, images, hint=""):
            raise CaptionerFailed("the vision model is down")

        def close(self) -> None:
            pass

    create_tables(engine)
    monkeypatch.setattr(ingesting, "vision_captioner", lambda settings: Broken())
    queue = JobQueue(engine)
    queue.submit(ANALYZE_KIND, {**PAYLOAD, "files": ["trip/b_handheld.mp4"]})
    output = run_job(settings, engine, queue)
    assert output["errors"][0]["code"] == "captioner_failed"
    assert output["clips"][0]["caption_source"] == "filename"
    with Session(engine) as session:
        kinds = session.exec(select(MediaAnalysisRow.kind)).all()
    assert kinds == ["measure"]  # the measurement is kept, the fallback captions are not


def test_a_pool_of_processes_gives_the_same_output_in_the_same_order(settings, engine):
    create_tables(engine)
    queue = JobQueue(engine)
    (settings.media_root / "trip" / "broken.mp4").write_bytes(b"\x00not a video" * 50)
    files = [*PAYLOAD["files"], "trip/broken.mp4"]
    queue.submit(ANALYZE_KIND, {**PAYLOAD, "files": files})
    one_by_one = run_job(settings, engine, queue)
    fresh = settings.model_copy(update={"analyze_workers": 2, "data_dir": settings.data_dir / "p"})
    other = JobQueue(engine)
    with Session(engine) as session:  # forget the cached measurements: measure again
        for row in session.exec(select(MediaAnalysisRow)).all():
            session.delete(row)
        session.commit()
    job = other.submit(ANALYZE_KIND, {**PAYLOAD, "files": files})
    worker = Worker(other, {ANALYZE_KIND: analyze_handler(fresh, engine)}, lease_s=60)
    assert worker.run_once()
    side_by_side = json.loads(output_path(fresh, job.id).read_text())
    assert side_by_side == one_by_one
    assert [e["code"] for e in side_by_side["errors"]] == ["not_media"]
    done = other.get(job.id)
    assert done.result["pool_cpu_s"] > 0  # measured in the pool's processes
    assert done.result["pool_peak_rss_mb"] > 10
    assert done.progress["files_done"] == 3 and done.progress["footage_s_done"] > 4
