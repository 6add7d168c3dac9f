"""A durable job queue in one table, for SQLite and PostgreSQL. No FastAPI here.

Life of a job: ``queued`` → (claimed) ``running`` → ``succeeded`` | ``failed`` |
``cancelled``; :meth:`JobQueue.retry` puts a ``failed`` job back to ``queued`` (its
progress kept, so the handler resumes from its last committed item). A claim is a
*lease*: ``lease_owner`` holds it until ``lease_expires_at``; heartbeats extend it. A
worker that dies stops heartbeating, its lease expires and another worker re-claims the
job (``attempts`` + 1) until ``max_attempts``, after which the job fails with
``lease_expired``.
:meth:`JobQueue.complete` and :meth:`JobQueue.fail` only succeed for the current
lease holder of a running job, so a job finishes exactly once. Handlers make their
side effects idempotent (see docs/operations.md). Workers live in
:mod:`services.common.worker`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Column, Index, UniqueConstraint, and_, func, or_, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

from protocol.jobs import FINISHED, JobStatus
from services.common.db import JsonType, UTCDateTime, utcnow, write_engine
from services.common.errors import ConflictError, NotFoundError, RefineryError, sanitize_message

__all__ = ["FINISHED", "Job", "JobQueue", "JobStatus", "LeaseLost"]


def _new_id() -> str:
    return uuid.uuid4().hex


class LeaseLost(RefineryError):
    """This worker no longer holds the job (lease re-claimed, job cancelled or finished)."""

    status_code = 409
    code = "lease_lost"


class Job(SQLModel, table=True):
    """One unit of durable work."""

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("kind", "idempotency_key", name="uq_jobs_kind_idempotency_key"),
        Index("ix_jobs_status_created_at", "status", "created_at"),
    )

    id: str = Field(default_factory=_new_id, primary_key=True, max_length=32)
    kind: str = Field(index=True, max_length=100)
    status: str = Field(default="queued", max_length=16)
    payload: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JsonType, nullable=False)
    )
    progress: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JsonType, nullable=False)
    )
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JsonType))
    error: dict[str, Any] | None = Field(default=None, sa_column=Column(JsonType))
    idempotency_key: str | None = Field(default=None, max_length=200)
    attempts: int = 0
    max_attempts: int = 3
    lease_owner: str | None = Field(default=None, max_length=200)
    lease_expires_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))
    updated_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))
    finished_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class JobQueue:
    """Submit, claim, heartbeat and finish :class:`Job` rows on ``engine``.

    ``clock`` returns aware UTC datetimes (tests inject a fake one). Workers on
    different hosts compare leases with their own clocks: keep them NTP-synced and
    leases much longer than the skew.
    """

    def __init__(self, engine: Engine, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.engine = engine
        self.clock = clock
        self._write = write_engine(engine)
        self._pg = engine.dialect.name == "postgresql"

    def _session(self, *, write: bool = False) -> Session:
        return Session(self._write if write else self.engine, expire_on_commit=False)

    def submit(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        idempotency_key: str | None = None,
        max_attempts: int = 3,
    ) -> Job:
        """Queue a job; the same ``kind`` + ``idempotency_key`` returns the existing job."""
        if idempotency_key is not None and (found := self._by_key(kind, idempotency_key)):
            return found
        now = self.clock()
        job = Job(
            kind=kind,
            payload=payload,
            idempotency_key=idempotency_key,
            max_attempts=max_attempts,
            created_at=now,
            updated_at=now,
        )
        try:
            with self._session(write=True) as session:
                session.add(job)
                session.commit()
        except IntegrityError:
            if idempotency_key is None or (found := self._by_key(kind, idempotency_key)) is None:
                raise
            return found  # lost the race to a concurrent submit with the same key
        return job

    def _by_key(self, kind: str, key: str) -> Job | None:
        with self._session() as session:
            stmt = select(Job).where(Job.kind == kind, Job.idempotency_key == key)
            return session.exec(stmt).first()

    def get(self, job_id: str) -> Job | None:
        with self._session() as session:
            return session.get(Job, job_id)

    def claim(self, kinds: str | Sequence[str], worker_id: str, lease_s: float) -> Job | None:
        """Lease the oldest claimable job of ``kinds`` to ``worker_id``, or return None.

        Claimable: ``queued``, or ``running`` with an expired lease and attempts left
        (an expired one without attempts left is failed with ``lease_expired``).
        PostgreSQL: ``FOR UPDATE SKIP LOCKED``; SQLite: ``BEGIN IMMEDIATE``.
        """
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        now = self.clock()
        claimable = or_(
            Job.status == "queued",
            and_(Job.status == "running", col(Job.lease_expires_at) < now),
        )
        stmt = (
            select(Job)
            .where(col(Job.kind).in_(kinds), claimable)
            .order_by(col(Job.created_at), col(Job.id))
            .limit(1)
        )
        if self._pg:
            stmt = stmt.with_for_update(skip_locked=True)
        with self._session(write=True) as session:
            while (job := session.exec(stmt).first()) is not None:
                if job.status == "running" and job.attempts >= job.max_attempts:
                    message = f"lease expired after {job.attempts} attempt(s)"
                    _finish(job, "failed", now, error={"code": "lease_expired", "message": message})
                    session.add(job)
                    session.flush()
                    continue
                job.status = "running"
                job.lease_owner = worker_id
                job.lease_expires_at = now + timedelta(seconds=lease_s)
                job.attempts += 1
                job.updated_at = now
                session.add(job)
                break
            session.commit()
        return job

    def heartbeat(
        self,
        job_id: str,
        worker_id: str,
        *,
        lease_s: float,
        progress: dict[str, Any] | None = None,
        attempt: int | None = None,
    ) -> None:
        """Extend the lease (and store ``progress``); raises :class:`LeaseLost` if not held."""
        now = self.clock()
        values: dict[str, Any] = {"lease_expires_at": now + timedelta(seconds=lease_s)}
        if progress is not None:
            values["progress"] = progress
        self._conditional(job_id, worker_id, attempt, values, now)

    def complete(
        self, job_id: str, worker_id: str, result: dict[str, Any], *, attempt: int | None = None
    ) -> Job:
        """Mark succeeded, once: only the current lease holder of a running job may."""
        now = self.clock()
        values = {"status": "succeeded", "result": result, "finished_at": now}
        return self._conditional(job_id, worker_id, attempt, values, now)

    def fail(
        self, job_id: str, worker_id: str, code: str, message: str, *, attempt: int | None = None
    ) -> Job:
        """Mark failed with ``{"code", "message"}``; same lease rule as :meth:`complete`.
        The message is stored without SQL text or absolute paths."""
        now = self.clock()
        values = {
            "status": "failed",
            "error": {"code": code, "message": sanitize_message(message)},
            "finished_at": now,
        }
        return self._conditional(job_id, worker_id, attempt, values, now)

    def _conditional(
        self,
        job_id: str,
        worker_id: str,
        attempt: int | None,
        values: dict[str, Any],
        now: datetime,
    ) -> Job:
        where = [Job.id == job_id, Job.lease_owner == worker_id, Job.status == "running"]
        if attempt is not None:
            where.append(Job.attempts == attempt)
        if values.get("status") in FINISHED:
            values["lease_expires_at"] = None
        stmt = update(Job).where(*where).values(updated_at=now, **values).returning(Job)
        with self._session(write=True) as session:
            job = session.exec(stmt).scalars().first()  # type: ignore[call-overload]
            session.commit()
        if job is None:
            raise self._lease_lost(job_id, worker_id)
        return job

    def _lease_lost(self, job_id: str, worker_id: str) -> LeaseLost:
        job = self.get(job_id)
        status = job.status if job else "missing"
        owner = job.lease_owner if job else None
        return LeaseLost(
            f"job {job_id} is not leased to {worker_id} (status {status}, owner {owner})",
            param="job_id",
            context={"job_id": job_id, "status": status},
        )

    def cancel(self, job_id: str) -> Job:
        """Cancel a queued or running job; a finished job is returned unchanged."""
        now = self.clock()
        stmt = (
            update(Job)
            .where(Job.id == job_id, col(Job.status).in_(("queued", "running")))
            .values(status="cancelled", finished_at=now, updated_at=now, lease_expires_at=None)
        )
        with self._session(write=True) as session:
            session.exec(stmt)  # type: ignore[call-overload]
            session.commit()
        job = self.get(job_id)
        if job is None:
            raise NotFoundError(f"no job {job_id}", code="job_not_found", param="job_id")
        return job

    def retry(
        self, job_id: str, *, kinds: Sequence[str] | None = None, extra_attempts: int = 3
    ) -> Job:
        """Queue a ``failed`` job again, with ``extra_attempts`` more attempts.

        Its ``progress`` stays (handlers resume from their last committed item), with
        ``retry_of_attempt`` added (the attempt the retry follows: a handler that refuses
        re-leased work tells a retry apart with it); ``error``, ``result`` and the lease
        are cleared. ``attempts`` keeps counting, so a worker still
        holding an old attempt can never finish the new one. Not found (or not of
        ``kinds``): :class:`NotFoundError`; not failed: :class:`ConflictError`
        (``job_not_failed``).
        """
        job = self.get(job_id)
        if job is None or (kinds is not None and job.kind not in kinds):
            raise NotFoundError(f"no job {job_id!r}", code="job_not_found", param="job_id")
        now = self.clock()
        stmt = (
            update(Job)
            .where(Job.id == job_id, Job.status == "failed")
            .values(
                status="queued",
                error=None,
                result=None,
                finished_at=None,
                lease_owner=None,
                lease_expires_at=None,
                max_attempts=Job.attempts + max(1, extra_attempts),
                progress={**(job.progress or {}), "retry_of_attempt": job.attempts},
                updated_at=now,
            )
            .returning(Job)
        )
        with self._session(write=True) as session:
            retried = session.exec(stmt).scalars().first()  # type: ignore[call-overload]
            session.commit()
        if retried is None:
            current = self.get(job_id)
            status = current.status if current else "missing"
            raise ConflictError(
                f"job {job_id} is {status}; only a failed job can be retried",
                code="job_not_failed",
                param="job_id",
                context={"status": status},
            )
        return retried

    def depth(self) -> dict[tuple[str, str], int]:
        """``(kind, status) → jobs`` for the unfinished ones (queued, running)."""
        stmt = (
            select(Job.kind, Job.status, func.count())
            .where(col(Job.status).in_(("queued", "running")))
            .group_by(Job.kind, Job.status)
        )
        with self._session() as session:
            return {(kind, status): n for kind, status, n in session.exec(stmt).all()}

    def list(
        self, *, kind: str | None = None, status: str | None = None, limit: int = 100
    ) -> list[Job]:
        """Newest first, optionally filtered by ``kind`` and ``status``."""
        stmt = select(Job).order_by(col(Job.created_at).desc(), col(Job.id).desc()).limit(limit)
        if kind is not None:
            stmt = stmt.where(Job.kind == kind)
        if status is not None:
            stmt = stmt.where(Job.status == status)
        with self._session() as session:
            return list(session.exec(stmt).all())


def _finish(job: Job, status: str, now: datetime, *, error: dict[str, Any] | None = None) -> None:
    job.status = status
    job.error = error
    job.finished_at = now
    job.updated_at = now
    job.lease_expires_at = None
