from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import Engine

from services.common.db import create_tables
from services.common.errors import RefineryError
from services.common.jobs import JobQueue
from services.common.worker import JobContext, Worker

from .crashy_worker import KIND, ResultRow, write_rows

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def queue(engine: Engine) -> JobQueue:
    create_tables(engine)
    return JobQueue(engine)


def test_run_once_completes_with_handler_result(queue: JobQueue) -> None:
    job = queue.submit("double", {"x": 21})
    worker = Worker(queue, {"double": lambda ctx: {"y": ctx.payload["x"] * 2}}, worker_id="w")
    assert worker.run_once() is True
    assert worker.run_once() is False
    done = queue.get(job.id)
    assert done is not None and done.status == "succeeded" and done.result == {"y": 42}


def test_handler_exception_fails_job_without_retry(queue: JobQueue) -> None:
    def boom(ctx: JobContext) -> dict:
        raise ValueError("bad input")

    def typed(ctx: JobContext) -> dict:
        raise RefineryError("no such catalog", code="catalog_missing")

    failing = queue.submit("boom", {})
    refinery = queue.submit("typed", {})
    worker = Worker(queue, {"boom": boom, "typed": typed})
    assert worker.run_once() and worker.run_once() and not worker.run_once()
    a, b = queue.get(failing.id), queue.get(refinery.id)
    assert a is not None and a.status == "failed" and a.attempts == 1
    assert a.error == {"code": "handler_error", "message": "ValueError: bad input"}
    assert b is not None and b.error == {"code": "catalog_missing", "message": "no such catalog"}


def test_progress_heartbeat_and_cancellation(queue: JobQueue) -> None:
    job = queue.submit("slow", {})
    seen: dict[str, object] = {}

    def slow(ctx: JobContext) -> dict:
        ctx.heartbeat(progress={"step": 1})
        seen["progress"] = ctx.progress
        seen["before"] = ctx.cancelled()
        queue.cancel(ctx.job.id)  # e.g. DELETE /v1/jobs/{id} while it runs
        seen["after"] = ctx.cancelled()
        ctx.heartbeat(progress={"step": 2})  # raises LeaseLost: the worker abandons it
        seen["unreachable"] = True
        return {}

    assert Worker(queue, {"slow": slow}).run_once()
    assert seen == {"progress": {"step": 1}, "before": False, "after": True}
    final = queue.get(job.id)
    assert final is not None and final.status == "cancelled" and final.progress == {"step": 1}


def test_run_forever_stops_on_event(queue: JobQueue) -> None:
    for i in range(3):
        queue.submit("echo", {"i": i})
    stop = threading.Event()
    worker = Worker(queue, {"echo": lambda ctx: dict(ctx.payload)}, poll_s=0.01)
    thread = threading.Thread(target=worker.run_forever, args=(stop,))
    thread.start()
    deadline = time.monotonic() + 10
    while len(queue.list(status="succeeded")) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert sorted(j.result["i"] for j in queue.list(status="succeeded")) == [0, 1, 2]  # type: ignore[index]


def _rows(engine: Engine, job_id: str) -> list[tuple[int, int]]:
    with engine.connect() as conn:
        stmt = select(ResultRow.seq, ResultRow.attempt).where(ResultRow.job_id == job_id)  # type: ignore[arg-type]
        return sorted((seq, attempt) for seq, attempt in conn.execute(stmt))


def _wait_for(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_killed_worker_job_is_resumed_exactly_once(
    engine: Engine, database_url: str, queue: JobQueue
) -> None:
    """SIGKILL a worker process mid-job; another worker finishes it from the checkpoint."""
    total = 40
    job = queue.submit(KIND, {"n": total, "delay_s": 0.05})
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    script = Path(__file__).with_name("crashy_worker.py")
    proc = subprocess.Popen(
        [sys.executable, str(script), "--url", database_url, "--lease-s", "1.0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(lambda: len(_rows(engine, job.id)) >= 5 or proc.poll() is not None, 30, "rows")
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    crashed = queue.get(job.id)
    assert crashed is not None and crashed.status == "running" and crashed.attempts == 1
    written = len(_rows(engine, job.id))
    assert 5 <= written < total
    checkpoint = crashed.progress["next_seq"]
    assert written - 1 <= checkpoint <= written

    rescuer = Worker(queue, {KIND: write_rows}, worker_id="rescuer", lease_s=5)
    _wait_for(rescuer.run_once, 15, "the expired lease to be re-claimed")

    done = queue.get(job.id)
    assert done is not None and done.status == "succeeded"
    assert done.attempts == 2 and done.lease_owner == "rescuer"
    assert done.result == {"rows": total, "resumed_from": checkpoint}
    rows = _rows(engine, job.id)
    assert [seq for seq, _ in rows] == list(range(total))  # complete, no gaps, no duplicates
    assert all(attempt == 1 for seq, attempt in rows if seq < checkpoint)
    assert all(attempt == 2 for seq, attempt in rows if seq > checkpoint)


def test_a_dropped_connection_inside_a_handler_resumes_the_job_on_its_lease(
    queue: JobQueue,
) -> None:
    from sqlalchemy.exc import OperationalError

    create_tables(queue.engine)
    job = queue.submit(KIND, {"n": 6})
    runs: list[int] = []

    def drops_once(ctx: JobContext) -> dict:
        runs.append(ctx.progress.get("next_seq", 0))
        if len(runs) == 1:
            ctx.heartbeat(progress={"next_seq": 3})  # three rows "committed"
            raise OperationalError("COMMIT", {}, Exception("server closed the connection"))
        return {"resumed_from": ctx.progress["next_seq"]}

    worker = Worker(queue, {KIND: drops_once}, worker_id="w", db_retry_s=30)
    assert worker.run_once()
    done = queue.get(job.id)
    assert done is not None and done.status == "succeeded", done
    assert done.attempts == 1 and done.result == {"resumed_from": 3} and runs == [0, 3]


def test_claim_failures_back_off_and_log_one_line(caplog: pytest.LogCaptureFixture) -> None:
    from services.common.db import make_engine

    from .test_db import closed_port_pg_url

    engine = make_engine(closed_port_pg_url())
    queue = JobQueue(engine)
    claims: list[int] = []
    stop = threading.Event()
    real_claim = queue.claim

    def counting_claim(*args: object, **kwargs: object) -> object:
        claims.append(1)
        if len(claims) >= 4:
            stop.set()
        return real_claim(*args, **kwargs)  # type: ignore[arg-type]

    queue.claim = counting_claim  # type: ignore[method-assign]
    worker = Worker(queue, {"k": lambda ctx: {}}, worker_id="w", poll_s=0.01)
    with caplog.at_level(logging.WARNING, logger="services.common.worker"):
        worker.run_forever(stop)
    engine.dispose()
    lines = [r for r in caplog.records if r.name == "services.common.worker"]
    assert len(claims) == 4 and len(lines) == 1, [r.getMessage() for r in lines]
    assert "database unavailable during claim" in lines[0].getMessage()
    assert lines[0].exc_info is None  # one line, no traceback
