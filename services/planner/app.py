"""The planner service: ``uvicorn services.planner.app:app --port 8102``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from clients.verifier import VerifierClient
from protocol.planner import PlanRequest
from services.common import app as common_app
from services.common.db import make_engine
from services.common.job_api import job_routes
from services.common.metrics import QueueDepth
from services.common.openapi import register_bodies
from services.common.settings import database_url_for
from services.planner.api import router
from services.planner.api_compile import router as compile_router
from services.planner.api_ingest import router as ingest_router
from services.planner.config import PlannerSettings, get_settings
from services.planner.ingesting import ANALYZE_KIND, IngestWorker
from services.planner.registry import ProposerRegistry
from services.planner.rendering import RENDER_KIND, RenderWorker
from services.planner.warmup import start_warm_up


def build_app(
    settings: PlannerSettings | None = None, *, verifier: VerifierClient | None = None
) -> FastAPI:
    """The planner app. ``verifier``: a ready client (tests pass one bound to an in-process
    verifier); by default one for ``REFINERY_VERIFIER_URL``."""
    settings = settings or get_settings()
    engine = make_engine(database_url_for(settings))
    client = verifier or VerifierClient(settings.verifier_url, api_key=_first(settings.api_keys))

    renders = RenderWorker(settings, engine)
    ingests = IngestWorker(settings, engine, renders.queue)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        renders.start()
        ingests.start()
        if settings.warm_up:
            start_warm_up(settings, app.state)
        try:
            yield
        finally:
            ingests.stop()
            renders.stop()
            if verifier is None:
                client.close()

    app = common_app.build_app(
        title="Refinery planner",
        settings=settings,
        routers=[
            router,
            ingest_router,
            compile_router,
            job_routes(kinds=[RENDER_KIND, ANALYZE_KIND]),
        ],
        engine=engine,
        lifespan=lifespan,
        settings_dependency=get_settings,
    )
    register_bodies(app, [PlanRequest])
    app.state.verifier = client
    app.state.registry = ProposerRegistry(settings, engine)
    app.state.jobs = renders.queue
    app.state.metrics.add_live(QueueDepth(renders.queue.depth))
    return app


def _first(keys: list[str]) -> str | None:
    return keys[0] if keys else None


app = build_app()
