"""Evaluating an OpenAI-compatible endpoint on BFCL, judged by bfcl-eval's checker."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from services.synth.bfcl.data import AST_CATEGORIES
from services.synth.bfcl.evaluate import EndpointUnavailableError, EvaluationError, evaluate
from tests.planner.fake_openai import closed_port_url, serve
from tests.synth.bfcl.bfcl_fake import FakeBfclEndpoint

LIMIT = 12


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeBfclEndpoint]:
    yield FakeBfclEndpoint()


@pytest.fixture(scope="module")
def base_url(fake: FakeBfclEndpoint) -> Iterator[str]:
    with serve(fake.app) as url:
        yield url


@pytest.fixture
def client(base_url: str, fake: FakeBfclEndpoint) -> Iterator[httpx.Client]:
    fake.mode = "truth"
    fake.requests.clear()
    with httpx.Client(base_url=base_url, timeout=10) as http:
        yield http


def test_ground_truth_answers_score_one(client: httpx.Client, fake: FakeBfclEndpoint) -> None:
    report = evaluate(client, "fake-fc", limit=LIMIT)
    assert set(report["categories"]) == set(AST_CATEGORIES)
    for entry in report["categories"].values():
        assert entry["total"] == LIMIT
        assert entry["accuracy"] == 1.0
        assert entry["errors"] == entry["no_calls"] == entry["undecodable"] == 0
    assert report["overall"]["correct"] == 4 * LIMIT
    assert report["overall"]["category_mean"] == 1.0
    assert len(fake.requests) == 4 * LIMIT
    tools = fake.requests[-1]["tools"]
    assert all("." not in tool["function"]["name"] for tool in tools)
    assert tools[0]["function"]["description"].endswith("Python 3 syntax.")


def test_wrong_answers_score_zero(client: httpx.Client, fake: FakeBfclEndpoint) -> None:
    fake.mode = "wrong"
    report = evaluate(client, "fake-fc", categories=("simple", "parallel_multiple"), limit=LIMIT)
    assert [e["accuracy"] for e in report["categories"].values()] == [0.0, 0.0]
    assert report["overall"]["total"] == 2 * LIMIT
    assert report["overall"]["errors"] == 0


def test_endpoint_errors_count_as_wrong(client: httpx.Client, fake: FakeBfclEndpoint) -> None:
    fake.mode = "flaky"
    entry = evaluate(client, "fake-fc", categories=["multiple"], limit=10)["categories"]["multiple"]
    assert entry == {
        "total": 10,
        "correct": 5,
        "errors": 5,
        "no_calls": 0,
        "undecodable": 0,
        "accuracy": 0.5,
    }
    unknown_model = evaluate(client, "other-model", categories=["simple"], limit=3)
    assert unknown_model["categories"]["simple"]["errors"] == 3


@pytest.mark.parametrize(("mode", "field"), [("no_calls", "no_calls"), ("garbage", "undecodable")])
def test_bad_answers_are_counted(
    client: httpx.Client, fake: FakeBfclEndpoint, mode: str, field: str
) -> None:
    fake.mode = mode  # type: ignore[assignment]
    entry = evaluate(client, "fake-fc", categories=["parallel"], limit=4)["categories"]["parallel"]
    assert entry[field] == 4
    assert entry["accuracy"] == 0.0


def test_unreachable_endpoint_raises_unavailable() -> None:
    with (
        httpx.Client(base_url=closed_port_url(), timeout=2) as http,
        pytest.raises(EndpointUnavailableError) as raised,
    ):
        evaluate(http, "fake-fc", limit=1)
    assert raised.value.status_code == 503
    assert raised.value.param == "base_url"


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"categories": ["live_simple"]}, "categories"),
        ({"categories": []}, "categories"),
        ({"limit": 0}, "limit"),
    ],
)
def test_bad_requests_are_typed(client: httpx.Client, kwargs: dict, param: str) -> None:
    with pytest.raises(EvaluationError) as raised:
        evaluate(client, "fake-fc", **kwargs)
    assert raised.value.param == param
    assert raised.value.status_code == 422
