"""SFT runner on a tiny local model: learning, determinism, cancellation, checkpoints."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytest.importorskip("trl")

from services.common.base_models import Materialized
from services.planner.proposers.hf import HFProposer
from services.trainer.configs import SFTHyper, TrainerInputError, hyper_from_dict
from services.trainer.runners.common import Progress, latest_checkpoint
from services.trainer.runners.sft import run_sft
from tests.trainer.runners.toy import sft_rows

FAST = SFTHyper(lr=3e-3, epochs=2, batch_size=8, max_length=96)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def tool_rows(n: int = 8) -> list[dict]:
    cities = ["Paris", "Rome", "Oslo", "Lima"]
    return [
        {
            "messages": [
                {"role": "user", "content": f"weather in {cities[i % 4]}?"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": {"city": cities[i % 4]},
                            },
                        }
                    ],
                },
            ],
            "tools": TOOLS,
            "meta": {"category": "simple"},
        }
        for i in range(n)
    ]


def test_loss_decreases_and_the_checkpoint_serves(tmp_path: Path) -> None:
    seen: list[Progress] = []
    metrics = run_sft(sft_rows(), "tiny", FAST, tmp_path, callback=seen.append)
    losses = [p.loss for p in seen]
    assert metrics["steps"] == len(seen) == 6 and seen[-1].total == 6
    assert sum(losses[-2:]) / 2 < sum(losses[:2]) / 2 - 0.5
    assert metrics["tokens"] > 0 and metrics["tokens_per_s"] > 0 and metrics["runtime_s"] > 0
    assert metrics["train_loss"] == pytest.approx(sum(losses) / len(losses))
    assert metrics["checkpoint"] == str(tmp_path / "final") == str(latest_checkpoint(tmp_path))
    proposer = HFProposer(metrics["checkpoint"], max_new_tokens=4)
    proposer.check()
    assert len(proposer.complete(sft_rows(1)[0]["prompt"], n=2, seed=0)) == 2


def test_same_seed_same_run(tmp_path: Path) -> None:
    hyper = SFTHyper(lr=3e-3, epochs=1, batch_size=8, max_length=96, max_steps=2)
    first = run_sft(sft_rows(), "tiny", hyper, tmp_path / "a")
    second = run_sft(sft_rows(), "tiny", hyper, tmp_path / "b")
    assert first["train_loss"] == second["train_loss"]


def test_cancel_keeps_the_last_step(tmp_path: Path) -> None:
    hyper = SFTHyper(
        lr=3e-3, epochs=3, batch_size=8, max_length=96, save_steps=1, keep_checkpoints=2
    )
    metrics = run_sft(sft_rows(), "tiny", hyper, tmp_path, callback=lambda p: p.step < 3)
    assert metrics["cancelled"] and metrics["steps"] == 3
    assert not (tmp_path / "final").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-2", "checkpoint-3"]
    HFProposer(str(latest_checkpoint(tmp_path))).check()


def test_a_raising_callback_stops_saves_and_reraises(tmp_path: Path) -> None:
    def stop(progress: Progress) -> None:
        if progress.step == 2:
            raise RuntimeError("job cancelled")

    with pytest.raises(RuntimeError, match="job cancelled"):
        run_sft(sft_rows(), "tiny", FAST, tmp_path, callback=stop)
    assert latest_checkpoint(tmp_path) == tmp_path / "checkpoint-2"


def test_a_killed_run_leaves_its_last_periodic_checkpoint(tmp_path: Path) -> None:
    def kill(progress: Progress) -> None:
        if progress.step == 3:
            raise KeyboardInterrupt  # not caught: stands in for the process dying

    hyper = SFTHyper(lr=3e-3, epochs=2, batch_size=8, max_length=96, save_steps=2)
    with pytest.raises(KeyboardInterrupt):
        run_sft(sft_rows(), "tiny", hyper, tmp_path, callback=kill)
    assert latest_checkpoint(tmp_path) == tmp_path / "checkpoint-2"
    HFProposer(str(tmp_path / "checkpoint-2")).check()


def test_tool_use_rows_train_on_the_calls(tmp_path: Path) -> None:
    hyper = SFTHyper(lr=3e-3, epochs=2, batch_size=4, max_length=256)
    seen: list[Progress] = []
    metrics = run_sft(tool_rows(), "tiny", hyper, tmp_path, callback=seen.append)
    assert metrics["steps"] == 4 and seen[-1].loss < seen[0].loss
    HFProposer(metrics["checkpoint"]).check()


def test_lora_run_publishes_a_merged_checkpoint(tmp_path: Path) -> None:
    hyper = hyper_from_dict(
        "sft", {"lr": 1e-2, "max_steps": 2, "batch_size": 8, "max_length": 96, "lora": {"r": 4}}
    )
    metrics = run_sft(sft_rows(), "tiny", hyper, tmp_path)
    final = Path(metrics["checkpoint"])
    assert (final / "adapter" / "adapter_config.json").is_file()
    HFProposer(str(final)).check()


@pytest.mark.real_model
def test_one_lora_step_on_the_real_base_trains_on_the_calls(
    real_base: Materialized, tmp_path: Path
) -> None:
    hyper = hyper_from_dict(
        "sft", {"max_steps": 1, "batch_size": 2, "max_length": 384, "lora": {"r": 4}}
    )
    metrics = run_sft(tool_rows(2), str(real_base.path), hyper, tmp_path)
    assert metrics["steps"] == 1 and math.isfinite(metrics["train_loss"])
    adapter = json.loads(Path(metrics["checkpoint"], "adapter", "adapter_config.json").read_text())
    assert set(adapter["target_modules"]) == {
        *("q_proj", "k_proj", "v_proj", "o_proj"),
        *("gate_proj", "up_proj", "down_proj"),
    }


@pytest.mark.parametrize(
    ("rows", "base", "code"),
    [
        ([{"prompt": "text", "completion": "text"}], "tiny", "bad_rows"),
        (sft_rows(2) + tool_rows(2), "tiny", "bad_rows"),
        (sft_rows(2), "/nonexistent/base", "unknown_base"),
        (sft_rows(2), "tiny:huge", "unknown_base"),
    ],
)
def test_bad_input_fails_before_training(tmp_path: Path, rows, base, code) -> None:
    with pytest.raises(TrainerInputError) as caught:
        run_sft(rows, base, FAST, tmp_path)
    assert caught.value.code == code and caught.value.status_code == 422
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_rows_that_cannot_fit_fail_before_training(tmp_path: Path) -> None:
    hyper = SFTHyper(max_length=8)
    with pytest.raises(TrainerInputError) as caught:
        run_sft(sft_rows(4), "tiny", hyper, tmp_path)
    assert caught.value.code == "sequence_too_long" and caught.value.param == "hyper.max_length"


def test_accumulated_passes_make_the_same_steps(tmp_path: Path) -> None:
    """batch 4 x 2 accumulated passes = one step per 8 rows, with activations recomputed."""
    hyper = SFTHyper(
        lr=3e-3, epochs=2, batch_size=4, grad_accum=2, gradient_checkpointing=True, max_length=96
    )
    seen: list[Progress] = []
    metrics = run_sft(sft_rows(), "tiny", hyper, tmp_path, callback=seen.append)
    losses = [p.loss for p in seen]
    assert metrics["steps"] == len(seen) == 6 and seen[-1].total == 6
    assert sum(losses[-2:]) / 2 < sum(losses[:2]) / 2 - 0.5
    assert latest_checkpoint(tmp_path) == tmp_path / "final"
