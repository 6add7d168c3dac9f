"""``POST /v1/plan`` as NDJSON: drafts and rounds as they end, then the plan or its error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.planner.records import PlanRow, ScoredRecord
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_openai import FakeOpenAI, closed_port_url, serve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NDJSON = {"Accept": "application/x-ndjson"}


def _task(name: str) -> dict:
    return json.loads((EXAMPLES / name / "task.json").read_text())


def _planner(tmp_path: Path, database_url: str, verifier: VerifierClient) -> Iterator[TestClient]:
    settings = PlannerSettings(data_dir=tmp_path, database_url=database_url, media_root=tmp_path)
    with TestClient(build_app(settings, verifier=verifier)) as client:
        yield client


@pytest.fixture
def planner(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    yield from _planner(tmp_path, database_url, verifier)


def _count(client: TestClient, table) -> int:
    with Session(client.app.state.engine) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def _events(answer) -> list[dict]:
    return [json.loads(line) for line in answer.text.splitlines() if line.strip()]


def test_the_stream_tells_the_draft_and_each_round_then_the_stored_plan(
    planner: TestClient,
) -> None:
    body = {"task": _task("city-night"), "options": {"seed": 3}}
    answer = planner.post("/v1/plan", json=body, headers=NDJSON)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    events = _events(answer)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "draft" and kinds[-1] == "plan"
    assert set(kinds[1:-1]) <= {"round"}
    plan = events[-1]["plan"]
    draft = events[0]
    assert (draft["branch"], draft["proposer"], draft["ves"]) == (0, "search", plan["draft_ves"])
    rounds = [{k: v for k, v in e.items() if k not in ("event", "branch")} for e in events[1:-1]]
    assert rounds == plan["rounds"] and rounds, "the example takes at least one round"
    assert planner.get(f"/v1/plans/{plan['plan_id']}").json() == plan
    unstreamed = planner.post("/v1/plan", json=body).json()
    assert unstreamed["timeline"] == plan["timeline"] and unstreamed["rounds"] == plan["rounds"]


def test_each_branch_is_told_in_turn(tmp_path: Path, database_url: str) -> None:
    fake = FakeOpenAI(models=("fake-planner",))
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(
        data_dir=tmp_path,
        database_url=database_url,
        media_root=tmp_path,
        llm_model="fake-planner",
    )
    with serve(fake.app) as url:
        settings = settings.model_copy(update={"llm_base_url": url})
        with TestClient(build_app(settings, verifier=verifier)) as planner:
            body = {
                "task": _task("city-night"),
                "options": {"teachers": ["llm"], "max_rounds": 3},
            }
            events = _events(planner.post("/v1/plan", json=body, headers=NDJSON))
    plan = events[-1]["plan"]
    branches = [e["branch"] for e in events[:-1]]
    assert branches == sorted(branches) and set(branches) == {0, 1}
    for index, branch in enumerate(plan["branches"]):
        told = [e for e in events[:-1] if e["branch"] == index]
        assert told[0] == {
            "event": "draft",
            "branch": index,
            "proposer": branch["proposer"],
            "draft": branch["draft"],
            "ves": told[0]["ves"],
            "feasible": told[0]["feasible"],
        }
        assert len(told) - 1 == branch["rounds"]


def test_bad_input_is_refused_before_the_stream_opens(planner: TestClient) -> None:
    body = {"task": _task("surf-reel"), "options": {"proposer": "nope"}}
    answer = planner.post("/v1/plan", json=body, headers=NDJSON)
    assert answer.status_code == 422
    assert answer.json()["error"]["param"] == "options.proposer"
    missing = planner.post("/v1/plan", json={"options": {}}, headers=NDJSON)
    assert missing.status_code == 422 and missing.json()["error"]["param"] == "task"
    assert _count(planner, PlanRow) == 0


def test_a_failure_mid_plan_is_the_last_line_and_writes_nothing(
    tmp_path: Path, database_url: str
) -> None:
    down = VerifierClient(closed_port_url().removesuffix("/v1"), max_retries=0)
    for planner in _planner(tmp_path, database_url, down):
        body = {"task": _task("surf-reel")}
        answer = planner.post("/v1/plan", json=body, headers=NDJSON)
        assert answer.status_code == 200  # the stream had opened
        last = _events(answer)[-1]
        assert last["event"] == "error" and last["status"] == 503
        assert last["error"]["code"] == "planning_failed"
        assert "could not reach" in last["error"]["message"]
        plain = planner.post("/v1/plan", json=body)
        assert plain.status_code == 503 and plain.json()["error"] == last["error"]
        assert _count(planner, PlanRow) == 0 and _count(planner, ScoredRecord) == 0
