"""The planner service: ``uvicorn services.planner.app:app --port 8102``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from clients.verifier import VerifierClient
from services.common import app as common_app
from services.common.db import make_engine
from services.common.settings import database_url_for
from services.planner.api import router
from services.planner.api_ingest import router as ingest_router
from services.planner.config import PlannerSettings, get_settings
from services.planner.ingesting import IngestWorker
from services.planner.registry import ProposerRegistry
from services.planner.rendering import RenderWorker


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
        routers=[router, ingest_router],
        engine=engine,
        lifespan=lifespan,
        settings_dependency=get_settings,
    )
    app.state.verifier = client
    app.state.registry = ProposerRegistry(settings, engine)
    app.state.jobs = renders.queue
    return app


def _first(keys: list[str]) -> str | None:
    return keys[0] if keys else None


app = build_app()
