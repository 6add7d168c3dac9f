"""Train jobs: ``POST /v1/train`` queues one; a worker thread trains and registers the model.

Training runs on the common durable queue. Progress (step, loss curve, the last checkpoint
written) is stored with every heartbeat, so ``GET /v1/jobs/{id}`` shows it while it runs.
A job that fails — an exception mid-run, or a worker that dies and lets its lease expire —
is marked failed and keeps every checkpoint already written under
``<data dir>/models/<model id>/``; its error names the last one (relative to the data dir).
A re-leased job is not silently retrained from scratch: the next worker fails it with
``worker_lost``. ``POST /v1/jobs/{id}:retry`` on a failed job trains it again, from the
start.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from protocol.jobs import JobOut
from services.common.errors import RefineryError
from services.common.jobs import FINISHED, Job, JobQueue, LeaseLost
from services.common.worker import Handler, JobContext, Worker
from services.trainer.config import TrainerSettings
from services.trainer.store import ModelRow, Store

__all__ = [
    "TRAIN_KIND",
    "TRAIN_KINDS",
    "TrainFailed",
    "TrainWorker",
    "job_view",
    "last_checkpoint",
    "model_dir",
    "train_handler",
    "train_kind",
]

TRAIN_KIND = "trainer.train"
"""Jobs for CPU workers; a job for ``cuda`` workers is ``trainer.train.cuda``."""
TRAIN_KINDS = (TRAIN_KIND, f"{TRAIN_KIND}.cuda")


def train_kind(device: str) -> str:
    """The job kind that workers on ``device`` (``cpu`` | ``cuda``) claim: the queue's claim
    filters by kind, so a worker never takes another device's job."""
    return TRAIN_KIND if device == "cpu" else f"{TRAIN_KIND}.{device}"


MAX_CURVE_POINTS = 500
HEARTBEAT_EVERY_S = 1.0

Runner = Callable[..., Mapping[str, Any]]
"""``(rows, base, hyper, out_dir, *, callback) -> metrics`` (see services.trainer.runners)."""


class TrainFailed(RefineryError):
    """Training stopped before the end; ``context.last_checkpoint`` is what was kept."""

    status_code = 500
    code = "train_failed"


def model_dir(settings: TrainerSettings, model_id: str) -> Path:
    return settings.data_dir / "models" / model_id


def data_relative(settings: TrainerSettings, path: Path | str | None) -> str | None:
    """``path`` as errors name it: relative to the data dir (``models/<id>/checkpoint-3``),
    never absolute."""
    if path is None:
        return None
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(settings.data_dir.resolve()).as_posix()
    except ValueError:
        return resolved.name


_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def last_checkpoint(out_dir: Path) -> Path | None:
    """``out_dir/final`` once a run finished, else its newest complete ``checkpoint-<step>``."""
    if (out_dir / "final" / "config.json").is_file():
        return out_dir / "final"
    if not out_dir.is_dir():
        return None
    steps = [
        (int(m.group(1)), child)
        for child in out_dir.iterdir()
        if (m := _CHECKPOINT.match(child.name)) and (child / "config.json").is_file()
    ]
    return max(steps, key=lambda pair: pair[0])[1] if steps else None


class _Progress:
    """The runner's callback: each step's loss into stored progress, cancellation out."""

    def __init__(self, ctx: JobContext, out_dir: Path) -> None:
        self.ctx = ctx
        self.out_dir = out_dir
        self.state: dict[str, Any] = {"stage": "training", "step": 0, "loss_curve": []}
        self._last_beat = 0.0

    def __call__(self, update: Any) -> bool:
        """Record one finished step; False asks the runner to stop (cancelled or lease lost)."""
        state = self.state
        state["step"] = int(update.step)
        state["total_steps"] = int(update.total)
        state["epoch"] = round(float(update.epoch), 4)
        state["tokens"] = int(update.tokens)
        curve = state["loss_curve"]
        curve.append([state["step"], round(float(update.loss), 6)])
        del curve[:-MAX_CURVE_POINTS]
        if update.total:
            state["fraction"] = round(min(update.step / float(update.total), 1.0), 4)
        kept = last_checkpoint(self.out_dir)
        state["last_checkpoint"] = str(kept) if kept else None
        now = time.monotonic()
        if now - self._last_beat >= HEARTBEAT_EVERY_S or update.step == update.total:
            self._last_beat = now
            try:
                self.ctx.heartbeat(progress=state)
            except LeaseLost:
                return False  # cancelled or re-leased: stop; the worker abandons the job
        return True

    def beat(self, **changes: Any) -> None:
        self.state.update(changes)
        self.ctx.heartbeat(progress=self.state)


