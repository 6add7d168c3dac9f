"""The durable job as its clients see it: ``GET /v1/jobs/{id}`` and the statuses a job passes.

Clients import this module, so it stays free of the database layer: :meth:`JobOut.from_job`
reads any object with the job table's fields (:class:`JobRecord`), the SQLAlchemy row of
:mod:`services.common.jobs` among them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from services.common.errors import sanitize_value

__all__ = ["FINISHED", "JobOut", "JobRecord", "JobStatus"]

JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
FINISHED: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})
"""The statuses a job ends in."""


class JobRecord(Protocol):
    """What :meth:`JobOut.from_job` reads of a stored job."""

    id: str
    kind: str
    status: str
    payload: dict[str, Any]
    progress: dict[str, Any] | None
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    attempts: int
    created_at: datetime | None
    updated_at: datetime | None
    finished_at: datetime | None


class JobOut(BaseModel):
    """``GET /v1/jobs/{id}``: status, progress while it runs, result or error when done
    (``error`` never carries SQL text or absolute paths)."""

    job_id: str
    kind: str
    status: str
    progress: dict[str, Any] = {}
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    attempts: int = 0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    finished_at: datetime | None = None

    @classmethod
    def from_job(cls, job: JobRecord) -> JobOut:
        return cls(
            job_id=job.id,
            kind=job.kind,
            status=job.status,
            progress=job.progress or {},
            result=job.result,
            error=sanitize_value(job.error) if job.error else job.error,
            attempts=job.attempts,
            created_at=job.created_at,
            updated_at=job.updated_at,
            finished_at=job.finished_at,
        )
