"""A polling worker that runs handlers for leased jobs. No FastAPI here.

A handler takes a :class:`JobContext` and returns the job's result (a JSON dict)::

    def count(ctx: JobContext) -> dict:
        start = ctx.progress.get("next", 0)          # resume from the checkpoint
        for i in range(start, ctx.payload["n"]):
            write_row_idempotently(ctx.job.id, i)    # keyed (job_id, i), unique
            ctx.heartbeat(progress={"next": i + 1})  # renews the lease
        return {"rows": ctx.payload["n"]}

    stop = threading.Event()
    worker = Worker(JobQueue(engine), {"count": count}, lease_s=30)
    threading.Thread(target=worker.run_forever, args=(stop,), daemon=True).start()

An exception fails the job (code ``handler_error``, or a :class:`RefineryError`'s own
code, the message without SQL text or absolute paths); only lost leases (a crashed or
stalled worker) lead to another attempt.

A *transient* database failure (:func:`services.common.db.is_transient`: the server
restarting, a dropped connection) is not the job's fault and does not fail it. Heartbeats
and :meth:`JobContext.retry_db` retry it in place with backoff; one that escapes the handler
makes the worker wait for the database and run the handler again on the same lease, so it
resumes from its last committed item. After ``db_retry_s`` of outage the worker leaves the
job for its lease to expire and be re-claimed. Claim failures back off exponentially, and
every database complaint is logged at most once per ``log_interval_s`` per distinct error.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from services.common.db import Backoff, describe_db_error, is_transient, retry_transient
from services.common.errors import RefineryError
from services.common.jobs import Job, JobQueue, LeaseLost
from services.common.logs import RateLimitedLog
from services.common.metrics import JOB_SECONDS

__all__ = ["Handler", "JobContext", "Worker"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class JobContext:
    """What a handler sees of its job: payload, last progress, heartbeat, cancellation."""

    def __init__(
        self,
        queue: JobQueue,
        job: Job,
        worker_id: str,
        lease_s: float,
        *,
        retry_s: float = 0.0,
        limited_log: RateLimitedLog | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.queue = queue
        self.job = job
        self.worker_id = worker_id
        self.lease_s = lease_s
        self.retry_s = retry_s
        self._limited = limited_log or RateLimitedLog(log)
        self._stop = stop
        self._progress: dict[str, Any] = dict(job.progress or {})

    @property
    def payload(self) -> dict[str, Any]:
        return self.job.payload

    @property
    def progress(self) -> dict[str, Any]:
        """The last stored progress (from an earlier attempt, or the last heartbeat)."""
        return self._progress

    def heartbeat(self, progress: Mapping[str, Any] | None = None) -> None:
        """Renew the lease and store ``progress``; raises :class:`LeaseLost` if it is gone."""
        stored = dict(progress) if progress is not None else None
        self.retry_db(
            lambda: self.queue.heartbeat(
                self.job.id,
                self.worker_id,
                lease_s=self.lease_s,
                progress=stored,
                attempt=self.job.attempts,
            )
        )
        if stored is not None:
            self._progress = stored

    def retry_db(self, fn: Callable[[], T]) -> T:
        """``fn()``, retried with backoff while the database is briefly unreachable.

        ``fn`` must be one transaction that is safe to repeat (an insert-or-ignore of a
        batch keyed ``(job_id, seq)``, a conditional update): a commit whose answer was lost
        may have landed. After the worker's ``db_retry_s`` the failure is raised.
        """

        def waiting(exc: BaseException, delay: float) -> None:
            why = describe_db_error(exc)
            self._limited.log(
                logging.WARNING,
                f"job:{why}",
                "job %s: database unavailable (%s); retrying in %.1f s",
                self.job.id,
                why,
                delay,
            )

        return retry_transient(fn, budget_s=self.retry_s, on_retry=waiting, stop=self._stop)

    def cancelled(self) -> bool:
        """True when the job was cancelled (a database read; heartbeats also notice)."""
        job = self.queue.get(self.job.id)
        return job is None or job.status == "cancelled"


Handler = Callable[[JobContext], dict[str, Any]]


def default_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Worker:
    """Claims jobs of the handled kinds one at a time and runs their handlers."""

    def __init__(
        self,
        queue: JobQueue,
        handlers: Mapping[str, Handler],
        *,
        worker_id: str | None = None,
        lease_s: float = 30.0,
        poll_s: float = 0.2,
        db_retry_s: float = 120.0,
        log_interval_s: float = 30.0,
    ) -> None:
        if not handlers:
            raise ValueError("a worker needs at least one handler")
        self.queue = queue
        self.handlers = dict(handlers)
        self.worker_id = worker_id or default_worker_id()
        self.lease_s = lease_s
        self.poll_s = poll_s
        self.db_retry_s = db_retry_s
        self.limited_log = RateLimitedLog(log, interval_s=log_interval_s)
        self._stop = threading.Event()

    def run_once(self) -> bool:
        """Claim and run one job; False when there was nothing to claim."""
        job = self.queue.claim(list(self.handlers), self.worker_id, self.lease_s)
        if job is None:
            return False
        self._run(job)
        return True

    def _context(self, job: Job) -> JobContext:
        return JobContext(
            self.queue,
            job,
            self.worker_id,
            self.lease_s,
            retry_s=self.db_retry_s,
            limited_log=self.limited_log,
            stop=self._stop,
        )

    def _run(self, job: Job) -> None:
        """Run ``job``'s handler to its end, through database outages (see the module)."""
        outage_started: float | None = None
        backoff = Backoff(0.1, 5.0)
        current: Job | None = job
        started = time.perf_counter()
        while current is not None:
            ctx = self._context(current)
            try:
                result = self.handlers[current.kind](ctx)
                self._complete(ctx, result)
                JOB_SECONDS.labels(job.kind, "succeeded").observe(time.perf_counter() - started)
                return
            except LeaseLost as exc:
                log.warning("abandoning job %s (%s): %s", job.id, job.kind, exc.message)
                return
            except Exception as exc:
                if not is_transient(exc):
                    self._fail(current, exc)
                    JOB_SECONDS.labels(job.kind, "failed").observe(time.perf_counter() - started)
                    return
                outage_started = outage_started or time.monotonic()
                self._db_trouble("job", exc, job_id=job.id)
                current = self._resume(current, outage_started, backoff)

    def _complete(self, ctx: JobContext, result: dict[str, Any]) -> None:
        job = ctx.job
        try:
            ctx.retry_db(
                lambda: self.queue.complete(job.id, self.worker_id, result, attempt=job.attempts)
            )
        except LeaseLost:
            done = self.queue.get(job.id)  # a retried commit may have landed the first time
            if not (
                done is not None
                and done.status == "succeeded"
                and done.lease_owner == self.worker_id
                and done.attempts == job.attempts
            ):
                raise

    def _resume(self, job: Job, outage_started: float, backoff: Backoff) -> Job | None:
        """Wait for the database, then ``job`` as stored if this worker still holds it;
        None when the outage outlasted ``db_retry_s``, the worker is stopping, or the job
        is no longer this attempt's (re-leased, cancelled, finished)."""
        while True:
            delay = backoff.next_delay()
            if time.monotonic() + delay - outage_started > self.db_retry_s:
                log.warning(
                    "job %s: database unreachable for %.0f s; leaving the job to be re-leased",
                    job.id,
                    time.monotonic() - outage_started,
                )
                return None
            if self._stop.wait(delay):
                return None
            try:
                fresh = self.queue.get(job.id)
            except Exception as exc:
                if not is_transient(exc):
                    raise
                self._db_trouble("job", exc, job_id=job.id)
                continue
            held = (
                fresh is not None
                and fresh.status == "running"
                and fresh.lease_owner == self.worker_id
                and fresh.attempts == job.attempts
            )
            if held:
                log.info("job %s: database back; resuming from its last commit", job.id)
            return fresh if held else None

    def _fail(self, job: Job, exc: Exception) -> None:
        code, message = _describe(exc)
        log.exception("job %s (%s) failed: %s", job.id, job.kind, message)
        try:
            self.queue.fail(job.id, self.worker_id, code, message, attempt=job.attempts)
        except LeaseLost:
            log.warning("job %s lease lost before recording its failure", job.id)
        except Exception as failure:
            if not is_transient(failure):
                raise
            self._db_trouble("fail", failure, job_id=job.id)  # its lease will expire

    def _db_trouble(self, where: str, exc: BaseException, **fields: Any) -> None:
        why = describe_db_error(exc)
        self.limited_log.log(
            logging.WARNING,
            f"{where}:{why}",
            "worker %s: database unavailable during %s (%s)",
            self.worker_id,
            where,
            why,
            extra={"fields": fields},
        )

    def run_forever(self, stop: threading.Event) -> None:
        """Run jobs until ``stop`` is set, sleeping ``poll_s`` when the queue is empty and
        backing off exponentially (up to 5 s) while claims fail."""
        self._stop = stop
        backoff = Backoff(max(self.poll_s, 0.05), 5.0)
        while not stop.is_set():
            try:
                busy = self.run_once()
                backoff.reset()
            except Exception as exc:
                if is_transient(exc):
                    self._db_trouble("claim", exc)
                else:
                    key = f"claim:{type(exc).__name__}:{exc}"
                    self.limited_log.log(
                        logging.ERROR,
                        key,
                        "worker %s: claim failed",
                        self.worker_id,
                        exc_info=True,
                    )
                stop.wait(backoff.next_delay())
                continue
            if not busy:
                stop.wait(self.poll_s)


def _describe(exc: Exception) -> tuple[str, str]:
    if isinstance(exc, RefineryError):
        return exc.code, exc.message
    return "handler_error", f"{type(exc).__name__}: {exc}"