def train_handler(
    settings: TrainerSettings,
    store: Store,
    prepare: Callable[[Mapping[str, Any]], tuple[Runner, list[dict], str, Any]],
) -> Handler:
    """The handler of :data:`TRAIN_KIND` jobs.

    ``prepare(payload)`` → ``(runner, rows, base, hyper)``: the same validation the API ran
    before queueing, repeated here because the job may run in another process.
    """

    def handle(ctx: JobContext) -> dict[str, Any]:
        model_id = ctx.payload["model_id"]
        out_dir = model_dir(settings, model_id)
        _refuse_released(ctx, settings, model_id, out_dir)
        progress = _Progress(ctx, out_dir)
        progress.beat(stage="loading")
        runner, rows, base, hyper = prepare(ctx.payload)
        out_dir.mkdir(parents=True, exist_ok=True)
        progress.beat(stage="training", rows=len(rows))
        metrics = _train(runner, rows, base, hyper, progress, settings, model_id)
        if metrics.get("cancelled"):
            raise LeaseLost(f"job {ctx.job.id} stopped: cancelled or re-leased", param="job_id")
        path = _final_path(out_dir, settings)
        progress.beat(stage="registering", fraction=1.0, metrics=_jsonable(metrics))
        row = _register(ctx, store, model_id, path, metrics)
        return {
            "model_id": row.id,
            "path": row.path,
            "metrics": row.metrics,
            "loss_curve": progress.state["loss_curve"],
        }

    return handle


def _refuse_released(
    ctx: JobContext, settings: TrainerSettings, model_id: str, out_dir: Path
) -> None:
    """:class:`TrainFailed` for a job whose worker was lost: re-leased, not asked for again."""
    retried = ctx.progress.get("retry_of_attempt") == ctx.job.attempts - 1
    if ctx.job.attempts > 1 and not retried:
        kept = last_checkpoint(out_dir) or ctx.progress.get("last_checkpoint")
        raise TrainFailed(
            f"the worker training {model_id} stopped (lease expired, attempt "
            f"{ctx.job.attempts - 1}); last checkpoint kept: "
            f"{data_relative(settings, kept) or 'none'}",
            code="worker_lost",
        )


def _train(
    runner: Runner,
    rows: list[dict],
    base: str,
    hyper: Any,
    progress: _Progress,
    settings: TrainerSettings,
    model_id: str,
) -> dict[str, Any]:
    """The runner's metrics; a failure is :class:`TrainFailed` naming the last checkpoint."""
    out_dir = progress.out_dir
    try:
        return dict(runner(rows, base, hyper, out_dir, callback=progress))
    except LeaseLost:
        raise
    except Exception as exc:
        kept = last_checkpoint(out_dir)
        progress.state["last_checkpoint"] = str(kept) if kept else None
        _try_beat(progress, stage="failed")
        detail = _describe(exc)
        raise TrainFailed(
            f"training {model_id} failed at step {progress.state['step']}: {detail}; "
            f"last checkpoint kept: {data_relative(settings, kept) or 'none'}"
        ) from exc


def _register(
    ctx: JobContext, store: Store, model_id: str, path: Path, metrics: dict[str, Any]
) -> ModelRow:
    """The job's model row, added once (a retried job finds the one it stored)."""
    row = store.model_for_job(ctx.job.id) or ModelRow(
        id=model_id,
        kind=ctx.payload["kind"],
        base=ctx.payload["base"],
        dataset_id=ctx.payload["data"],
        job_id=ctx.job.id,
        path=str(path),
        metrics=_jsonable(metrics),
    )
    if store.model(row.id) is None:
        store.add(row)
    return row


def _try_beat(progress: _Progress, **changes: Any) -> None:
    with contextlib.suppress(LeaseLost):
        progress.beat(**changes)


def _describe(exc: Exception) -> str:
    return exc.message if isinstance(exc, RefineryError) else f"{type(exc).__name__}: {exc}"


def _final_path(out_dir: Path, settings: TrainerSettings) -> Path:
    """Where the finished model lies: ``out_dir/final``."""
    kept = last_checkpoint(out_dir)
    if kept is None or kept.name != "final":
        where = data_relative(settings, out_dir)
        raise TrainFailed(f"training finished but wrote no final checkpoint under {where}")
    return kept.resolve()


def _jsonable(metrics: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if isinstance(value, bool | int | str) or value is None:
            out[key] = value
        elif isinstance(value, float):
            out[key] = round(value, 6)
        elif isinstance(value, list | tuple):
            out[key] = [round(v, 6) if isinstance(v, float) else v for v in value]
        elif isinstance(value, dict):
            out[key] = _jsonable(value)
        else:
            out[key] = str(value)
    return out


def job_view(job: Job, settings: TrainerSettings) -> JobOut:
    """The job as clients see it; a stopped job names the last checkpoint on disk, in its
    progress and, when failed (also by ``lease_expired``), in its error."""
    out = JobOut.from_job(job)
    model_id = (job.payload or {}).get("model_id")
    if job.status in FINISHED and job.status != "succeeded" and model_id:
        kept = last_checkpoint(model_dir(settings, model_id))
        out.progress = {**out.progress, "last_checkpoint": str(kept) if kept else None}
        if out.error is not None:  # relative to the data dir: errors carry no absolute path
            out.error = {**out.error, "last_checkpoint": data_relative(settings, kept)}
    return out


class TrainWorker:
    """One background thread serving this trainer process's device's train jobs."""

    def __init__(
        self, queue: JobQueue, handler: Handler, *, lease_s: float, device: str = "cpu"
    ) -> None:
        self.queue = queue
        self.device = device
        kinds = {train_kind(device): handler}
        self._worker = Worker(queue, kinds, lease_s=lease_s, poll_s=0.25)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start serving (again after :meth:`stop`: an app's lifespan may run twice)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._worker.run_forever, args=(self._stop,), name="train-worker", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
