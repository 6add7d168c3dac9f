"""Render jobs' housekeeping: partial outputs left by a dead process are removed."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

from services.common.db import create_tables
from services.common.jobs import JobQueue
from services.planner.config import PlannerSettings
from services.planner.rendering import (
    RENDER_KIND,
    RenderWorker,
    output_path,
    remove_stale_partials,
    renders_dir,
)


def test_partials_no_running_job_owns_are_removed_at_start(tmp_path: Path, engine: Engine) -> None:
    create_tables(engine)
    settings = PlannerSettings(data_dir=tmp_path / "data", media_root=tmp_path)
    queue = JobQueue(engine)
    live = queue.submit(RENDER_KIND, {"plan_id": "p1"})
    assert queue.claim(RENDER_KIND, "other-planner", lease_s=300) is not None
    dead = queue.submit(RENDER_KIND, {"plan_id": "p2"})
    assert queue.claim(RENDER_KIND, "killed-planner", lease_s=300) is not None
    queue.fail(dead.id, "killed-planner", "render_failed", "ffmpeg exited with -9")
    folder = renders_dir(settings)
    folder.mkdir(parents=True)
    owned = folder / f".{live.id}.partial.mp4"
    stale = folder / f".{dead.id}.partial.mp4"
    orphan = folder / ".0123456789abcdef.partial.mp4"
    finished = output_path(settings, "done")
    for path in (owned, stale, orphan, finished):
        path.write_bytes(b"half an mp4")

    worker = RenderWorker(settings, engine)
    worker.start()  # a restarted planner's render worker
    worker.stop()
    assert owned.exists() and finished.exists()
    assert not stale.exists() and not orphan.exists()
    assert remove_stale_partials(settings, queue) == []
