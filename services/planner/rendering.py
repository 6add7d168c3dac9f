"""Render jobs: ``POST /v1/plans/{id}/render`` queues one; a worker thread renders the MP4.

Renders run on the common durable queue, so a killed planner's render is re-leased and
finished by the next worker; the output is written atomically under the data dir, keyed by
job id, so a retried attempt overwrites its own half rather than leaving two files. ffmpeg
dies with the planner (see :func:`protocol.media.run_child`); a partial
output that a dead process left behind is removed when the next render worker starts
(:func:`remove_stale_partials`). While ffmpeg runs, its ``-progress`` reports move the
job's ``progress.fraction`` (the share of the timeline written), which the CLI's bar shows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from protocol.verifier import TaskIn, TimelineIn
from services.common.db import utcnow
from services.common.jobs import JobQueue
from services.common.metrics import RENDER_SECONDS
from services.common.worker import Handler, JobContext, Worker
from services.planner.config import PlannerSettings
from services.planner.export.render import render
from services.planner.records import get_plan

RENDER_KIND = "planner.render"
RENDER_LEASE_S = 300.0

log = logging.getLogger(__name__)


def renders_dir(settings: PlannerSettings) -> Path:
    return settings.data_dir / "renders"


def output_path(settings: PlannerSettings, job_id: str) -> Path:
    return renders_dir(settings) / f"{job_id}.mp4"


def remove_stale_partials(settings: PlannerSettings, queue: JobQueue) -> list[Path]:
    """Delete the ``.<job id>.partial.*`` files under the renders folder that no running
    job owns (its job is finished, gone, or its lease has expired: the process writing it
    died). Returns what was removed."""
    folder = renders_dir(settings)
    if not folder.is_dir():
        return []
    now = utcnow()
    removed = []
    for path in sorted(folder.glob(".*.partial.*")):
        job_id = path.name[1:].split(".partial", 1)[0]
        job = queue.get(job_id)
        alive = (
            job is not None
            and job.status == "running"
            and job.lease_expires_at is not None
            and job.lease_expires_at > now
        )
        if not alive:
            path.unlink(missing_ok=True)
            removed.append(path)
    if removed:
        log.info("removed %d stale partial render output(s)", len(removed))
    return removed


PROGRESS_EVERY_S = 0.5
"""At most this often a render stores its progress (each report is a database write)."""


def _reporter(ctx: JobContext) -> Callable[[float], None]:
    """Stores ffmpeg's progress on the job (``fraction`` of the timeline written)."""
    last = [float("-inf")]

    def report(fraction: float) -> None:
        now = time.monotonic()
        if fraction < 1.0 and now - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = now
        ctx.heartbeat(progress={"fraction": round(fraction, 4), "stage": "rendering"})

    return report


def render_handler(settings: PlannerSettings, engine: Engine) -> Handler:
    def handle(ctx: JobContext) -> dict[str, Any]:
        plan_id = ctx.payload["plan_id"]
        row = get_plan(engine, plan_id)
        if row is None:
            raise LookupError(f"plan {plan_id} is gone")
        task = TaskIn.model_validate(row.task).to_task()
        timeline = TimelineIn.model_validate(row.result["timeline"]).to_timeline(task)
        ctx.heartbeat(progress={"fraction": 0.0, "stage": "rendering"})
        started = time.perf_counter()
        done = render(
            task,
            timeline,
            settings.media_root,
            output_path(settings, ctx.job.id),
            timeout_s=RENDER_LEASE_S - 10,
            on_progress=_reporter(ctx),
        )
        RENDER_SECONDS.observe(time.perf_counter() - started)
        ctx.heartbeat(progress={"fraction": 1.0, "stage": "done"})
        return {
            "plan_id": plan_id,
            "duration_s": round(done.duration_s, 4),
            "expected_s": round(done.expected_s, 4),
            "frames": done.frames,
            "bytes": done.path.stat().st_size,
        }

    return handle


class RenderWorker:
    """One background thread serving render jobs for this planner process."""

    def __init__(self, settings: PlannerSettings, engine: Engine) -> None:
        self.settings = settings
        self.queue = JobQueue(engine)
        self._worker = Worker(
            self.queue,
            {RENDER_KIND: render_handler(settings, engine)},
            lease_s=RENDER_LEASE_S,
            poll_s=0.25,
            db_retry_s=settings.db_retry_s,
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Remove stale partial outputs, then start serving (again after :meth:`stop`: an
        app's lifespan may run twice)."""
        remove_stale_partials(self.settings, self.queue)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._worker.run_forever, args=(self._stop,), name="render-worker", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
