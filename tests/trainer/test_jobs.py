"""Train jobs on the durable queue: progress, a failure mid-run, a worker that dies."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from services.common.db import create_tables, utcnow
from services.common.jobs import JobQueue
from services.common.worker import Worker
from services.trainer.config import TrainerSettings
from services.trainer.configs import hyper_from_dict
from services.trainer.jobs import (
    TRAIN_KIND,
    TrainWorker,
    job_view,
    last_checkpoint,
    model_dir,
    train_handler,
    train_kind,
)
from services.trainer.runners.sft import run_sft
from services.trainer.store import DatasetRow, Store

ROWS = [
    {
        "prompt": [{"role": "user", "content": f"cut clip {i} to {i + 1} seconds"}],
        "completion": [{"role": "assistant", "content": f"trim shot {i} out {i + 1}.0"}],
    }
    for i in range(6)
]


@pytest.fixture
def setup(tmp_path: Path, engine: Engine) -> tuple[TrainerSettings, Store, JobQueue]:
    create_tables(engine)
    settings = TrainerSettings(data_dir=tmp_path, log_level="WARNING")
    store = Store(engine)
    store.add(DatasetRow(id="ds-1", kind="repair_sft", rows=len(ROWS), path=str(tmp_path)))
    return settings, store, JobQueue(engine)


def tmp_root(settings: TrainerSettings) -> Path:
    return settings.data_dir.resolve()


def _prepare(fail_at: int | None = None):
    def runner(rows, base, hyper, out_dir, *, callback):
        def wrapped(progress: Any) -> bool | None:
            if fail_at is not None and progress.step >= fail_at:
                raise RuntimeError(f"simulated crash at step {progress.step}")
            return callback(progress)

        return run_sft(rows, base, hyper, out_dir, callback=wrapped)

    def prepare(payload: dict) -> tuple:
        hyper = hyper_from_dict("sft", {**payload["hyper"], "batch_size": 2, "max_length": 256})
        return runner, ROWS, payload["base"], hyper

    return prepare


def _submit(queue: JobQueue, max_steps: int, save_steps: int = 0) -> str:
    payload = {
        "kind": "sft",
        "base": "tiny",
        "data": "ds-1",
        "hyper": {"max_steps": max_steps, "save_steps": save_steps},
        "model_id": "sft-test",
    }
    return queue.submit(TRAIN_KIND, payload, max_attempts=2).id


def test_a_run_stores_its_loss_curve_and_registers_the_model(setup) -> None:
    settings, store, queue = setup
    job_id = _submit(queue, max_steps=3)
    worker = Worker(queue, {TRAIN_KIND: train_handler(settings, store, _prepare())})
    assert worker.run_once()
    job = queue.get(job_id)
    assert job.status == "succeeded", job.error
    assert [p[0] for p in job.progress["loss_curve"]] == [1, 2, 3]
    assert job.progress["total_steps"] == 3 and job.progress["fraction"] == 1.0
    model = store.model("sft-test")
    assert model is not None and model.job_id == job_id
    assert Path(model.path) == (model_dir(settings, "sft-test") / "final").resolve()
    assert job.result["metrics"]["steps"] == 3


def test_a_failure_mid_run_keeps_the_last_checkpoint_and_names_it(setup) -> None:
    settings, store, queue = setup
    job_id = _submit(queue, max_steps=6, save_steps=2)
    worker = Worker(queue, {TRAIN_KIND: train_handler(settings, store, _prepare(fail_at=3))})
    worker.run_once()
    job = queue.get(job_id)
    assert job.status == "failed"
    assert job.error["code"] == "train_failed"
    kept = last_checkpoint(model_dir(settings, "sft-test"))
    assert kept is not None and kept.name == "checkpoint-3"
    assert (kept / "config.json").is_file()
    named = "models/sft-test/checkpoint-3"  # relative: errors carry no absolute path
    assert named in job.error["message"] and "simulated crash" in job.error["message"]
    assert str(tmp_root(settings)) not in job.error["message"]
    view = job_view(job, settings)
    assert view.error["last_checkpoint"] == named
    assert view.progress["last_checkpoint"] == str(kept)
    assert store.model("sft-test") is None


def test_a_failed_run_retried_trains_again_instead_of_being_lost(setup) -> None:
    settings, store, queue = setup
    job_id = _submit(queue, max_steps=4, save_steps=2)
    failing = Worker(queue, {TRAIN_KIND: train_handler(settings, store, _prepare(fail_at=3))})
    failing.run_once()
    assert queue.get(job_id).status == "failed"
    assert queue.retry(job_id, extra_attempts=2).status == "queued"
    worker = Worker(queue, {TRAIN_KIND: train_handler(settings, store, _prepare())})
    assert worker.run_once()
    job = queue.get(job_id)
    assert job.status == "succeeded" and job.attempts == 2, job.error
    assert store.model("sft-test") is not None and job.result["metrics"]["steps"] == 4


def test_a_worker_that_dies_leaves_a_failed_job_naming_its_checkpoint(setup) -> None:
    settings, store, queue = setup
    now = [utcnow()]
    queue.clock = lambda: now[0]
    job_id = _submit(queue, max_steps=4)
    dead = queue.claim(TRAIN_KIND, "dead-worker", lease_s=60)  # claimed, then it "dies"
    assert dead is not None and dead.id == job_id
    kept = model_dir(settings, "sft-test") / "checkpoint-2"
    kept.mkdir(parents=True)
    (kept / "config.json").write_text("{}")
    worker = Worker(queue, {TRAIN_KIND: train_handler(settings, store, _prepare())}, lease_s=60)
    assert not worker.run_once()  # the lease still holds: nobody may take the job
    now[0] += timedelta(seconds=61)
    assert worker.run_once()
    job = queue.get(job_id)
    assert job.status == "failed" and job.attempts == 2
    assert job.error["code"] == "worker_lost"
    assert "models/sft-test/checkpoint-2" in job.error["message"]
    assert job_view(job, settings).error["last_checkpoint"] == "models/sft-test/checkpoint-2"
    assert kept.is_dir()  # nothing was retrained over it


def test_an_expired_lease_without_attempts_left_still_names_the_checkpoint(setup) -> None:
    settings, _store, queue = setup
    now = [utcnow()]
    queue.clock = lambda: now[0]
    job_id = queue.submit(TRAIN_KIND, {"model_id": "sft-x"}, max_attempts=1).id
    queue.claim(TRAIN_KIND, "dead-worker", lease_s=10)
    final = model_dir(settings, "sft-x") / "checkpoint-7"
    final.mkdir(parents=True)
    (final / "config.json").write_text("{}")
    now[0] += timedelta(seconds=11)
    assert queue.claim(TRAIN_KIND, "other", lease_s=10) is None
    job = queue.get(job_id)
    assert job.error["code"] == "lease_expired"
    view = job_view(job, settings)
    assert view.error["last_checkpoint"] == "models/sft-x/checkpoint-7"
    assert view.progress["last_checkpoint"] == str(final)


def test_a_cpu_worker_never_takes_a_gpu_job(setup) -> None:
    settings, store, queue = setup
    handler = train_handler(settings, store, _prepare())
    gpu_job = queue.submit(train_kind("cuda"), {"model_id": "on-gpu"}, max_attempts=2).id
    cpu_job = _submit(queue, max_steps=1)
    cpu = Worker(queue, {train_kind("cpu"): handler}, worker_id="cpu-1")
    assert cpu.run_once() and not cpu.run_once()  # took its own job, left the GPU one
    assert queue.get(cpu_job).status == "succeeded" and queue.get(gpu_job).status == "queued"
    taken: list[str] = []
    gpu = Worker(queue, {train_kind("cuda"): lambda ctx: taken.append(ctx.job.id) or {}})
    assert gpu.run_once() and not gpu.run_once()
    assert taken == [gpu_job] and queue.get(gpu_job).status == "succeeded"
    assert TrainWorker(queue, handler, lease_s=5, device="cuda")._worker.handlers.keys() == {
        "trainer.train.cuda"
    }
