"""VerifierClient / AsyncVerifierClient against the real verifier app, in-process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import clients.base
from clients import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    AsyncVerifierClient,
    AuthenticationError,
    NotFoundError,
    PatchRejectedError,
    UnavailableError,
    UnprocessableEntityError,
    VerifierClient,
)
from protocol.verifier import PatchIn, ReportOut, TaskIn, TimelineIn

REMOVE_SUNSET = {"schema": "Patch.1", "ops": [{"op": "remove", "shot": 1}]}
BAD_SECOND_OP = {"ops": [{"op": "swap", "a": 0, "b": 1}, {"op": "remove", "shot": 7}]}


@pytest.fixture
def client(app: FastAPI) -> Iterator[VerifierClient]:
    """Sync client whose HTTP goes through Starlette's TestClient (an httpx.Client)."""
    with VerifierClient(http_client=TestClient(app)) as c:
        yield c


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clients.base, "RETRY_BASE_DELAY", 0.0)


def _mock(
    handler: Callable[[httpx.Request], httpx.Response],
) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    return httpx.MockTransport(record), seen


# --- sync, against the app -------------------------------------------------------------


def test_verify_returns_a_typed_report(client: VerifierClient, task: dict, timeline: dict) -> None:
    report = client.verify(task, timeline)
    assert isinstance(report, ReportOut)
    assert report.feasible and report.executable
    assert report.duration_s == 6.0 and report.duration_frames == 180
    assert [c.id for c in report.constraints] == ["L1", "L2", "L3"]
    assert all(c.satisfied for c in report.constraints)


def test_models_and_dicts_give_the_same_report(
    client: VerifierClient, task: dict, bad_timeline: dict
) -> None:
    from_dicts = client.verify(task, bad_timeline)
    models = TaskIn.model_validate(task), TimelineIn.model_validate(bad_timeline)
    from_models = client.verify(*models)
    assert from_models == from_dicts
    assert not from_dicts.feasible
    assert {c.id for c in from_dicts.constraints if not c.satisfied} == {"L1", "L2"}


def test_apply_returns_timeline_and_report(
    client: VerifierClient, task: dict, timeline: dict
) -> None:
    result = client.apply(task, timeline, PatchIn.model_validate(REMOVE_SUNSET))
    assert [s.clip_id for s in result.timeline.shots] == ["c1"]
    assert result.report.duration_s == 3.0
    assert not result.report.feasible


def test_rejected_patch_names_the_op(client: VerifierClient, task: dict, timeline: dict) -> None:
    with pytest.raises(PatchRejectedError) as info:
        client.apply(task, timeline, BAD_SECOND_OP)
    error = info.value
    assert error.status_code == 422 and error.code == "patch_rejected"
    assert error.op_index == 1
    assert error.reason == "shot_out_of_range"
    assert error.param is not None and error.param.startswith("patch.ops[1]")
    assert error.request.url.path == "/v1/apply"


def test_batch_keeps_order_and_reports_rejections(
    client: VerifierClient, task: dict, timeline: dict
) -> None:
    batch = client.verify_batch(
        task, timeline, [REMOVE_SUNSET, BAD_SECOND_OP], include_timelines=False
    )
    assert batch.base.feasible
    first, second = batch.results
    assert first.ok and first.timeline is None and first.report is not None
    assert first.report.duration_s == 3.0
    assert not second.ok and second.error is not None
    assert second.error["op_index"] == 1 and second.error["param"].startswith("patches[1]")
    with_timelines = client.verify_batch(task, timeline, [REMOVE_SUNSET])
    assert with_timelines.results[0].timeline is not None


def test_schema_and_unknown_schema(client: VerifierClient) -> None:
    schema = client.schema("Task")
    assert "clips" in schema["properties"]
    with pytest.raises(NotFoundError) as info:
        client.schema("Nope")
    assert info.value.param == "name" and info.value.code == "not_found"


def test_invalid_request_is_422_with_param(
    client: VerifierClient, task: dict, timeline: dict
) -> None:
    timeline["shots"][0]["in_s"] = -1
    with pytest.raises(UnprocessableEntityError) as info:
        client.verify(task, timeline)
    assert not isinstance(info.value, PatchRejectedError)
    assert info.value.code == "invalid_request"
    assert info.value.param == "timeline.shots[0].in_s"


