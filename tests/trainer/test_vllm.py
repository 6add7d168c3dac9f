"""Publishing a LoRA run loads its adapter into vLLM (an in-process fake of its API), and the
planner then plans with it as ``llm:<model id>``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.trainer.vllm import VLLMError, adapter_path_for_vllm, load_lora_adapter
from tests.planner.fake_openai import FakeOpenAI, closed_port_url, serve
from tests.trainer.trainer_apps import example, plan_repairs, planner_app, trainer_app

BASE_MODEL = "refinery-planner-8b"


@pytest.fixture
def vllm() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI(models=(BASE_MODEL,))
    with serve(fake.app) as url:
        yield fake, url


def _adapter(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text("{}")
    return folder


def test_loading_an_adapter(vllm, tmp_path: Path) -> None:
    fake, url = vllm
    adapter = str(_adapter(tmp_path / "a"))
    load_lora_adapter(url, "lora-a", adapter)
    load_lora_adapter(url, "lora-a", adapter)  # already loaded: fine
    assert fake.loaded == {"lora-a": adapter} and "lora-a" in fake.models
    with pytest.raises(VLLMError) as refused:
        load_lora_adapter(url, "lora-b", str(tmp_path / "missing"))
    assert refused.value.status_code == 502 and "HTTP 400" in refused.value.message
    with pytest.raises(VLLMError, match="unreachable"):
        load_lora_adapter(closed_port_url(), "lora-c", adapter)


def test_adapter_paths_follow_vllm_mount(tmp_path: Path) -> None:
    inside = tmp_path / "models" / "m1" / "final" / "adapter"
    assert adapter_path_for_vllm(inside, tmp_path, None) == str(inside)
    assert adapter_path_for_vllm(inside, tmp_path, Path("/data/trainer")) == (
        "/data/trainer/models/m1/final/adapter"
    )
    assert adapter_path_for_vllm(Path("/elsewhere"), tmp_path, Path("/d")) == "/elsewhere"


def _wait(trainer, job_id: str) -> dict:
    deadline = time.monotonic() + 180
    while (job := trainer.get(f"/v1/jobs/{job_id}").json())["status"] in {"queued", "running"}:
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    return job


def test_a_published_lora_is_served_by_vllm_and_plans(
    vllm, tmp_path: Path, database_url: str
) -> None:
    fake, url = vllm
    with planner_app(tmp_path, database_url, llm_base_url=url, llm_model=BASE_MODEL) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner, vllm_url=url) as trainer:
            build = {"kind": "repair_sft", "sources": [{"service": "planner"}]}
            data = trainer.post("/v1/datasets:build", json=build).json()["dataset_id"]
            hyper = {"max_steps": 1, "batch_size": 2, "max_length": 2048, "lora": {"r": 4}}
            queued = trainer.post("/v1/train", json={"kind": "sft", "data": data, "hyper": hyper})
            job = _wait(trainer, queued.json()["job_id"])
            assert job["status"] == "succeeded", job
            model_id = job["result"]["model_id"]
            published = trainer.post(f"/v1/models/{model_id}/publish")
            assert published.status_code == 200, published.text
            assert published.json()["llm_proposer"] == f"llm:{model_id}"
        assert Path(fake.loaded[model_id]).name == "adapter"
        assert Path(fake.loaded[model_id], "adapter_config.json").is_file()
        task, timeline = example("surf-reel")
        options = {"proposer": f"llm:{model_id}", "max_rounds": 1}
        body = {"task": task, "timeline": timeline, "options": options}
        plan = planner.post("/v1/plan", json=body)
        assert plan.status_code == 200, plan.text
        assert {r["model"] for r in fake.requests} == {model_id}


def test_a_vllm_refusal_publishes_nothing(vllm, tmp_path: Path, database_url: str) -> None:
    with trainer_app(tmp_path, database_url, vllm_url=closed_port_url()) as trainer:
        store = trainer.app.state.store
        from services.trainer.store import ModelRow

        final = tmp_path / "m" / "final"
        _adapter(final / "adapter")
        (final / "config.json").write_text("{}")
        store.add(
            ModelRow(id="m-1", kind="sft", base="tiny", dataset_id="d", job_id="j", path=str(final))
        )
        answer = trainer.post("/v1/models/m-1/publish")
        assert answer.status_code == 502 and answer.json()["error"]["code"] == "vllm_error"
        assert trainer.get("/v1/models/m-1").json()["published_as"] is None
