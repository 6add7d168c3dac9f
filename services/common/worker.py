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
code); only lost leases (a crashed or stalled worker) lead to another attempt.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from services.common.errors import RefineryError
from services.common.jobs import Job, JobQueue, LeaseLost

__all__ = ["Handler", "JobContext", "Worker"]

log = logging.getLogger(__name__)


class JobContext:
    """What a handler sees of its job: payload, last progress, heartbeat, cancellation."""

    def __init__(self, queue: JobQueue, job: Job, worker_id: str, lease_s: float) -> None:
        self.queue = queue
        self.job = job
        self.worker_id = worker_id
        self.lease_s = lease_s
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
        self.queue.heartbeat(
            self.job.id,
            self.worker_id,
            lease_s=self.lease_s,
            progress=stored,
            attempt=self.job.attempts,
        )
        if stored is not None:
            self._progress = stored

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
    ) -> None:
        if not handlers:
            raise ValueError("a worker needs at least one handler")
        self.queue = queue
        self.handlers = dict(handlers)
        self.worker_id = worker_id or default_worker_id()
        self.lease_s = lease_s
        self.poll_s = poll_s

    def run_once(self) -> bool:
        """Claim and run one job; False when there was nothing to claim."""
        job = self.queue.claim(list(self.handlers), self.worker_id, self.lease_s)
        if job is None:
            return False
        ctx = JobContext(self.queue, job, self.worker_id, self.lease_s)
        try:
            result = self.handlers[job.kind](ctx)
            self.queue.complete(job.id, self.worker_id, result, attempt=job.attempts)
        except LeaseLost as exc:
            log.warning("abandoning job %s (%s): %s", job.id, job.kind, exc.message)
        except Exception as exc:
            code, message = _describe(exc)
            log.exception("job %s (%s) failed: %s", job.id, job.kind, message)
            try:
                self.queue.fail(job.id, self.worker_id, code, message, attempt=job.attempts)
            except LeaseLost:
                log.warning("job %s lease lost before recording its failure", job.id)
        return True

    def run_forever(self, stop: threading.Event) -> None:
        """Run jobs until ``stop`` is set, sleeping ``poll_s`` when the queue is empty."""
        while not stop.is_set():
            try:
                busy = self.run_once()
            except Exception:  # e.g. the database is briefly unreachable
                log.exception("worker %s: claim failed", self.worker_id)
                busy = False
            if not busy:
                stop.wait(self.poll_s)


def _describe(exc: Exception) -> tuple[str, str]:
    if isinstance(exc, RefineryError):
        return exc.code, exc.message
    return "handler_error", f"{type(exc).__name__}: {exc}"
