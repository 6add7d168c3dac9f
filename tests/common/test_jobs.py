from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from services.common.db import create_tables
from services.common.errors import NotFoundError
from services.common.jobs import Job, JobQueue, LeaseLost


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def queue(engine: Engine, clock: FakeClock) -> JobQueue:
    create_tables(engine)
    return JobQueue(engine, clock=clock)


def test_submit_and_get(queue: JobQueue) -> None:
    job = queue.submit("demo", {"x": [1, 2]})
    assert job.status == "queued" and job.attempts == 0 and job.max_attempts == 3
    got = queue.get(job.id)
    assert got is not None
    assert got.payload == {"x": [1, 2]}
    assert got.progress == {} and got.result is None and got.error is None
    assert got.created_at.tzinfo is not None
    assert queue.get("nope") is None


def test_idempotency_key_returns_existing_job(queue: JobQueue) -> None:
    first = queue.submit("demo", {"n": 1}, idempotency_key="k1")
    again = queue.submit("demo", {"n": 2}, idempotency_key="k1")
    other_kind = queue.submit("other", {"n": 1}, idempotency_key="k1")
    no_key = [queue.submit("demo", {"n": 1}) for _ in range(2)]
    assert again.id == first.id and again.payload == {"n": 1}
    assert other_kind.id != first.id
    assert no_key[0].id != no_key[1].id
    assert len(queue.list(kind="demo")) == 3


def test_concurrent_submits_with_one_key_make_one_job(queue: JobQueue) -> None:
    ids: list[str] = []
    barrier = threading.Barrier(4)

    def submit() -> None:
        barrier.wait()
        ids.append(queue.submit("demo", {}, idempotency_key="race").id)

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ids) == 4 and len(set(ids)) == 1
    assert len(queue.list(kind="demo")) == 1


def test_claim_takes_oldest_of_requested_kinds(queue: JobQueue, clock: FakeClock) -> None:
    jobs = []
    for kind in ("a", "b", "a", "c"):
        jobs.append(queue.submit(kind, {}))
        clock.advance(1)
    claimed = [queue.claim(["a", "b"], "w", lease_s=30) for _ in range(4)]
    assert [j.id if j else None for j in claimed] == [jobs[0].id, jobs[1].id, jobs[2].id, None]
    first = claimed[0]
    assert first is not None
    assert first.status == "running" and first.lease_owner == "w" and first.attempts == 1
    assert first.lease_expires_at == clock.now + timedelta(seconds=30)
    assert queue.claim("c", "w", lease_s=30).id == jobs[3].id  # type: ignore[union-attr]


def test_running_job_is_not_reclaimed_before_its_lease_expires(
    queue: JobQueue, clock: FakeClock
) -> None:
    queue.submit("demo", {})
    assert queue.claim("demo", "w1", lease_s=10) is not None
    clock.advance(9)
    assert queue.claim("demo", "w2", lease_s=10) is None


def test_expired_lease_is_reclaimed_and_stale_worker_is_fenced(
    queue: JobQueue, clock: FakeClock
) -> None:
    job = queue.submit("demo", {})
    queue.claim("demo", "w1", lease_s=10)
    queue.heartbeat(job.id, "w1", lease_s=10, progress={"step": 3})
    clock.advance(11)
    again = queue.claim("demo", "w2", lease_s=10)
    assert again is not None and again.id == job.id
    assert again.attempts == 2 and again.lease_owner == "w2"
    assert again.progress == {"step": 3}  # the checkpoint survives the crash
    with pytest.raises(LeaseLost) as lost:
        queue.heartbeat(job.id, "w1", lease_s=10)
    assert lost.value.status_code == 409 and lost.value.code == "lease_lost"
    with pytest.raises(LeaseLost):
        queue.complete(job.id, "w1", {"by": "w1"})
    with pytest.raises(LeaseLost):
        queue.fail(job.id, "w1", "boom", "stale")
    done = queue.complete(job.id, "w2", {"by": "w2"})
    assert done.status == "succeeded" and done.result == {"by": "w2"}