def test_unknown_clip_is_422_with_param(client: VerifierClient, task: dict, timeline: dict) -> None:
    timeline["shots"][1]["clip_id"] = "zz"
    with pytest.raises(UnprocessableEntityError) as info:
        client.verify(task, timeline)
    assert (info.value.code, info.value.param) == ("unknown_reference", "timeline.shots[1].clip_id")


def test_api_keys(
    keyed_app: FastAPI, task: dict, timeline: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFINERY_API_KEY", raising=False)
    anonymous = VerifierClient(http_client=TestClient(keyed_app))
    with pytest.raises(AuthenticationError) as info:
        anonymous.verify(task, timeline)
    assert info.value.status_code == 401 and info.value.code == "unauthorized"
    assert anonymous.health()  # /healthz stays open
    wrong = VerifierClient(api_key="nope", http_client=TestClient(keyed_app))
    with pytest.raises(AuthenticationError):
        wrong.verify(task, timeline)
    assert (
        VerifierClient(api_key="sekret", http_client=TestClient(keyed_app))
        .verify(task, timeline)
        .feasible
    )
    monkeypatch.setenv("REFINERY_API_KEY", "sekret")
    assert VerifierClient(http_client=TestClient(keyed_app)).verify(task, timeline).feasible


# --- configuration ---------------------------------------------------------------------


def test_base_url_from_argument_env_or_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFINERY_VERIFIER_URL", raising=False)
    assert VerifierClient().base_url == "http://127.0.0.1:8101"
    monkeypatch.setenv("REFINERY_VERIFIER_URL", "http://verifier.test:9/")
    assert VerifierClient().base_url == "http://verifier.test:9"
    assert AsyncVerifierClient().base_url == "http://verifier.test:9"
    assert VerifierClient("http://other.test").base_url == "http://other.test"


def test_headers_auth_and_body_on_the_wire(task: dict, timeline: dict) -> None:
    transport, seen = _mock(lambda r: httpx.Response(503))
    client = VerifierClient(
        "http://v.test/base",
        api_key="k",
        headers={"X-Trace": "t1"},
        max_retries=0,
        transport=transport,
    )
    with pytest.raises(UnavailableError):
        client.verify(TaskIn.model_validate(task), timeline)
    (request,) = seen
    assert str(request.url) == "http://v.test/base/v1/verify"
    assert request.headers["authorization"] == "Bearer k"
    assert request.headers["x-trace"] == "t1"
    body = httpx.Response(200, content=request.content).json()
    assert body["task"]["schema"] == "Task.1" and body["timeline"] == timeline


def test_transport_and_http_client_are_exclusive() -> None:
    with pytest.raises(ValueError):
        VerifierClient(
            transport=httpx.MockTransport(lambda r: httpx.Response(200)), http_client=httpx.Client()
        )


def test_close_only_owned_clients() -> None:
    with VerifierClient(transport=httpx.MockTransport(lambda r: httpx.Response(200))) as owned:
        pass
    assert owned._client.is_closed
    borrowed = httpx.Client()
    with VerifierClient(http_client=borrowed):
        pass
    assert not borrowed.is_closed
    borrowed.close()


# --- retries and transport failures ----------------------------------------------------


def test_503_is_retried_then_succeeds(
    no_backoff: None, task: dict, timeline: dict, app: FastAPI
) -> None:
    good = TestClient(app).post("/v1/verify", json={"task": task, "timeline": timeline})
    answers = iter(
        [httpx.Response(503), httpx.Response(503), httpx.Response(200, content=good.content)]
    )
    transport, seen = _mock(lambda r: next(answers))
    report = VerifierClient(transport=transport).verify(task, timeline)
    assert report.feasible and len(seen) == 3


def test_503_exhausts_retries(no_backoff: None, task: dict, timeline: dict) -> None:
    body = {"error": {"code": "unavailable", "message": "warming up", "param": None}}
    transport, seen = _mock(lambda r: httpx.Response(503, json=body))
    with pytest.raises(UnavailableError) as info:
        VerifierClient(transport=transport, max_retries=1).verify(task, timeline)
    assert len(seen) == 2 and info.value.message == "warming up"


def test_connect_errors_are_retried(no_backoff: None) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) < 3:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"type": "object"})

    assert VerifierClient(transport=httpx.MockTransport(handler)).schema("Task") == {
        "type": "object"
    }
    assert len(calls) == 3


