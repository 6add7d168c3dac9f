"""The synth service: ``uvicorn services.synth.app:app --port 8103``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from protocol.synth import SynthJobOut
from services.common import app as common_app
from services.common.db import make_engine
from services.common.job_api import job_routes
from services.common.metrics import QueueDepth
from services.common.settings import database_url_for
from services.synth import service
from services.synth.api import router
from services.synth.config import SynthSettings, get_settings
from services.synth.jobs import (
    SYNTH_KIND,
    GeneratorFactory,
    RankerFactory,
    ReaderFactory,
    SynthWorker,
)


def build_app(
    settings: SynthSettings | None = None,
    *,
    generators: GeneratorFactory | None = None,
    readers: ReaderFactory | None = None,
    rankers: RankerFactory | None = None,
) -> FastAPI:
    """The synth app with its worker threads. ``generators``: builds a job's generator by
    name (tests inject one); by default :func:`services.synth.service.build_generator`.
    ``readers``: builds the stage-3 reader a job names; by default
    :func:`services.synth.service.build_reader`. ``rankers``: builds the model that ranks
    stage-2 drafts; by default :func:`services.synth.service.build_ranker`."""
    settings = settings or get_settings()
    engine = make_engine(database_url_for(settings))
    factory = generators or (lambda name: service.build_generator(name, settings))
    reader_factory = readers or (lambda name: service.build_reader(name, settings))
    ranker_factory = rankers or (lambda: service.build_ranker(settings))
    workers = SynthWorker(settings, engine, factory, reader_factory, ranker_factory)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        workers.start()
        try:
            yield
        finally:
            workers.stop()

    app = common_app.build_app(
        title="Refinery synth",
        settings=settings,
        routers=[
            router,
            job_routes(
                kinds=[SYNTH_KIND],
                view=lambda job, _request: SynthJobOut.from_job(job),
                response_model=SynthJobOut,
            ),
        ],
        engine=engine,
        lifespan=lifespan,
        settings_dependency=get_settings,
    )
    app.state.jobs = workers.queue
    app.state.metrics.add_live(QueueDepth(workers.queue.depth))
    return app


app = build_app()
