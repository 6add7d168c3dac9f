"""Wire models every service shares: the durable job as its clients see it.

Clients import this module, so it stays free of the database layer: the job table
(:mod:`services.common.jobs`, SQLAlchemy) is imported only for type checking.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from services.common.jobs import Job

__all__ = ["FINISHED", "JobOut", "JobStatus"]

JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
FINISHED: frozenset[str] = frozenset({"succeeded", "failed", "cancelled"})
"""The statuses a job ends in."""


class JobOut(BaseModel):
    """``GET /v1/jobs/{id}``: status, progress while it runs, result or error when done."""

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
    def from_job(cls, job: Job) -> JobOut:
        return cls(
            job_id=job.id,
            kind=job.kind,
            status=job.status,
            progress=job.progress or {},
            result=job.result,
            error=job.error,
            attempts=job.attempts,
            created_at=job.created_at,
            updated_at=job.updated_at,
            finished_at=job.finished_at,
        )
