from __future__ import annotations

import functools
import json
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Depends, FastAPI, Query, Request, WebSocket
from fastapi.testclient import TestClient
from pydantic import BaseModel, ConfigDict
from sqlalchemy import inspect
from sqlalchemy.engine import Engine
from starlette.websockets import WebSocketDisconnect

import services.common.jobs  # noqa: F401  (registers the jobs table)
from services.common.app import UnsafeExposure, build_app, format_loc
from services.common.db import make_engine
from services.common.errors import ConflictError, NotFoundError
from services.common.logs import JsonFormatter, current_request_id
from services.common.settings import CommonSettings

KEY = {"Authorization": "Bearer key-2"}


class DemoSettings(CommonSettings):
    service_name: str = "demo"


@functools.lru_cache
def get_settings() -> DemoSettings:
    return DemoSettings()


class Shot(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clip_id: str
    in_s: float


class Timeline(BaseModel):
    shots: list[Shot]


class VerifyRequest(BaseModel):
    timeline: Timeline


router = APIRouter()


@router.post("/v1/verify")
def verify(req: VerifyRequest) -> dict[str, Any]:
    return {"shots": len(req.timeline.shots), "request_id": current_request_id()}


@router.get("/v1/items/{item_id}")
def item(item_id: int, limit: Annotated[int, Query(ge=1)] = 10) -> dict[str, int]:
    return {"item_id": item_id, "limit": limit}


@router.get("/v1/missing")
def missing() -> None:
    raise NotFoundError("no clip c9", code="clip_not_found", param="clip_id")


@router.get("/v1/conflict")
def conflict() -> None:
    raise ConflictError("busy", context={"retry_after_s": 3})


@router.get("/v1/boom")
def boom() -> None:
    raise RuntimeError("kaboom")


@router.get("/v1/whoami")
def whoami(request: Request, settings: DemoSettings = Depends(get_settings)) -> dict[str, Any]:
    return {"service": settings.service_name, "request_id": request.state.request_id}


@router.websocket("/v1/ws")
async def ws(socket: WebSocket) -> None:
    await socket.accept()
    await socket.send_json({"hello": "world"})
    await socket.close()


def make_app(**overrides: Any) -> FastAPI:
    settings = DemoSettings(**{"api_keys": ["key-1", "key-2"], **overrides})
    return build_app(
        title="demo", settings=settings, routers=[router], settings_dependency=get_settings
    )


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(make_app(max_body_bytes=2048)) as c:
        yield c


def test_healthz_and_open_paths_need_no_key(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "service": "demo"}
    assert client.get("/readyz").json() == {"status": "ready"}
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/docs").status_code == 200
    assert client.get("/metrics").status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": "key-2"},
        {"Authorization": "Basic key-2"},
    ],
)
def test_auth_rejects_missing_or_wrong_key(client: TestClient, headers: dict[str, str]) -> None:
    resp = client.get("/v1/items/1", headers=headers)
    assert resp.status_code == 401
    assert resp.json()["error"]["code"] == "unauthorized"
    assert resp.headers["www-authenticate"] == "Bearer"
    assert resp.headers["x-request-id"]


def test_auth_accepts_any_configured_key(client: TestClient) -> None:
    for header in ("Bearer key-1", "Bearer key-2", "bearer key-2"):
        resp = client.get("/v1/items/7", headers={"Authorization": header})
        assert resp.status_code == 200, header
        assert resp.json() == {"item_id": 7, "limit": 10}


