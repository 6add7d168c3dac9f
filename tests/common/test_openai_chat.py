"""The shared chat endpoint against a real HTTP fake of an OpenAI-compatible API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from services.common import openai_chat
from services.common.openai_chat import (
    NO_THINKING,
    ChatEndpoint,
    ChatEndpointOwner,
    EndpointRefused,
    EndpointUnavailable,
    UnknownModel,
    strip_reasoning,
    without_thinking,
)
from tests.planner.fake_openai import FakeOpenAI, closed_port_url, serve

MODEL = "fake-planner"
BODY: dict[str, Any] = {
    "model": MODEL,
    "messages": [{"role": "user", "content": "Clips:\nbeach-1 | 4.0s | surf at dawn"}],
    "n": 2,
    "seed": 3,
}


@pytest.fixture(scope="module")
def fake_server() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI(models=(MODEL, "other"))
    with serve(fake.app) as url:
        yield fake, url


@pytest.fixture
def fake(fake_server: tuple[FakeOpenAI, str]) -> FakeOpenAI:
    fake_server[0].reset()
    return fake_server[0]


@pytest.fixture
def url(fake_server: tuple[FakeOpenAI, str], fake: FakeOpenAI) -> str:
    return fake_server[1]


def test_post_returns_the_answer_and_sends_the_bearer(fake: FakeOpenAI, url: str) -> None:
    with ChatEndpoint(url + "/", MODEL, api_key="sekret", backoff_s=0) as endpoint:
        assert endpoint.base_url == url
        response = endpoint.post(BODY)
    assert response.status_code == 200 and len(response.json()["choices"]) == 2
    assert fake.requests == [BODY] and fake.authorization == ["Bearer sekret"]
    with ChatEndpoint(url, MODEL) as anonymous:
        anonymous.post(BODY)
    assert fake.authorization[-1] is None


def test_server_errors_are_retried_then_reported(fake: FakeOpenAI, url: str) -> None:
    fake.reset("error")
    retries: list[int] = []
    endpoint = ChatEndpoint(url, MODEL, max_retries=2, backoff_s=0, on_retry=retries.append)
    with endpoint, pytest.raises(EndpointUnavailable) as caught:
        endpoint.post(BODY)
    assert len(fake.requests) == 3 and retries == [1, 2]
    assert (caught.value.failure, caught.value.attempts) == ("HTTP 500", 3)
    assert caught.value.message == f"LLM endpoint {url} failed: HTTP 500 after 3 attempt(s)"


def test_a_passing_flake_is_retried_to_success(fake: FakeOpenAI, url: str) -> None:
    fake.reset("flaky")
    retries: list[int] = []
    with ChatEndpoint(url, MODEL, backoff_s=0, on_retry=retries.append) as endpoint:
        assert endpoint.post(BODY).status_code == 200
    assert len(fake.requests) == 2 and retries == [1]


def test_backoff_doubles_between_attempts(
    fake: FakeOpenAI, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.reset("error")
    slept: list[float] = []
    monkeypatch.setattr(openai_chat, "time", SimpleNamespace(sleep=slept.append))
    endpoint = ChatEndpoint(url, MODEL, max_retries=3, backoff_s=0.03)
    with endpoint, pytest.raises(EndpointUnavailable):
        endpoint.post(BODY)
    assert slept == pytest.approx([0.03, 0.06, 0.12]) and len(fake.requests) == 4


def test_client_errors_are_refused_without_retry(fake: FakeOpenAI, url: str) -> None:
    endpoint = ChatEndpoint(url, "not-served", backoff_s=0)
    with endpoint, pytest.raises(EndpointRefused) as caught:
        endpoint.post({**BODY, "model": "not-served"})
    assert len(fake.requests) == 1 and caught.value.status_code == 404
    assert caught.value.reason.startswith("HTTP 404: ") and "does not exist" in caught.value.reason
    assert caught.value.message.startswith(f"LLM endpoint {url} refused the request: HTTP 404")


def test_timeouts_are_retried_and_named(fake: FakeOpenAI, url: str) -> None:
    fake.reset("slow")
    endpoint = ChatEndpoint(url, MODEL, timeout_s=0.1, max_retries=1, backoff_s=0)
    with endpoint, pytest.raises(EndpointUnavailable) as caught:
        endpoint.post(BODY)
    assert caught.value.failure.startswith("timeout") and caught.value.attempts == 2


def test_an_unreachable_endpoint(fake: FakeOpenAI) -> None:
    down = closed_port_url()
    with ChatEndpoint(down, MODEL, max_retries=1, backoff_s=0) as endpoint:
        with pytest.raises(EndpointUnavailable) as checked:
            endpoint.check()
        with pytest.raises(EndpointUnavailable) as posted:
            endpoint.post(BODY)
    assert checked.value.message.startswith(f"LLM endpoint {down} is unreachable: ConnectError")
    assert posted.value.failure.startswith("ConnectError") and posted.value.attempts == 2


def test_check_passes_when_the_model_is_served(fake: FakeOpenAI, url: str) -> None:
    with ChatEndpoint(url, MODEL) as endpoint:
        endpoint.check()
    assert fake.requests == []


def test_check_names_the_served_models_when_ours_is_missing(url: str) -> None:
    with ChatEndpoint(url, "absent") as endpoint, pytest.raises(UnknownModel) as caught:
        endpoint.check()
    assert caught.value.served == (MODEL, "other")
    assert caught.value.message == (
        f"LLM endpoint {url} does not serve 'absent' (it serves {MODEL}, other)"
    )


def test_check_fails_on_a_non_200_model_list(url: str) -> None:
    wrong_prefix = url.removesuffix("/v1")  # the fake serves /v1/models only: a 404 here
    with ChatEndpoint(wrong_prefix, MODEL) as endpoint, pytest.raises(EndpointUnavailable) as e:
        endpoint.check()
    assert e.value.failure == "HTTP 404"
    assert e.value.message == f"LLM endpoint {wrong_prefix} answered 404 to GET /models"


def test_an_owner_closes_its_endpoint_on_exit(url: str) -> None:
    class Owner(ChatEndpointOwner):
        def __init__(self) -> None:
            self.endpoint = ChatEndpoint(url, MODEL)

    with Owner() as owner:
        owner.endpoint.check()
    with pytest.raises(RuntimeError, match="closed"):
        owner.endpoint.check()


def test_a_replaced_transport_carries_the_requests() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": MODEL}]})
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    transport = httpx.MockTransport(handle)
    with ChatEndpoint("http://vllm.test/v1", MODEL, transport=transport) as endpoint:
        endpoint.check()
        response = endpoint.post(BODY)
    assert isinstance(response, httpx.Response)
    assert response.json()["choices"][0]["message"]["content"] == "ok"
    assert [r.url.path for r in seen] == ["/v1/models", "/v1/chat/completions"]
    assert json.loads(seen[1].content) == BODY
    assert "authorization" not in seen[1].headers


def test_without_thinking_merges_the_template_switch() -> None:
    body = without_thinking({**BODY, "chat_template_kwargs": {"add_generation_prompt": True}})
    assert body["chat_template_kwargs"] == {"add_generation_prompt": True, "enable_thinking": False}
    assert without_thinking(BODY) == {**BODY, **NO_THINKING} and "chat_template_kwargs" not in BODY


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('<think>\nmaybe {"a": 2}?\n</think>\n\n{"a": 1}', '{"a": 1}'),
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('<think>hm</think>```json\n{"a": 1}\n```\n', '{"a": 1}'),
        ("<think>cut off before the answer", ""),
        ("  Plain words.  ", "Plain words."),
        ('Here it is:\n```json\n{"a": 1}\n```', 'Here it is:\n```json\n{"a": 1}\n```'),
    ],
)
def test_strip_reasoning(text: str, answer: str) -> None:
    assert strip_reasoning(text) == answer
