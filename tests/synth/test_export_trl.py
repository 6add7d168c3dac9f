"""A real synth job's TRL export loads with ``datasets`` and trains with TRL's ``SFTTrainer``
as it stands, on a tiny model whose locally trained tokenizer's chat template renders tools."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("trl")

import datasets
from fastapi.testclient import TestClient

from services.synth.app import build_app
from services.synth.config import SynthSettings
from services.trainer.models import build_tiny
from services.trainer.tokenizer import corpus_texts


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The ``format=trl`` export of a 12-example job on the builtin catalog (every category)."""
    root = tmp_path_factory.mktemp("synth")
    settings = SynthSettings(data_dir=root / "data", database_url=f"sqlite:///{root / 'db'}")
    with TestClient(build_app(settings)) as client:
        job = client.post("/v1/synthesize", json={"n": 12, "seed": 4}).json()
        deadline = time.monotonic() + 120
        while client.get(f"/v1/jobs/{job['job_id']}").json()["status"] not in (
            "succeeded",
            "failed",
        ):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        body = client.get(f"/v1/jobs/{job['job_id']}/export?format=trl").text
    path = root / "export.jsonl"
    path.write_text(body)
    yield path


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_export_loads_with_datasets_unchanged(export: Path) -> None:
    rows = _rows(export)
    assert len(rows) == 12
    assert {row["meta"]["category"] for row in rows} >= {"simple", "parallel", "irrelevance"}
    loaded = datasets.load_dataset("json", data_files=str(export), split="train")
    for row, original in zip(loaded, rows, strict=True):
        assert row["messages"] == original["messages"]
        assert json.loads(row["tools"]) == json.loads(original["tools"])
    calls = [c for r in rows for m in r["messages"] for c in m.get("tool_calls", [])]
    assert calls and all(isinstance(c["function"]["arguments"], dict) for c in calls)


def test_sft_trainer_trains_on_the_export_as_is(export: Path, tmp_path: Path) -> None:
    from trl import SFTConfig, SFTTrainer

    rows = _rows(export)
    model, tokenizer = build_tiny(corpus_texts(rows), seed=0)
    call_row = next(r for r in rows if r["messages"][-1].get("tool_calls"))
    text = tokenizer.apply_chat_template(
        call_row["messages"], tools=json.loads(call_row["tools"]), tokenize=False
    )
    call = call_row["messages"][-1]["tool_calls"][0]["function"]
    assert json.dumps(call["arguments"]) in text  # an object in the text, not a quoted string
    assert json.loads(call_row["tools"])[0]["function"]["name"] in text

    train = datasets.load_dataset("json", data_files=str(export), split="train")
    config = SFTConfig(
        output_dir=str(tmp_path),
        max_steps=3,
        per_device_train_batch_size=4,
        learning_rate=1e-3,
        assistant_only_loss=True,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        seed=0,
    )
    trainer = SFTTrainer(model=model, args=config, train_dataset=train, processing_class=tokenizer)
    labels = trainer.train_dataset[0]["labels"]  # loss on the assistant turn only
    assert -100 in labels and any(label != -100 for label in labels)
    result = trainer.train()
    assert result.global_step == 3 and math.isfinite(result.training_loss)


def test_trainer_tool_sft_builder_keeps_every_exported_row(export: Path) -> None:
    from services.trainer.datasets import build_tool_sft

    rows = _rows(export)
    built, stats = build_tool_sft(rows)
    assert stats["rows"] == len(rows) and stats["examples"]["skipped"] == {}
    for row, original in zip(built, rows, strict=True):
        assert row["tools"] == json.loads(original["tools"])
        calls = [m.get("tool_calls") for m in original["messages"]]
        assert [m.get("tool_calls") for m in row["messages"]] == calls
