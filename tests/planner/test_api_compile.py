"""``POST /v1/tasks:compile`` and ledger-less ``POST /v1/plan``, in process, with a real
verifier behind every verdict and a fake chat endpoint for the ``llm`` compiler."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_brief_llm import FakeBriefLLM
from tests.planner.fake_openai import closed_port_url, serve
from tests.planner.ingest.pools import ONE_TRACK, SURF, WEDDING

BRIEF = "20 seconds, open on the venue, the vows and the rings, end on the kiss, for grandma"
MODEL = "fake-compiler"


def _client(tmp_path: Path, database_url: str, **settings) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    config = PlannerSettings(
        data_dir=tmp_path / "data", database_url=database_url, media_root=tmp_path, **settings
    )
    with TestClient(build_app(config, verifier=verifier)) as client:
        yield client


@pytest.fixture
def planner(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    yield from _client(tmp_path, database_url)


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[tuple[FakeBriefLLM, str]]:
    fake = FakeBriefLLM(models=(MODEL,))
    with serve(fake.app) as url:
        yield fake, url


def _body(text: str = BRIEF, **extra) -> dict:
    return {"brief": {"text": text}, "clips": WEDDING, "music": ONE_TRACK, **extra}


def test_compile_answers_a_task_with_its_ledger_and_provenance(planner: TestClient) -> None:
    answer = planner.post("/v1/tasks:compile", json=_body(id="t-grandma"))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    task = body["task"]
    assert task["schema"] == "Task.1" and task["id"] == "t-grandma"
    kinds = [e["kind"] for e in task["ledger"]]
    assert kinds.count("order") == 2 and kinds.count("must_include") == 2
    assert {p["constraint_id"] for p in body["provenance"]} == {e["id"] for e in task["ledger"]}
    assert [u["text"] for u in body["unparsed"]] == ["grandma"]
    assert body["conflicts"] == [] and body["compiler"] == "rules"
    verified = planner.post("/v1/plan", json={"task": task, "options": {"seed": 0}})
    assert verified.status_code == 200 and verified.json()["feasible"] is True


def test_compile_names_contradictions(planner: TestClient) -> None:
    answer = planner.post("/v1/tasks:compile", json=_body("30 seconds, under 20 seconds"))
    conflicts = answer.json()["conflicts"]
    assert len(conflicts) == 1 and [s["text"] for s in conflicts[0]["spans"]] == [
        "30 seconds",
        "under 20 seconds",
    ]


def test_an_aspect_given_is_honoured_and_kept(planner: TestClient) -> None:
    body = {"brief": {"text": "15 seconds", "aspect": "9:16"}, "clips": SURF, "music": ONE_TRACK}
    answer = planner.post("/v1/tasks:compile", json=body).json()
    assert answer["task"]["brief"]["aspect"] == "9:16"
    sources = {p["source"] for p in answer["provenance"]}
    assert "aspect" in sources


@pytest.mark.parametrize("text", ["", "   \n "])
def test_an_empty_brief_is_a_422_naming_brief_text(planner: TestClient, text: str) -> None:
    answer = planner.post("/v1/tasks:compile", json=_body(text))
    assert answer.status_code == 422
    assert answer.json()["error"]["param"] == "brief.text"


def test_an_unknown_compiler_is_a_422(planner: TestClient) -> None:
    answer = planner.post("/v1/tasks:compile", json=_body(compiler="oracle"))
    assert answer.status_code == 422 and answer.json()["error"]["param"] == "compiler"


def test_llm_without_an_endpoint_is_a_422_naming_the_setting(planner: TestClient) -> None:
    answer = planner.post("/v1/tasks:compile", json=_body(compiler="llm"))
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["param"] == "compiler" and "REFINERY_LLM_BASE_URL" in error["message"]


def test_llm_compiles_through_the_endpoint(
    tmp_path: Path, database_url: str, fake_llm: tuple[FakeBriefLLM, str]
) -> None:
    fake, url = fake_llm
    fake.reset()
    text = "20 seconds, end on the kiss"
    fake.answer = {
        "ledger": [
            {"id": "L1", "kind": "duration", "hard": True, "min_s": 18, "max_s": 22},
            {"id": "L2", "kind": "order", "hard": True, "last": {"tags": ["kiss"]}},
        ],
        "provenance": [
            {"constraint_id": "L1", "start": 0, "end": 10, "text": "20 seconds"},
            {"constraint_id": "L2", "start": 12, "end": 27, "text": "end on the kiss!"},
        ],
    }
    for client in _client(tmp_path, database_url, llm_base_url=url, llm_model=MODEL):
        answer = client.post("/v1/tasks:compile", json=_body(text, compiler="llm"))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert [e["id"] for e in body["task"]["ledger"]] == ["L1"]
        assert body["compiler"] == "llm" and len(body["rejected"]) == 2
        assert fake.requests[0]["response_format"]["type"] == "json_schema"


def test_llm_endpoint_down_is_a_503(tmp_path: Path, database_url: str) -> None:
    settings = {"llm_base_url": closed_port_url(), "llm_model": MODEL}
    for client in _client(tmp_path, database_url, **settings):
        answer = client.post("/v1/tasks:compile", json=_body(compiler="llm"))
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "llm_unavailable"


def _task(**extra) -> dict:
    return {
        "id": "t-ledgerless",
        "brief": {"text": BRIEF},
        "clips": WEDDING,
        "music": ONE_TRACK,
        **extra,
    }


def test_plan_compiles_a_task_without_a_ledger(planner: TestClient) -> None:
    answer = planner.post("/v1/plan", json={"task": _task(), "options": {"seed": 0}})
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    compiled = plan["compiled"]
    assert [e["kind"] for e in compiled["ledger"]].count("order") == 2
    assert [u["text"] for u in compiled["unparsed"]] == ["grandma"]
    assert len(plan["report"]["constraints"]) == len(compiled["ledger"])
    assert plan["feasible"] is True
    stored = planner.get(f"/v1/plans/{plan['plan_id']}/task").json()
    assert stored["ledger"] == compiled["ledger"]


def test_plan_with_an_empty_ledger_compiles_nothing(planner: TestClient) -> None:
    answer = planner.post("/v1/plan", json={"task": _task(ledger=[]), "options": {"seed": 0}})
    plan = answer.json()
    assert plan["compiled"] is None and plan["report"]["constraints"] == []
