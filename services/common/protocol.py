"""Wire models every service shares: the durable job as its clients see it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from services.common.errors import sanitize_value
from services.common.jobs import Job


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
    def from_job(cls, job: Job) -> JobOut:
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
