"""The trainer service: ``uvicorn services.trainer.app:app --port 8104``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from protocol.trainer import JobOut
from services.common import app as common_app
from services.common.db import make_engine
from services.common.job_api import job_routes
from services.common.jobs import JobQueue
from services.common.metrics import QueueDepth
from services.common.settings import database_url_for
from services.trainer.api import router
from services.trainer.config import TrainerSettings, get_settings
from services.trainer.jobs import TRAIN_KIND, TrainWorker, job_view, train_handler
from services.trainer.service import Upstreams
from services.trainer.store import Store
from services.trainer.training import prepare_job


def build_app(
    settings: TrainerSettings | None = None,
    *,
    planner: Any = None,
    synth: Any = None,
    worker: bool = True,
) -> FastAPI:
    """The trainer app. ``planner`` / ``synth``: ready clients (tests pass ones bound to
    in-process services); by default clients for ``REFINERY_PLANNER_URL`` / ``_SYNTH_URL``.
    ``worker=False`` serves the API only (train jobs wait for a worker elsewhere)."""
    settings = settings or get_settings()
    engine = make_engine(database_url_for(settings))
    store = Store(engine)
    queue = JobQueue(engine)
    upstreams = Upstreams(settings, planner=planner, synth=synth)
    handler = train_handler(settings, store, prepare_job(store, data_dir=settings.data_dir))
    trains = TrainWorker(
        queue, handler, lease_s=settings.train_lease_s, device=settings.resolved_train_device()
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if worker:
            trains.start()
        try:
            yield
        finally:
            if worker:
                trains.stop()
            upstreams.close()

    app = common_app.build_app(
        title="Refinery trainer",
        settings=settings,
        routers=[
            router,
            job_routes(
                kinds=[TRAIN_KIND],
                view=lambda job, request: job_view(job, request.app.state.settings),
                response_model=JobOut,
                extra_attempts=2,
            ),
        ],
        engine=engine,
        lifespan=lifespan,
        settings_dependency=get_settings,
    )
    app.state.store = store
    app.state.jobs = queue
    app.state.metrics.add_live(QueueDepth(queue.depth))
    app.state.upstreams = upstreams
    app.state.train_worker = trains
    return app


app = build_app()
