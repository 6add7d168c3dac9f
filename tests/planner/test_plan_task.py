"""``GET /v1/plans/{id}/task`` and ``PlannerClient.get_task``: the stored Task.1 of a plan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from clients import AsyncPlannerClient, NotFoundError, PlannerClient
from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def planner(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(data_dir=tmp_path, database_url=database_url, media_root=tmp_path)
    with TestClient(build_app(settings, verifier=verifier)) as client:
        yield client


def _task() -> dict:
    return json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())


def test_the_stored_task_comes_back_for_a_plan_and_its_records(planner: TestClient) -> None:
    task = _task()
    plan = planner.post("/v1/plan", json={"task": task, "options": {"max_rounds": 2}}).json()
    answer = planner.get(f"/v1/plans/{plan['plan_id']}/task")
    assert answer.status_code == 200
    stored = answer.json()
    assert stored["id"] == task["id"] == plan["task_id"]
    assert stored["schema"] == "Task.1"
    assert [c["id"] for c in stored["clips"]] == [c["id"] for c in task["clips"]]
    assert [rule["id"] for rule in stored["ledger"]] == [rule["id"] for rule in task["ledger"]]
    with PlannerClient(http_client=planner) as client:
        assert client.get_task(plan["plan_id"]) == stored
        records = client.records(after=0).records
    assert {r["plan_id"] for r in records} <= {plan["plan_id"]}


def test_an_unknown_plan_is_a_404(planner: TestClient) -> None:
    answer = planner.get("/v1/plans/plan-nope/task")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "plan_not_found"
    with PlannerClient(http_client=planner) as client, pytest.raises(NotFoundError):
        client.get_task("plan-nope")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_async_client_reads_the_task(planner: TestClient) -> None:
    plan_id = planner.post("/v1/plan", json={"task": _task()}).json()["plan_id"]
    transport = httpx.ASGITransport(app=planner.app)
    async with AsyncPlannerClient("http://planner", transport=transport) as client:
        task = await client.get_task(plan_id)
    assert task["id"] == _task()["id"]
