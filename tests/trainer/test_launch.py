"""Training through ``accelerate launch`` (one CPU process here; one per GPU on a cluster)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("accelerate")
pytest.importorskip("trl")

from services.planner.proposers.hf import HFProposer
from services.trainer.configs import SFTHyper
from services.trainer.launch import (
    ACCELERATE_CONFIGS,
    LaunchFailed,
    launch_command,
    launched_runner,
)
from services.trainer.runners.common import Progress, latest_checkpoint
from tests.trainer.runners.toy import sft_rows


def test_the_command_line_per_device(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    cpu = launch_command(spec, num_processes=1, device="cpu")
    assert cpu[:3] == [sys.executable, "-m", "accelerate.commands.launch"]
    assert "--cpu" in cpu and cpu[-4:] == ["-m", "services.trainer.launch", "--spec", str(spec)]
    gpus = launch_command(spec, num_processes=4, device="cuda")
    assert "--multi_gpu" in gpus and "--cpu" not in gpus
    assert gpus[gpus.index("--num_processes") + 1] == "4"
    assert gpus[gpus.index("--mixed_precision") + 1] == "bf16"
    ddp = launch_command(spec, num_processes=8, device="cuda", config="ddp")
    assert ddp[ddp.index("--config_file") + 1] == str(ACCELERATE_CONFIGS / "ddp.yaml")
    assert (ACCELERATE_CONFIGS / "ddp.yaml").is_file()


def test_a_launched_run_trains_reports_and_writes_a_checkpoint(tmp_path: Path) -> None:
    hyper = SFTHyper(lr=3e-3, epochs=1, batch_size=4, grad_accum=2, max_length=96, max_steps=3)
    seen: list[Progress] = []
    runner = launched_runner("sft", num_processes=1, device="cpu")
    metrics = runner(sft_rows(), "tiny", hyper, tmp_path, callback=seen.append)
    assert [p.step for p in seen] == [1, 2, 3] and seen[-1].total == 3
    assert all(p.loss > 0 for p in seen) and metrics["steps"] == 3
    assert metrics["checkpoint"] == str(tmp_path / "final") == str(latest_checkpoint(tmp_path))
    spec = json.loads((tmp_path / ".launch" / "spec.json").read_text())
    assert spec["hyper"]["grad_accum"] == 2 and spec["kind"] == "sft"
    proposer = HFProposer(metrics["checkpoint"], max_new_tokens=4, device="cpu")
    assert len(proposer.complete(sft_rows(1)[0]["prompt"], n=2, seed=0)) == 2


def test_a_cancelled_launch_stops_the_processes(tmp_path: Path) -> None:
    hyper = SFTHyper(lr=3e-3, epochs=5, batch_size=8, max_length=96, save_steps=1)
    seen: list[int] = []

    def stop_after_two(progress: Progress) -> bool:
        seen.append(progress.step)
        return progress.step < 2

    runner = launched_runner("sft", num_processes=1, device="cpu")
    metrics = runner(sft_rows(), "tiny", hyper, tmp_path, callback=stop_after_two)
    assert metrics["cancelled"] is True and seen == [1, 2]
    assert not (tmp_path / "final").exists()


def test_a_failing_launch_names_the_error(tmp_path: Path) -> None:
    runner = launched_runner("sft", num_processes=1, device="cpu")
    bad = [{"prompt": [{"role": "user", "content": "x"}]}]  # no completion
    with pytest.raises(LaunchFailed, match="exited"):
        runner(bad, "tiny", SFTHyper(max_steps=1), tmp_path)
