"""PlannerClient / AsyncPlannerClient and `refinery plan` against real planner apps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from clients import AsyncPlannerClient, PlannerClient, UnavailableError, UnprocessableEntityError
from clients.cli import app as cli
from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_openai import closed_port_url
from tests.servers import serve_in_thread

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _task(name: str = "surf-reel") -> dict:
    return json.loads((EXAMPLES / name / "task.json").read_text())


@pytest.fixture
def planner_app(tmp_path: Path, database_url: str):
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(data_dir=tmp_path, database_url=database_url, media_root=tmp_path)
    return build_app(settings, verifier=verifier)


@pytest.fixture
def planner(planner_app) -> Iterator[PlannerClient]:
    with TestClient(planner_app) as http, PlannerClient(http_client=http) as client:
        yield client


def test_plan_get_and_records(planner: PlannerClient) -> None:
    plan = planner.plan(_task(), seed=1, max_rounds=4)
    assert plan.feasible and plan.plan_id.startswith("plan-")
    assert planner.get_plan(plan.plan_id) == plan
    page = planner.records(after=0, limit=2)
    assert len(page.records) <= 2
    if page.records:
        assert page.next_cursor == page.records[-1]["record_id"]
    assert [p.name for p in planner.proposers()][:3] == ["search", "exact", "llm"]
    assert planner.health()


def test_errors_map_to_typed_exceptions(planner: PlannerClient) -> None:
    with pytest.raises(UnprocessableEntityError) as caught:
        planner.plan(_task(), proposer="nope")
    assert caught.value.param == "options.proposer"
    assert caught.value.code == "unknown_proposer"


def test_plan_with_on_event_hears_each_round_and_returns_the_plan(planner: PlannerClient) -> None:
    events: list[dict] = []
    plan = planner.plan(_task("city-night"), seed=3, on_event=events.append)
    assert [e["event"] for e in events] == ["draft"] + ["round"] * len(plan.rounds)
    assert events[0]["ves"] == plan.draft_ves
    assert [e["ves_after"] for e in events[1:]] == [r.ves_after for r in plan.rounds]
    assert planner.get_plan(plan.plan_id) == plan
    with pytest.raises(UnprocessableEntityError) as caught:
        planner.plan(_task(), proposer="nope", on_event=events.append)
    assert caught.value.param == "options.proposer"


def test_a_failure_mid_stream_raises_its_typed_error(tmp_path: Path, database_url: str) -> None:
    down = VerifierClient(closed_port_url().removesuffix("/v1"), max_retries=0)
    settings = PlannerSettings(data_dir=tmp_path, database_url=database_url, media_root=tmp_path)
    app = build_app(settings, verifier=down)
    with (
        TestClient(app) as http,
        PlannerClient(http_client=http, max_retries=0) as client,
        pytest.raises(UnavailableError) as caught,
    ):
        client.plan(_task(), on_event=lambda event: None)
    assert caught.value.code == "planning_failed" and caught.value.status_code == 503


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_async_client(planner_app) -> None:
    with TestClient(planner_app):  # runs the lifespan: tables, render worker
        transport = httpx.ASGITransport(app=planner_app)
        async with AsyncPlannerClient("http://planner", transport=transport) as client:
            plan = await client.plan(_task("cooking-short"))
            assert (await client.get_plan(plan.plan_id)).ves == plan.ves
            events: list[dict] = []
            streamed = await client.plan(_task("cooking-short"), on_event=events.append)
            assert streamed.timeline == plan.timeline
            assert [e["event"] for e in events] == ["draft"] + ["round"] * len(plan.rounds)
            assert (await client.records(after=0, limit=1)).next_cursor >= 0


def test_refinery_plan_prints_rounds_and_writes_otio(planner_app, tmp_path: Path) -> None:
    with serve_in_thread(planner_app) as url:
        out = tmp_path / "cut.otio"
        result = CliRunner().invoke(
            cli,
            [
                "plan",
                str(EXAMPLES / "surf-reel" / "task.json"),
                "--url",
                url,
                "--otio",
                str(out),
                "--media-url-base",
                "/Volumes/Reel",
                "--patience",
                "2",
            ],
        )
    assert result.exit_code == 0, result.output
    assert "rounds" in result.output and "VES" in result.output
    assert "upper bound" in result.output and "below the best cut" in result.output
    assert out.read_text().startswith("{") and "OTIO_SCHEMA" in out.read_text()
    assert '"target_url": "file:///Volumes/Reel/media/surf-reel/' in out.read_text()


def test_refinery_plan_without_a_planner_says_how_to_start_one(free_port: int) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "plan",
            str(EXAMPLES / "surf-reel" / "task.json"),
            "--url",
            f"http://127.0.0.1:{free_port}",
        ],
    )
    assert result.exit_code == 2
    assert "start it with `refinery up`" in " ".join(result.output.split())


def test_refinery_plan_refuses_a_patience_below_one() -> None:
    task = str(EXAMPLES / "surf-reel" / "task.json")
    result = CliRunner().invoke(cli, ["plan", task, "--patience", "0"])
    assert result.exit_code == 2
    assert "--patience" in result.output


def test_compile_task_sync_and_async(planner_app, planner: PlannerClient) -> None:
    import asyncio

    task = _task()
    text = "20 seconds, open on the ocean, no clip twice"
    compiled = planner.compile_task(text, task["clips"], task["music"], task_id="t-1")
    assert compiled.task["id"] == "t-1" and compiled.compiler == "rules"
    kinds = {entry["kind"] for entry in compiled.task["ledger"]}
    assert {"duration", "no_reuse"} <= kinds
    assert {p.constraint_id for p in compiled.provenance} == {
        e["id"] for e in compiled.task["ledger"]
    }
    with pytest.raises(UnprocessableEntityError) as caught:
        planner.compile_task("  ", task["clips"])
    assert caught.value.param == "brief.text"
    with pytest.raises(UnprocessableEntityError) as unavailable:
        planner.compile_task(text, task["clips"], compiler="llm")
    assert unavailable.value.param == "compiler"

    async def compile_async() -> None:
        transport = httpx.ASGITransport(app=planner_app)
        async with AsyncPlannerClient("http://planner", transport=transport) as client:
            again = await client.compile_task(text, task["clips"], task["music"], task_id="t-1")
            assert again.task == compiled.task

    asyncio.run(compile_async())


def test_a_task_model_without_a_ledger_is_compiled_by_the_planner(planner: PlannerClient) -> None:
    from protocol.verifier import TaskIn

    task = {k: v for k, v in _task().items() if k != "ledger"}
    task["brief"] = {**task["brief"], "text": "20 seconds, no clip twice"}
    plan = planner.plan(TaskIn.model_validate(task), seed=0, max_rounds=2)
    assert plan.compiled is not None
    assert {e["kind"] for e in plan.compiled.ledger} >= {"duration", "no_reuse"}
