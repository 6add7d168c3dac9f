"""``POST /v1/evaluate`` and its upstreams: the allow-list, and where the LLM key may go.

Two real uvicorn fakes of an OpenAI endpoint, each behind a :class:`Recorder` that notes every
request (any path) with its Authorization header: ``configured`` is ``REFINERY_LLM_BASE_URL``,
``other`` is a second endpoint a caller names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.servers import Recorder
from tests.synth.fake_openai_tools import FakeToolsOpenAI, serve

MODEL = "fake-synth"
KEY = "llm-secret-key"


@pytest.fixture(scope="module")
def endpoints() -> Iterator[dict[str, tuple[Recorder, str]]]:
    configured = Recorder(FakeToolsOpenAI(models=(MODEL,)).app)
    other = Recorder(FakeToolsOpenAI(models=(MODEL,)).app)
    with serve(configured) as first, serve(other) as second:
        yield {"configured": (configured, first), "other": (other, second)}


def _synth(tmp_path: Path, database_url: str, **settings: Any) -> TestClient:
    config = SynthSettings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        log_level="WARNING",
        llm_max_retries=0,
        **settings,
    )
    return TestClient(build_app(config))


def _evaluate(client: TestClient, **body: Any) -> Any:
    return client.post("/v1/evaluate", json={"categories": ["simple"], "limit": 1, **body})


def test_an_unlisted_base_url_is_refused_before_any_request(
    tmp_path: Path, database_url: str, endpoints: dict[str, tuple[Recorder, str]]
) -> None:
    (configured, url), (other, other_url) = endpoints["configured"], endpoints["other"]
    configured.seen.clear()
    other.seen.clear()
    settings = {"llm_base_url": url, "llm_model": MODEL, "llm_api_key": KEY}
    with _synth(tmp_path, database_url, **settings) as client:
        answer = _evaluate(client, base_url=other_url)
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["code"] == "upstream_not_allowed" and error["param"] == "base_url"
        assert "REFINERY_ALLOWED_UPSTREAMS" in error["message"]
        same_host_other_path = url.rsplit("/v1", 1)[0] + "/admin"
        assert _evaluate(client, base_url=same_host_other_path).status_code == 422
    assert other.seen == [] and configured.seen == []


def test_the_llm_key_goes_to_the_configured_endpoint_only(
    tmp_path: Path, database_url: str, endpoints: dict[str, tuple[Recorder, str]]
) -> None:
    (configured, url), (other, other_url) = endpoints["configured"], endpoints["other"]
    configured.seen.clear()
    other.seen.clear()
    settings = {
        "llm_base_url": url,
        "llm_model": MODEL,
        "llm_api_key": KEY,
        "allowed_upstreams": [other_url],
    }
    with _synth(tmp_path, database_url, **settings) as client:
        assert _evaluate(client).status_code == 200
        assert _evaluate(client, base_url=url + "/").status_code == 200
        named = _evaluate(client, base_url=other_url, model=MODEL)
        assert named.status_code == 200, named.text
        assert named.json()["base_url"] == other_url
    assert configured.authorizations == [f"Bearer {KEY}"] * 2
    assert other.seen and other.authorizations == [None] * len(other.seen)


@pytest.mark.parametrize(
    ("base_url", "reason"),
    [
        ("http://127.0.0.1:1/v1\x00", "control"),
        ("http://exa mple.com/v1", "control"),
        ("ftp://127.0.0.1/v1", "http"),
        ("http://127.0.0.1:99999/v1", "port"),
        ("http:///v1", "host"),
        ("http://user:pw@127.0.0.1/v1", "credentials"),
        ("http://127.0.0.1/" + "a" * 3000, "2048"),
    ],
)
def test_a_malformed_base_url_is_a_422_naming_it(
    tmp_path: Path, database_url: str, base_url: str, reason: str
) -> None:
    with _synth(tmp_path, database_url) as client:
        answer = _evaluate(client, base_url=base_url)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["param"] == "base_url"


def test_evaluate_numbers_are_strict_and_bounded(tmp_path: Path, database_url: str) -> None:
    with _synth(tmp_path, database_url) as client:
        for body, param in [
            ({"limit": False}, "limit"),
            ({"limit": 10**7}, "limit"),
            ({"timeout_s": True}, "timeout_s"),
            ({"timeout_s": 601}, "timeout_s"),
            ({"categories": ["simple"] * 17}, "categories"),
        ]:
            answer = _evaluate(client, **body)
            assert answer.status_code == 422, (body, answer.text)
            assert answer.json()["error"]["param"] == param
        unconfigured = _evaluate(client, timeout_s=5)  # an int is a valid float
        assert unconfigured.json()["error"]["code"] == "llm_not_configured"