def test_read_timeouts_are_not_retried(no_backoff: None, task: dict, timeline: dict) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    transport, seen = _mock(handler)
    with pytest.raises(APITimeoutError) as info:
        VerifierClient(transport=transport).verify(task, timeline)
    assert len(seen) == 1 and info.value.request.url.path == "/v1/verify"


def test_retry_delay_backs_off_and_honours_retry_after() -> None:
    delay = clients.base.SyncAPIClient._retry_delay
    assert delay(0) < delay(1) < delay(2)
    assert delay(50) == clients.base.RETRY_MAX_DELAY
    assert delay(0, httpx.Response(503, headers={"Retry-After": "1.5"})) == 1.5
    assert (
        delay(0, httpx.Response(503, headers={"Retry-After": "3600"}))
        == clients.base.RETRY_MAX_DELAY
    )


def test_unreachable_server(no_backoff: None, free_port: int, task: dict, timeline: dict) -> None:
    client = VerifierClient(f"http://127.0.0.1:{free_port}")
    with pytest.raises(APIConnectionError) as info:
        client.verify(task, timeline)
    assert info.value.request.url.port == free_port
    assert client.health() is False


def test_unexpected_success_body(task: dict, timeline: dict) -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json={"ves": "high"}))
    with pytest.raises(APIResponseValidationError) as info:
        VerifierClient(transport=transport).verify(task, timeline)
    assert info.value.status_code == 200


# --- async ----------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def aclient(app: FastAPI) -> AsyncVerifierClient:
    return AsyncVerifierClient(transport=httpx.ASGITransport(app))


@pytest.mark.anyio
async def test_async_round_trip(aclient: AsyncVerifierClient, task: dict, timeline: dict) -> None:
    async with aclient as c:
        assert await c.health()
        report = await c.verify(task, timeline)
        applied = await c.apply(task, timeline, REMOVE_SUNSET)
        batch = await c.verify_batch(task, timeline, [REMOVE_SUNSET, REMOVE_SUNSET])
        schema = await c.schema("report")
    assert report.feasible and report.components.H == 1.0
    assert [s.clip_id for s in applied.timeline.shots] == ["c1"]
    assert [r.ok for r in batch.results] == [True, True]
    assert batch.results[0].timeline is not None
    assert "ves" in schema["properties"]
    assert aclient._client.is_closed


@pytest.mark.anyio
async def test_async_errors(aclient: AsyncVerifierClient, task: dict, timeline: dict) -> None:
    with pytest.raises(PatchRejectedError) as info:
        await aclient.apply(task, timeline, BAD_SECOND_OP)
    assert info.value.op_index == 1
    with pytest.raises(NotFoundError):
        await aclient.schema("nothing")
    await aclient.close()


@pytest.mark.anyio
async def test_async_auth(
    keyed_app: FastAPI, task: dict, timeline: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFINERY_API_KEY", raising=False)
    anonymous = AsyncVerifierClient(transport=httpx.ASGITransport(keyed_app))
    with pytest.raises(AuthenticationError):
        await anonymous.verify(task, timeline)
    keyed = AsyncVerifierClient(api_key="sekret", transport=httpx.ASGITransport(keyed_app))
    assert (await keyed.verify(task, timeline)).feasible


@pytest.mark.anyio
async def test_async_retries(no_backoff: None, task: dict) -> None:
    answers: Iterator[Any] = iter([httpx.Response(503), httpx.Response(200, json={"a": 1})])
    seen = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return next(answers)

    client = AsyncVerifierClient(transport=httpx.MockTransport(handler))
    assert await client.schema("Task") == {"a": 1}
    assert len(seen) == 2


@pytest.mark.anyio
async def test_async_unreachable(
    no_backoff: None, free_port: int, task: dict, timeline: dict
) -> None:
    client = AsyncVerifierClient(f"http://127.0.0.1:{free_port}", max_retries=1)
    with pytest.raises(APIConnectionError):
        await client.verify(task, timeline)
    assert await client.health() is False