def test_complete_happens_exactly_once(queue: JobQueue) -> None:
    job = queue.submit("demo", {})
    queue.claim("demo", "w", lease_s=30)
    done = queue.complete(job.id, "w", {"ok": True})
    assert done.status == "succeeded" and done.finished_at is not None
    assert done.lease_expires_at is None
    with pytest.raises(LeaseLost):
        queue.complete(job.id, "w", {"ok": "twice"})
    with pytest.raises(LeaseLost):
        queue.fail(job.id, "w", "late", "too late")
    final = queue.get(job.id)
    assert final is not None and final.result == {"ok": True} and final.error is None


def test_attempt_fences_a_reclaim_by_the_same_worker_id(queue: JobQueue, clock: FakeClock) -> None:
    job = queue.submit("demo", {})
    queue.claim("demo", "w", lease_s=5)
    clock.advance(6)
    queue.claim("demo", "w", lease_s=5)  # same id, attempt 2 (e.g. a restarted worker)
    with pytest.raises(LeaseLost):
        queue.complete(job.id, "w", {}, attempt=1)
    assert queue.complete(job.id, "w", {}, attempt=2).status == "succeeded"


def test_fail_records_code_and_message(queue: JobQueue) -> None:
    job = queue.submit("demo", {})
    queue.claim("demo", "w", lease_s=30)
    failed = queue.fail(job.id, "w", "bad_input", "n must be positive")
    assert failed.status == "failed"
    assert failed.error == {"code": "bad_input", "message": "n must be positive"}


def test_expired_lease_without_attempts_left_fails(queue: JobQueue, clock: FakeClock) -> None:
    job = queue.submit("demo", {}, max_attempts=2)
    queue.claim("demo", "w1", lease_s=5)
    clock.advance(6)
    assert queue.claim("demo", "w2", lease_s=5) is not None
    clock.advance(6)
    later = queue.submit("demo", {"later": True})
    next_job = queue.claim("demo", "w3", lease_s=5)
    assert next_job is not None and next_job.id == later.id
    dead = queue.get(job.id)
    assert dead is not None and dead.status == "failed" and dead.attempts == 2
    assert dead.error is not None and dead.error["code"] == "lease_expired"


def test_heartbeat_extends_lease_and_stores_progress(queue: JobQueue, clock: FakeClock) -> None:
    job = queue.submit("demo", {})
    queue.claim("demo", "w", lease_s=10)
    clock.advance(8)
    queue.heartbeat(job.id, "w", lease_s=10, progress={"done": 4})
    clock.advance(8)  # 16 s after the claim, 8 s after the heartbeat
    assert queue.claim("demo", "other", lease_s=10) is None
    stored = queue.get(job.id)
    assert stored is not None and stored.progress == {"done": 4}
    assert stored.lease_expires_at == clock.now + timedelta(seconds=2)
    queue.heartbeat(job.id, "w", lease_s=10)  # without progress keeps it
    kept = queue.get(job.id)
    assert kept is not None and kept.progress == {"done": 4}


def test_cancel(queue: JobQueue) -> None:
    queued = queue.submit("demo", {"i": 0})
    running = queue.submit("demo", {"i": 1})
    assert queue.cancel(queued.id).status == "cancelled"
    claimed = queue.claim("demo", "w", lease_s=30)
    assert claimed is not None and claimed.id == running.id  # the cancelled one is skipped
    assert queue.cancel(running.id).status == "cancelled"
    with pytest.raises(LeaseLost) as lost:
        queue.heartbeat(running.id, "w", lease_s=30)
    assert lost.value.context["status"] == "cancelled"
    with pytest.raises(LeaseLost):
        queue.complete(running.id, "w", {})
    finished = queue.submit("demo", {"i": 2})
    queue.claim("demo", "w", lease_s=30)
    queue.complete(finished.id, "w", {"ok": 1})
    unchanged = queue.cancel(finished.id)
    assert unchanged.status == "succeeded" and unchanged.result == {"ok": 1}
    with pytest.raises(NotFoundError):
        queue.cancel("missing")


