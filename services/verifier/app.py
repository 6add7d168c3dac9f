"""The verifier service: ``uvicorn services.verifier.app:app --port 8101``."""

from __future__ import annotations

from fastapi import FastAPI

from services.common import app as common_app
from services.common.openapi import register_bodies
from services.verifier.api import BODIES, router
from services.verifier.compiled import TaskCache
from services.verifier.config import VerifierSettings, get_settings


def build_app(settings: VerifierSettings | None = None) -> FastAPI:
    """The verifier app; pass ``settings`` in tests, or let the environment decide."""
    settings = settings or get_settings()
    app = common_app.build_app(
        title="Refinery verifier",
        settings=settings,
        routers=[router],
        settings_dependency=get_settings,
    )
    register_bodies(app, BODIES)
    app.state.task_cache = TaskCache(settings.task_cache_size, settings.task_cache_bytes)
    return app


app = build_app()
