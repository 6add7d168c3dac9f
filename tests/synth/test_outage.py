"""Synth jobs through database outages, on real PostgreSQL (skipped on the SQLite leg).

1. The worker's backend is terminated (``pg_terminate_backend`` from another connection)
   in the middle of example inserts and of a heartbeat: the job goes on, on the same lease,
   and ends with exactly ``n`` examples.
2. A private cluster (never the shared server) is down when the service starts: start-up
   waits, then serves. Stopped and restarted in the middle of a job: routes answer 503
   ``database_unavailable`` with ``Retry-After`` meanwhile, and the job ends with exactly
   ``n`` examples.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from services.common.db import make_engine
from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.conftest import PG_ENV
from tests.pg_cluster import PrivateCluster, unavailable_reason

REPO = Path(__file__).resolve().parents[2]
pg_only = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"{PG_ENV} is not set")


def _until(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


def _counts(engine: Engine, job_id: str) -> tuple[int, int, int]:
    """(accepted rows, distinct accepted seqs, rows of any kind minus distinct seqs)."""
    with engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT count(*) FILTER (WHERE accepted),"
                " count(DISTINCT seq) FILTER (WHERE accepted),"
                " count(*) - count(DISTINCT seq) FROM synth_examples WHERE job_id = :job"
            ),
            {"job": job_id},
        ).one()
    return int(row[0]), int(row[1]), int(row[2])


@pg_only
def test_terminated_backends_mid_job_lose_and_duplicate_nothing(
    tmp_path: Path, database_url: str
) -> None:
    n = 40
    settings = SynthSettings(
        data_dir=tmp_path / "data", database_url=database_url, synth_batch_size=4
    )
    app = build_app(settings)
    engine: Engine = app.state.engine
    admin = make_engine(os.environ[PG_ENV], poolclass=NullPool)
    plan = {"insert": {2, 5}, "heartbeat": {3}}
    seen: Counter[str] = Counter()
    killed: list[tuple[str, int]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def terminate(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("INSERT INTO synth_examples"):
            kind = "insert"
        elif statement.startswith("UPDATE jobs") and "progress" in statement:
            kind = "heartbeat"
        else:
            return
        seen[kind] += 1
        if seen[kind] in plan[kind]:
            pid = conn.connection.dbapi_connection.info.backend_pid
            with admin.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
            killed.append((kind, pid))

    try:
        with TestClient(app) as client:
            job_id = client.post("/v1/synthesize", json={"n": n, "seed": 11}).json()["job_id"]

            def finished() -> dict[str, Any] | None:
                job = client.get(f"/v1/jobs/{job_id}").json()
                return job if job["status"] in ("succeeded", "failed", "cancelled") else None

            job = _until(finished, "the synth job")
        accepted, distinct, duplicates = _counts(engine, job_id)
    finally:
        admin.dispose()
    print(
        f"\nterminated backends {killed}: job {job['status']} after {job['attempts']} "
        f"attempt(s), {accepted} examples stored ({distinct} distinct seq), target {n}"
    )
    assert [kind for kind, _ in killed] == ["insert", "heartbeat", "insert"], killed
    assert job["status"] == "succeeded" and job["attempts"] == 1, job
    assert job["result"]["accepted"] == n and job["progress"]["accepted"] == n
    assert accepted == distinct == n and duplicates == 0


@pytest.fixture(scope="module")
def cluster() -> Iterator[PrivateCluster]:
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    private = PrivateCluster()
    try:
        yield private
    finally:
        private.close()


def _serve(cluster: PrivateCluster, tmp_path: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "REFINERY_DATABASE_URL": cluster.url,
        "REFINERY_DATA_DIR": str(tmp_path / "data"),
        "REFINERY_SYNTH_BATCH_SIZE": "4",
        "REFINERY_DB_STARTUP_TIMEOUT_S": "120",
        "REFINERY_API_KEYS": "",
    }
    log = open(tmp_path / "service.log", "wb")  # noqa: SIM115 (closed with the process)
    argv = [sys.executable, "-m", "tests.synth.outage_server", "--port", str(port)]
    return subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url, timeout=5)
    except httpx.TransportError:
        return None


def test_the_service_waits_for_its_database_and_jobs_survive_a_restart(
    cluster: PrivateCluster, tmp_path: Path
) -> None:
    n = 100
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "service.log"
    service = _serve(cluster, tmp_path, port)  # the cluster is not running yet
    try:
        _until(lambda: b"database not reachable" in log.read_bytes(), "start-up to wait", 30)
        assert service.poll() is None, log.read_text()
        cluster.start()
        ready = _until(lambda: (r := _get(f"{base}/v1/catalogs")) and r.status_code == 200, "up")
        assert ready

        body = {"n": n, "seed": 3}
        job_id = httpx.post(f"{base}/v1/synthesize", json=body, timeout=10).json()["job_id"]

        def midway() -> bool:
            job = httpx.get(f"{base}/v1/jobs/{job_id}", timeout=10).json()
            return job["status"] == "running" and job["progress"].get("accepted", 0) >= 12

        _until(midway, "the job to be midway")
        cluster.stop()
        down = httpx.get(f"{base}/v1/jobs/{job_id}", timeout=30)
        assert down.status_code == 503, down.text
        assert down.json()["error"]["code"] == "database_unavailable"
        assert int(down.headers["retry-after"]) > 0
        worker_waits = b'"logger":"services.common.worker","msg":"job ' + job_id.encode()
        _until(lambda: worker_waits in log.read_bytes(), "the worker to wait", 30)
        cluster.start()

        def finished() -> dict[str, Any] | None:
            answer = _get(f"{base}/v1/jobs/{job_id}")
            if answer is None or answer.status_code != 200:
                return None
            job = answer.json()
            return job if job["status"] in ("succeeded", "failed", "cancelled") else None

        job = _until(finished, "the job to finish", 120)
    finally:
        service.terminate()
        service.wait(30)
    engine = make_engine(cluster.url, poolclass=NullPool)
    try:
        accepted, distinct, duplicates = _counts(engine, job_id)
    finally:
        engine.dispose()
    print(
        f"\ndatabase restarted mid-job: job {job['status']} after {job['attempts']} attempt(s),"
        f" {accepted} examples stored ({distinct} distinct seq), target {n}"
    )
    assert job["status"] == "succeeded" and job["attempts"] == 1, (job, log.read_text())
    assert job["result"]["accepted"] == n
    assert accepted == distinct == n and duplicates == 0
