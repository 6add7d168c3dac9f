"""Metrics: counters that add up across uvicorn workers, and the domain metrics exported."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import Engine

from services.common import app as common_app
from services.common.db import create_tables
from services.common.jobs import JobQueue
from services.common.metrics import QueueDepth
from services.common.serve import prepare_metrics_dir
from services.common.settings import CommonSettings
from services.common.worker import JobContext, Worker

REQUESTS = 60
BATCHES = 20
"""Batches of REQUESTS sent at most until both workers served one: the second worker may
still be starting when the first answers, and on a busy machine one worker may take a batch."""
HEALTH = {"method": "GET", "route": "/healthz", "status": "200"}


def value(text: str, sample: str, labels: dict[str, str] | None = None) -> float | None:
    """The value of ``sample`` with exactly ``labels`` in a Prometheus text exposition."""
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == sample and s.labels == (labels or {}):
                return s.value
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def two_workers(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The verifier under ``services.common.serve --workers 2`` on a free port."""
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_999999.db").write_bytes(b"stale")  # a previous run's leftover
    port = _free_port()
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "REFINERY_DATA_DIR": str(tmp_path / "data"),
        "REFINERY_LOG_LEVEL": "WARNING",
    }
    argv = [sys.executable, "-m", "services.common.serve", "services.verifier.app:app"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--no-access-log"]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the workers did not start"
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url, metrics_dir
    finally:
        process.terminate()
        process.wait(timeout=30)


def _served_by(metrics_dir: Path) -> dict[str, float]:
    """Per worker pid: /healthz requests its own counter file holds."""
    served = {}
    for path in metrics_dir.glob("counter_*.db"):
        total = 0.0
        for key, count, *_rest in MmapedDict.read_all_values_from_file(str(path)):
            if "refinery_http_requests_total" in key and '"/healthz"' in key:
                total += count
        served[path.stem.split("_")[1]] = total
    return served


def test_counters_add_up_across_two_workers(two_workers: tuple[str, Path]) -> None:
    url, metrics_dir = two_workers
    before = value(httpx.get(url + "/metrics").text, "refinery_http_requests_total", HEALTH)

    def hit(_: int) -> int:
        with httpx.Client() as fresh:  # a new connection each: the kernel picks the worker
            return fresh.get(url + "/healthz").status_code

    sent = 0
    with ThreadPoolExecutor(8) as pool:
        for _ in range(BATCHES):
            assert set(pool.map(hit, range(REQUESTS))) == {200}
            sent += REQUESTS
            served = _served_by(metrics_dir)
            if sum(1 for n in served.values() if n > 0) == 2:
                break
    assert "999999" not in served  # the stale file was cleared at start
    assert sum(1 for n in served.values() if n > 0) == 2  # both workers took requests
    scrapes = [httpx.get(url + "/metrics", headers={"Connection": "close"}) for _ in range(6)]
    totals = {value(s.text, "refinery_http_requests_total", HEALTH) for s in scrapes}
    assert totals == {(before or 0) + sent}  # every scrape, whichever worker answers
    assert "process_cpu_seconds_total" not in scrapes[0].text  # per-process figures left out


def test_prepare_metrics_dir_makes_a_fresh_folder_when_none_is_given() -> None:
    environ: dict[str, str] = {}
    path = prepare_metrics_dir(environ)
    assert path.is_dir() and not any(path.iterdir())
    assert environ["PROMETHEUS_MULTIPROC_DIR"] == str(path)
    path.rmdir()


@pytest.fixture
def jobs_app(engine: Engine) -> Iterator[tuple[TestClient, JobQueue]]:
    create_tables(engine)
    queue = JobQueue(engine)
    app = common_app.build_app(title="jobs", settings=CommonSettings(log_level="WARNING"))
    app.state.metrics.add_live(QueueDepth(queue.depth))
    with TestClient(app) as client:
        yield client, queue


def _ok(ctx: JobContext) -> dict:
    return {"done": ctx.payload["n"]}


def _boom(_ctx: JobContext) -> dict:
    raise ValueError("no")


def test_queue_depth_and_job_durations_per_kind(jobs_app: tuple[TestClient, JobQueue]) -> None:
    client, queue = jobs_app
    ok = {"kind": "demo.ok", "outcome": "succeeded"}
    failed = {"kind": "demo.boom", "outcome": "failed"}
    text = client.get("/metrics").text
    before_ok = value(text, "refinery_job_duration_seconds_count", ok) or 0
    before_failed = value(text, "refinery_job_duration_seconds_count", failed) or 0
    for n in range(3):
        queue.submit("demo.ok", {"n": n})
    queue.submit("demo.boom", {})
    text = client.get("/metrics").text
    assert value(text, "refinery_job_queue_depth", {"kind": "demo.ok"}) == 3
    assert value(text, "refinery_job_queue_depth", {"kind": "demo.boom"}) == 1
    worker = Worker(queue, {"demo.ok": _ok, "demo.boom": _boom}, lease_s=30)
    while worker.run_once():
        pass
    text = client.get("/metrics").text
    assert value(text, "refinery_job_queue_depth", {"kind": "demo.ok"}) is None  # none left
    assert value(text, "refinery_job_duration_seconds_count", ok) == before_ok + 3
    assert value(text, "refinery_job_duration_seconds_count", failed) == before_failed + 1


def test_every_domain_metric_is_exported(jobs_app: tuple[TestClient, JobQueue]) -> None:
    client, _ = jobs_app
    names = {f.name for f in text_string_to_metric_families(client.get("/metrics").text)}
    expected = {
        "refinery_plan_rounds",
        "refinery_plan_ves",
        "refinery_render_seconds",
        "refinery_synth_candidates",
        "refinery_job_duration_seconds",
        "refinery_job_queue_depth",
        "refinery_jobs_running",
        "refinery_http_requests",
    }
    assert expected <= names
