"""Routes every service that runs durable jobs shares: ``POST /v1/jobs/{id}:retry``.

A service includes the router next to its own ``GET /v1/jobs/{id}``, with the job kinds it
serves and how it shows a job::

    routers=[api.router, job_routes(kinds=[SYNTH_KIND], view=lambda job, _: SynthJobOut...)]

The queue is ``request.app.state.jobs`` (a :class:`~services.common.jobs.JobQueue`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from protocol.common import error_responses
from protocol.jobs import JobOut
from services.common.jobs import Job, JobQueue

__all__ = ["JobView", "job_routes"]

JobView = Callable[[Job, Request], Any]
"""Turns a stored job into the service's wire model (``request`` gives its settings)."""


def _plain(job: Job, _request: Request) -> JobOut:
    return JobOut.from_job(job)


def job_routes(
    *,
    kinds: Sequence[str] | None = None,
    view: JobView = _plain,
    response_model: type[Any] = JobOut,
    extra_attempts: int = 3,
) -> APIRouter:
    """``POST /v1/jobs/{job_id}:retry`` for jobs of ``kinds`` (all kinds when None).

    A ``failed`` job goes back to ``queued`` with ``extra_attempts`` more attempts and its
    progress kept, so it resumes from its last committed item (202, the job as ``view``
    shows it). A job of another kind, or none, is a 404 ``job_not_found``; a job that is
    not failed is a 409 ``job_not_failed``.
    """
    router = APIRouter(prefix="/v1", tags=["jobs"])
    allowed = list(kinds) if kinds is not None else None

    @router.post(
        "/jobs/{job_id}:retry",
        response_model=response_model,
        status_code=202,
        responses=error_responses(404, 409, 503),
    )
    async def retry_job(job_id: str, request: Request) -> Any:
        """Queue a failed job again; it resumes from its last committed item."""
        queue: JobQueue = request.app.state.jobs
        job = await run_in_threadpool(
            lambda: queue.retry(job_id, kinds=allowed, extra_attempts=extra_attempts)
        )
        return view(job, request)

    return router