def test_websocket_needs_a_key_too(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/v1/ws"):
        pass
    assert closed.value.code == 1008
    with client.websocket_connect("/v1/ws", headers=KEY) as socket:
        assert socket.receive_json() == {"hello": "world"}


def test_no_keys_means_no_auth() -> None:
    with TestClient(make_app(api_keys=[])) as c:
        assert c.get("/v1/items/1").status_code == 200


def test_request_id_echoed_or_generated(client: TestClient) -> None:
    given = client.get("/v1/whoami", headers={**KEY, "X-Request-ID": "req-42"})
    assert given.headers["x-request-id"] == "req-42"
    assert given.json()["request_id"] == "req-42"
    one, two = client.get("/healthz"), client.get("/healthz")
    assert one.headers["x-request-id"] != two.headers["x-request-id"]
    bad = client.get("/healthz", headers={"X-Request-ID": "has spaces\tand tabs"})
    assert bad.headers["x-request-id"] != "has spaces\tand tabs"
    long = client.get("/healthz", headers={"X-Request-ID": "x" * 500})
    assert len(long.headers["x-request-id"]) < 100


def test_body_limit_by_content_length(client: TestClient) -> None:
    resp = client.post(
        "/v1/verify", headers={**KEY, "Content-Type": "application/json"}, content=b"x" * 3000
    )
    assert resp.status_code == 413
    assert resp.json()["error"]["code"] == "payload_too_large"


def test_body_limit_when_streamed_without_length(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"timeline": {"shots": ['
        for _ in range(200):
            yield b'{"clip_id": "c01", "in_s": 1.0},'

    resp = client.post(
        "/v1/verify", headers={**KEY, "Content-Type": "application/json"}, content=chunks()
    )
    assert resp.status_code == 413
    assert resp.json()["error"]["code"] == "payload_too_large"


def test_small_body_passes_and_request_id_visible_to_route(client: TestClient) -> None:
    body = {"timeline": {"shots": [{"clip_id": "c01", "in_s": 1.0}]}}
    resp = client.post("/v1/verify", headers={**KEY, "X-Request-ID": "abc"}, json=body)
    assert resp.status_code == 200
    assert resp.json() == {"shots": 1, "request_id": "abc"}


def test_validation_envelope_names_the_param(client: TestClient) -> None:
    body = {
        "timeline": {
            "shots": [
                {"clip_id": "c01", "in_s": 1.0},
                {"clip_id": "c02", "in_s": "soon", "speed": 2},
            ]
        }
    }
    resp = client.post("/v1/verify", headers=KEY, json=body)
    assert resp.status_code == 422
    error = resp.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["param"] == "timeline.shots[1].in_s"
    assert error["message"].startswith("timeline.shots[1].in_s: Input should be a valid number")
    assert [d["param"] for d in error["details"]] == [
        "timeline.shots[1].in_s",
        "timeline.shots[1].speed",
    ]
    assert "Extra inputs" in error["details"][1]["message"]


def test_validation_of_query_and_missing_body(client: TestClient) -> None:
    query = client.get("/v1/items/1?limit=0", headers=KEY).json()["error"]
    assert query["code"] == "invalid_request" and query["param"] == "limit"
    path = client.get("/v1/items/abc", headers=KEY).json()["error"]
    assert path["param"] == "item_id"
    empty = client.post("/v1/verify", headers=KEY)
    assert empty.status_code == 422
    assert empty.json()["error"]["message"].startswith("body: Field required")


def test_malformed_json(client: TestClient) -> None:
    resp = client.post(
        "/v1/verify", headers={**KEY, "Content-Type": "application/json"}, content=b'{"timeline": '
    )
    assert resp.status_code == 422
    error = resp.json()["error"]
    assert error["code"] == "invalid_json"
    assert "not valid JSON" in error["message"]


def test_unknown_route_and_wrong_method(client: TestClient) -> None:
    nf = client.get("/v1/nope", headers=KEY)
    assert nf.status_code == 404
    assert nf.json() == {
        "error": {"code": "not_found", "message": "no route for GET /v1/nope", "param": None}
    }
    na = client.delete("/v1/items/1", headers=KEY)
    assert na.status_code == 405
    assert na.json()["error"]["code"] == "method_not_allowed"
    assert "GET" in na.headers["allow"]


def test_refinery_errors_keep_status_code_param_and_context(client: TestClient) -> None:
    nf = client.get("/v1/missing", headers=KEY)
    assert nf.status_code == 404
    assert nf.json() == {
        "error": {"code": "clip_not_found", "message": "no clip c9", "param": "clip_id"}
    }
    busy = client.get("/v1/conflict", headers=KEY)
    assert busy.status_code == 409
    assert busy.json()["error"] == {
        "code": "conflict",
        "message": "busy",
        "param": None,
        "retry_after_s": 3,
    }


def test_unhandled_error_is_a_logged_500_envelope(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        resp = client.get("/v1/boom", headers={**KEY, "X-Request-ID": "boom-1"})
    assert resp.status_code == 500
    assert resp.json()["error"]["code"] == "internal_error"
    assert resp.headers["x-request-id"] == "boom-1"
    errors = [r for r in caplog.records if r.name == "refinery.errors"]
    assert errors and errors[0].exc_info is not None


def test_access_log_line_per_request(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="refinery.access"):
        client.get("/v1/items/5", headers={**KEY, "X-Request-ID": "log-1"})
    lines = [r for r in caplog.records if r.name == "refinery.access"]
    assert len(lines) == 1
    fields = lines[0].fields  # type: ignore[attr-defined]
    assert fields["method"] == "GET" and fields["path"] == "/v1/items/5"
    assert fields["route"] == "/v1/items/{item_id}" and fields["status"] == 200
    assert fields["request_id"] == "log-1" and fields["ms"] >= 0
    line = json.loads(JsonFormatter("demo").format(lines[0]))
    assert line["service"] == "demo" and line["request_id"] == "log-1"
    assert line["level"] == "INFO" and line["ts"].endswith("Z")


def test_metrics_count_by_route_template(client: TestClient) -> None:
    for i in range(3):
        client.get(f"/v1/items/{i}", headers=KEY)
    client.get("/v1/nope", headers=KEY)
    text = client.get("/metrics").text
    labels = 'method="GET",route="/v1/items/{item_id}",status="200"'
    assert f"refinery_http_requests_total{{{labels}}} 3.0" in text
    assert f"refinery_http_request_duration_seconds_count{{{labels}}} 3.0" in text
    assert f'refinery_http_request_duration_seconds_bucket{{le="+Inf",{labels}}} 3.0' in text
    assert 'route="<unmatched>",status="404"' in text
    assert "/v1/items/1" not in text


def test_readyz_reflects_the_database(engine: Engine) -> None:
    settings = DemoSettings()
    with TestClient(build_app(title="db", settings=settings, engine=engine)) as ok:
        assert ok.get("/readyz").status_code == 200
    down = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")
    app = build_app(title="down", settings=settings, engine=down)
    resp = TestClient(app).get("/readyz")  # no lifespan: it would fail creating tables
    assert resp.status_code == 503
    assert resp.json()["error"]["code"] == "unavailable"
    assert TestClient(app).get("/healthz").status_code == 200


def test_startup_creates_tables_then_runs_service_lifespan(engine: Engine) -> None:
    seen: list[list[str]] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        seen.append(inspect(app.state.engine).get_table_names())
        yield

    app = build_app(title="x", settings=DemoSettings(), engine=engine, lifespan=lifespan)
    assert app.state.engine is engine and app.state.settings.service_name == "demo"
    with TestClient(app):
        pass
    assert seen and "jobs" in seen[0]


def test_settings_dependency_follows_build_app_and_overrides() -> None:
    app = make_app(service_name="custom", api_keys=[])
    with TestClient(app) as c:
        assert c.get("/v1/whoami").json()["service"] == "custom"
        app.dependency_overrides[get_settings] = lambda: DemoSettings(service_name="other")
        assert c.get("/v1/whoami").json()["service"] == "other"


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        (("timeline", "shots", 3, "in_s"), "timeline.shots[3].in_s"),
        ((0, "a"), "[0].a"),
        ((), None),
        (("x",), "x"),
    ],
)
def test_format_loc(loc: tuple[str | int, ...], expected: str | None) -> None:
    assert format_loc(loc) == expected


def test_start_up_refuses_to_serve_unauthenticated_beyond_loopback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    exposed = DemoSettings(bind_host="0.0.0.0", log_level="WARNING")
    app = build_app(title="demo", settings=exposed)
    refused = pytest.raises(UnsafeExposure, match="refusing to start the demo unauthenticated")
    with refused, TestClient(app):
        pass
    assert any("REFINERY_API_KEYS" in r.getMessage() for r in caplog.records)
    keyed = DemoSettings(bind_host="0.0.0.0", api_keys=["k"], log_level="WARNING")
    with TestClient(build_app(title="demo", settings=keyed)) as client:
        assert client.get("/healthz").status_code == 200
    trusted = DemoSettings(bind_host="0.0.0.0", allow_unauthenticated=True, log_level="WARNING")
    with TestClient(build_app(title="demo", settings=trusted)) as client:
        assert client.get("/healthz").status_code == 200


def _db_app(url: str, **overrides: Any) -> FastAPI:
    """An app whose one route reads the jobs table through ``url``."""
    from services.common.jobs import JobQueue

    engine = make_engine(url)
    db_router = APIRouter()

    @db_router.get("/v1/jobs-count")
    def count(request: Request) -> dict[str, int]:
        return {"jobs": len(JobQueue(request.app.state.engine).list())}

    @db_router.get("/v1/bad-sql")
    def bad_sql(request: Request) -> None:
        with request.app.state.engine.connect() as conn:
            conn.exec_driver_sql("SELECT * FROM no_such_table_here")

    @db_router.get("/v1/leaky")
    def leaky() -> None:
        raise NotFoundError("no media file at /srv/media/secret/c01.mp4", param="uri")

    settings = DemoSettings(database_url=url, **overrides)
    return build_app(title="demo", settings=settings, routers=[db_router], engine=engine)


def test_an_unreachable_database_is_a_503_with_retry_after() -> None:
    from tests.common.test_db import closed_port_pg_url

    app = _db_app(closed_port_pg_url(), db_retry_after_s=7)
    client = TestClient(app)  # no lifespan: start-up would wait for the database
    answer = client.get("/v1/jobs-count")
    assert answer.status_code == 503, answer.text
    assert answer.headers["retry-after"] == "7"
    error = answer.json()["error"]
    assert error["code"] == "database_unavailable"
    assert "SELECT" not in error["message"] and "[SQL" not in error["message"]
    assert client.get("/readyz").status_code == 503
    app.state.engine.dispose()


def test_bugs_stay_500_and_errors_carry_no_sql_or_paths(tmp_path: Any) -> None:
    with TestClient(_db_app(f"sqlite:///{tmp_path / 'demo.db'}")) as client:
        assert client.get("/v1/jobs-count").json() == {"jobs": 0}
        bad = client.get("/v1/bad-sql")
        assert bad.status_code == 500 and bad.json()["error"]["code"] == "internal_error"
        assert "no_such_table" not in bad.text
        leaky = client.get("/v1/leaky").json()["error"]
        assert leaky["message"] == "no media file at …/c01.mp4" and leaky["param"] == "uri"


def test_start_up_waits_for_the_database_then_gives_up() -> None:
    from services.common.errors import DatabaseUnavailable
    from tests.common.test_db import closed_port_pg_url

    app = _db_app(closed_port_pg_url(), db_startup_timeout_s=0.6)
    with pytest.raises(DatabaseUnavailable) as raised, TestClient(app):
        pass
    assert "within 0.6 s" in raised.value.message
    app.state.engine.dispose()