def test_list_filters_newest_first(queue: JobQueue, clock: FakeClock) -> None:
    made = []
    for i in range(5):
        made.append(queue.submit("a" if i % 2 == 0 else "b", {"i": i}))
        clock.advance(1)
    queue.claim("a", "w", lease_s=30)
    assert [j.payload["i"] for j in queue.list()] == [4, 3, 2, 1, 0]
    assert [j.payload["i"] for j in queue.list(kind="a")] == [4, 2, 0]
    assert [j.payload["i"] for j in queue.list(kind="a", status="queued")] == [4, 2]
    assert [j.id for j in queue.list(status="running")] == [made[0].id]
    assert len(queue.list(limit=2)) == 2


def test_concurrent_claimers_never_share_a_job(engine: Engine) -> None:
    create_tables(engine)
    queue = JobQueue(engine)
    submitted = {queue.submit("demo", {"i": i}).id for i in range(40)}
    claimed: dict[str, list[str]] = {f"w{n}": [] for n in range(4)}
    barrier = threading.Barrier(len(claimed))

    def work(worker_id: str) -> None:
        mine = JobQueue(engine)
        barrier.wait()
        while (job := mine.claim("demo", worker_id, lease_s=60)) is not None:
            claimed[worker_id].append(job.id)
            mine.complete(job.id, worker_id, {"by": worker_id})

    threads = [threading.Thread(target=work, args=(w,)) for w in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    everything = [job_id for ids in claimed.values() for job_id in ids]
    assert len(everything) == len(set(everything)) == len(submitted)
    assert set(everything) == submitted
    assert all(j.status == "succeeded" and j.attempts == 1 for j in queue.list(limit=100))


def test_postgres_claim_skips_locked_rows(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("FOR UPDATE SKIP LOCKED is PostgreSQL only")
    create_tables(engine)
    clock = FakeClock()
    queue = JobQueue(engine, clock=clock)
    first = queue.submit("demo", {})
    clock.advance(1)
    second = queue.submit("demo", {})
    got: list[Job | None] = []
    with engine.connect() as conn, conn.begin():
        # another claimer is mid-transaction on the oldest job
        conn.execute(text("SELECT id FROM jobs WHERE id = :id FOR UPDATE"), {"id": first.id})
        claimer = threading.Thread(target=lambda: got.append(queue.claim("demo", "w", 30)))
        claimer.start()
        claimer.join(timeout=10)
        assert not claimer.is_alive(), "claim blocked on a locked row"
    assert got[0] is not None and got[0].id == second.id


def test_retry_requeues_a_failed_job_keeping_its_progress(queue: JobQueue) -> None:
    from services.common.errors import ConflictError

    job = queue.submit("k", {}, max_attempts=1)
    claimed = queue.claim("k", "w", lease_s=10)
    assert claimed is not None
    queue.heartbeat(job.id, "w", lease_s=10, progress={"next": 7})
    failed = queue.fail(job.id, "w", "handler_error", "boom in /srv/x/y.db [SQL: SELECT 1]")
    assert failed.error == {"code": "handler_error", "message": "boom in …/y.db"}

    again = queue.retry(job.id, extra_attempts=2)
    assert again.status == "queued" and again.error is None and again.finished_at is None
    assert again.progress == {"next": 7, "retry_of_attempt": 1}
    assert again.attempts == 1 and again.max_attempts == 3
    reclaimed = queue.claim("k", "w2", lease_s=10)
    assert reclaimed is not None and reclaimed.id == job.id and reclaimed.attempts == 2
    with pytest.raises(LeaseLost):  # the first attempt can never finish the second
        queue.complete(job.id, "w", {}, attempt=1)
    with pytest.raises(ConflictError) as conflict:
        queue.retry(job.id)
    assert conflict.value.code == "job_not_failed" and conflict.value.context["status"] == "running"
    with pytest.raises(NotFoundError):
        queue.retry("missing")
    with pytest.raises(NotFoundError):
        queue.retry(job.id, kinds=["other"])
