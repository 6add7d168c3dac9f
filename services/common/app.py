"""The app factory every service uses: ops routes, error envelopes, one middleware.

A service's ``app.py``::

    def build_app(settings: VerifierSettings | None = None) -> FastAPI:
        settings = settings or get_settings()
        return common_app.build_app(
            title="Refinery verifier", settings=settings, routers=[api.router],
            settings_dependency=get_settings,   # routes see the same settings object
        )

    app = build_app()   # for uvicorn (run with --no-access-log)

Tests build the app with their own settings (``build_app(VerifierSettings(api_keys=
["k"]))``) or swap the routes' view with ``app.dependency_overrides[get_settings]``;
auth and the body limit always follow the object given to ``build_app``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import Response

from protocol.common import ErrorOut
from services.common.db import (
    create_tables,
    describe_db_error,
    is_transient,
    ping,
    wait_for_database,
)
from services.common.errors import (
    DatabaseUnavailable,
    RefineryError,
    UnavailableError,
    sanitize_message,
    sanitize_value,
)
from services.common.logs import RateLimitedLog, configure_logging
from services.common.metrics import CONTENT_TYPE_LATEST, HttpMetrics, mark_process_dead
from services.common.middleware import RefineryMiddleware
from services.common.openapi import register_bodies
from services.common.responses import ORJSONResponse, error_response
from services.common.settings import CommonSettings, exposure_problem

__all__ = ["Lifespan", "UnsafeExposure", "build_app", "format_loc", "install_error_handlers"]

_db_log = RateLimitedLog(logging.getLogger("refinery.errors"), interval_s=30.0)

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}
_VERBS = frozenset({"GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"})
_LOCATIONS = frozenset({"body", "query", "path", "header", "cookie"})
MAX_DETAILS = 50
"""Validation problems listed under ``details``; the message counts them all."""


def build_app(
    *,
    title: str,
    settings: CommonSettings,
    routers: Sequence[APIRouter] = (),
    engine: Engine | None = None,
    lifespan: Lifespan | None = None,
    settings_dependency: Callable[..., Any] | None = None,
    version: str = "0.1.0",
) -> FastAPI:
    """A FastAPI app with ``/healthz``, ``/readyz``, ``/metrics``, envelopes and auth.

    Start-up raises :class:`UnsafeExposure` (the one-line reason logged first) when the
    settings would serve without API keys beyond loopback (``REFINERY_BIND_HOST``) and
    ``REFINERY_ALLOW_UNAUTHENTICATED`` is not set.

    ``engine``: start-up waits for it (up to ``settings.db_startup_timeout_s``, with
    backoff), creates its tables, and ``/readyz`` pings it; while it is unreachable, routes
    answer 503 ``database_unavailable`` with ``Retry-After``.
    ``lifespan``: the service's own start-up/shutdown, run inside ours (after tables).
    ``settings_dependency``: the service's cached ``get_settings``; it is overridden to
    return ``settings`` so routes and middleware agree. ``app.state`` holds
    ``settings``, ``engine`` and ``metrics`` (register extra metrics on
    ``app.state.metrics.registry``). A service whose start-up warms up in the background
    sets ``app.state.warm`` (a ``threading.Event``): ``/readyz`` answers 503
    ``warming_up`` until it is set.

    Responses: routes declaring a response model are serialised by Pydantic directly
    (FastAPI's fast path); envelopes and ops routes use :class:`ORJSONResponse`.
    """
    configure_logging(settings.log_level, service=settings.service_name)
    app = FastAPI(
        title=title, version=version, lifespan=_compose_lifespan(settings, engine, lifespan)
    )
    metrics = HttpMetrics()
    app.state.settings = settings
    register_bodies(app, [ErrorOut])  # what every error_responses() entry points at
    app.state.engine = engine
    app.state.metrics = metrics
    for router in routers:
        app.include_router(router)
    app.include_router(_ops_router(metrics))  # last: service routes match first
    install_error_handlers(app)
    open_paths = {"/healthz", "/readyz", "/metrics"}
    open_paths.update(
        p
        for p in (app.openapi_url, app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url)
        if p
    )
    app.add_middleware(
        RefineryMiddleware,
        api_keys=settings.api_keys,
        max_body_bytes=settings.max_body_bytes,
        metrics=metrics,
        open_paths=open_paths,
    )
    if settings_dependency is not None:
        app.dependency_overrides[settings_dependency] = lambda: settings
    return app


class UnsafeExposure(RuntimeError):
    """Start-up refused: no API keys on an interface beyond loopback (see ``exposure_problem``)."""


def _compose_lifespan(
    settings: CommonSettings, engine: Engine | None, inner: Lifespan | None
) -> Lifespan:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[Any]:
        problem = exposure_problem(settings)
        if problem is not None:
            logging.getLogger("refinery").critical(problem)
            raise UnsafeExposure(problem)
        if engine is not None:
            timeout = settings.db_startup_timeout_s
            await run_in_threadpool(lambda: wait_for_database(engine, timeout_s=timeout))
            await run_in_threadpool(create_tables, engine)
        try:
            if inner is None:
                yield None
                return
            async with inner(app) as state:
                yield state
        finally:
            mark_process_dead()  # this worker's live gauges leave the shared metrics folder
            if engine is not None and not isinstance(engine.pool, StaticPool):
                engine.dispose()  # close the pool now (an in-memory database is its pool)

    return lifespan


def _ops_router(metrics: HttpMetrics) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/healthz")
    async def healthz(request: Request) -> ORJSONResponse:
        return ORJSONResponse({"status": "ok", "service": request.app.state.settings.service_name})

    @router.get("/readyz")
    async def readyz(request: Request) -> Response:
        engine: Engine | None = request.app.state.engine
        if engine is not None and not await run_in_threadpool(ping, engine):
            return error_response(UnavailableError("database is not reachable"))
        warm = getattr(request.app.state, "warm", None)
        if warm is not None and not warm.is_set():
            why = "warming up: loading what the first request would otherwise wait for"
            return error_response(UnavailableError(why, code="warming_up"))
        return ORJSONResponse({"status": "ready"})

    @router.get("/metrics")
    async def metrics_text() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    return router


def format_loc(loc: Sequence[str | int]) -> str | None:
    """``("timeline", "shots", 3, "in_s")`` → ``"timeline.shots[3].in_s"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or None


def _validation_envelope(exc: RequestValidationError) -> RefineryError:
    errors = list(exc.errors())
    details = []
    for err in errors[:MAX_DETAILS]:
        loc = tuple(err.get("loc", ()))
        where = loc[0] if loc and loc[0] in _LOCATIONS else None
        param = format_loc(loc[1:] if where else loc)
        details.append({"param": param, "message": err.get("msg", ""), "type": err.get("type")})
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        reason = (first.get("ctx") or {}).get("error", "malformed")
        pos = first["loc"][-1] if first.get("loc") else "?"
        message = f"request body is not valid JSON: {reason} (at character {pos})"
        return RefineryError(message, code="invalid_json", status_code=422)
    head = details[0] if details else {"param": None, "message": "invalid request"}
    first_loc = tuple(first.get("loc", ()))
    subject = head["param"] or (first_loc[0] if first_loc else "request")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    context: dict[str, Any] = {"details": details}
    if len(errors) > len(details):
        context["details_omitted"] = len(errors) - len(details)
    return RefineryError(
        f"{subject}: {head['message']}{more}",
        code="invalid_request",
        param=head["param"],
        status_code=422,
        context=context,
    )


def _http_envelope(request: Request, exc: HTTPException) -> RefineryError:
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    method, path = request.method, request.url.path
    if exc.status_code == 404 and "route" not in request.scope:
        message = f"no route for {method} {path}"
    elif exc.status_code == 405 and message == "Method Not Allowed":
        message = f"method {method} is not allowed on {path}"
    return RefineryError(message, code=code, status_code=exc.status_code)


def _sanitized(exc: RefineryError) -> RefineryError:
    """``exc`` as it may leave the service: no SQL text, no absolute paths."""
    clean = RefineryError(
        sanitize_message(exc.message),
        code=exc.code,
        param=exc.param,
        status_code=exc.status_code,
        context=sanitize_value(exc.context),
    )
    return clean


def _unavailable(request: Request, exc: DatabaseUnavailable) -> Response:
    settings = getattr(request.app.state, "settings", None)
    retry_after = getattr(settings, "db_retry_after_s", None) or exc.retry_after_s
    return error_response(_sanitized(exc), headers={"Retry-After": str(retry_after)})


def _allowed_methods(request: Request) -> list[str] | None:
    """The methods the OpenAPI document declares for the most specific path template
    matching this path (Starlette's own ``Allow`` names only the first route's)."""
    paths = request.app.openapi().get("paths", {})
    best: tuple[int, list[str]] | None = None
    for template, item in paths.items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            literal = len(re.sub(r"\{[^/]+?\}", "", template))
            if best is None or literal > best[0]:
                best = (literal, sorted(m.upper() for m in item if m.upper() in _VERBS))
    return None if best is None else best[1]


def install_error_handlers(app: FastAPI) -> None:
    """Map errors to the envelope ``{"error": {"code", "message", "param"}}``."""

    async def on_refinery_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RefineryError)
        if isinstance(exc, DatabaseUnavailable):
            return _unavailable(request, exc)
        return error_response(_sanitized(exc))

    async def on_database_error(request: Request, exc: Exception) -> Response:
        if not is_transient(exc):
            raise exc  # a bug, not an outage: the middleware answers 500 internal_error
        why = describe_db_error(exc)
        _db_log.log(
            logging.WARNING,
            why,
            "database unavailable on %s %s: %s",
            request.method,
            request.url.path,
            why,
        )
        return _unavailable(request, DatabaseUnavailable())

    async def on_validation_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(_validation_envelope(exc))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code < 400 or exc.status_code in (204, 304):
            return Response(status_code=exc.status_code, headers=exc.headers)
        headers = exc.headers
        if exc.status_code == 405 and (allowed := _allowed_methods(request)):
            headers = {**(headers or {}), "Allow": ", ".join(allowed)}
        return error_response(_http_envelope(request, exc), headers=headers)

    app.add_exception_handler(RefineryError, on_refinery_error)
    app.add_exception_handler(SQLAlchemyError, on_database_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(HTTPException, on_http_error)
