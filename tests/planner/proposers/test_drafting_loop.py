"""``options.draft`` and the plan's ``draft``: which first cut a branch starts from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_openai import FakeOpenAI, serve

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(scope="module")
def fake_url() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI()
    with serve(fake.app) as url:
        yield fake, url


@pytest.fixture
def planner(tmp_path: Path, database_url: str, fake_url) -> Iterator[TestClient]:
    fake, url = fake_url
    fake.reset()
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(
        data_dir=tmp_path,
        database_url=database_url,
        media_root=tmp_path,
        llm_base_url=url,
        llm_model="fake-planner",
    )
    with TestClient(build_app(settings, verifier=verifier)) as client:
        yield client


def _plan(client: TestClient, **options: object) -> dict:
    task = json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())
    body = {"task": task, "options": {"max_rounds": 1, "candidates": 2, **options}}
    return client.post("/v1/plan", json=body).json()


def test_a_model_proposer_writes_its_own_first_cut(planner, fake_url) -> None:
    plan = _plan(planner, proposer="llm")
    assert plan["draft"] == "model" and plan["branches"][0]["draft"] == "model"
    first = fake_url[0].requests[0]
    assert first["response_format"]["json_schema"]["name"] == "Timeline"
    stats = plan["branches"][0]["stats"]
    assert stats["draft_answers"] >= 1 and stats["draft_parsed"] == stats["draft_answers"]
    assert stats["answers"] == stats["parsed"] == stats["candidates"] - stats["dropped"]


def test_the_heuristic_draft_runs_only_when_asked(planner, fake_url) -> None:
    plan = _plan(planner, proposer="llm", draft="heuristic")
    assert plan["draft"] == "heuristic"
    names = [r["response_format"]["json_schema"]["name"] for r in fake_url[0].requests]
    assert "Timeline" not in names and plan["branches"][0]["stats"]["draft_answers"] == 0


def test_search_keeps_its_heuristic_draft_and_says_so(planner) -> None:
    plan = _plan(planner)
    assert plan["draft"] == "heuristic" and plan["branches"][0]["draft"] == "heuristic"


def test_a_model_draft_from_a_proposer_without_a_model_is_a_422(planner) -> None:
    answer = planner.post(
        "/v1/plan",
        json={
            "task": json.loads((EXAMPLES / "surf-reel" / "task.json").read_text()),
            "options": {"draft": "model"},
        },
    )
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["param"] == "options.draft" and "search" in error["message"]


def test_an_unknown_draft_is_a_422_naming_the_option(planner) -> None:
    answer = planner.post(
        "/v1/plan",
        json={
            "task": json.loads((EXAMPLES / "surf-reel" / "task.json").read_text()),
            "options": {"draft": "simple"},
        },
    )
    assert answer.status_code == 422 and "draft" in answer.json()["error"]["param"]


def test_a_given_timeline_is_the_first_cut(planner) -> None:
    task = json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())
    first = _plan(planner)
    body = {"task": task, "timeline": first["timeline"], "options": {"max_rounds": 1}}
    plan = planner.post("/v1/plan", json=body).json()
    assert plan["draft"] == "given"
