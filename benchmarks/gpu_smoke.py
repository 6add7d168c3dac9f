"""``python -m benchmarks gpu-smoke`` (``scripts/gpu-smoke.sh``): the GPU path end to end.

1. **records** — the ``search`` teacher repairs a few small EditBench tasks in the real
   planner (verifier over HTTP); :func:`build_repair_sft` turns its records into SFT rows.
2. **student** — the CPU-scale student (``tiny:small``, built on those rows) is saved, then
   LoRA-fine-tuned for 20 steps on them: bf16 on CUDA (TRL's ``bf16``), float32 on a CPU.
3. **round** — the merged checkpoint proposes as ``hf:<path>`` in one planner round, on the
   device the planner picks itself (``REFINERY_HF_DEVICE=auto``: CUDA when there).

One line ends it: ``GPU SMOKE PASS …`` or ``… FAIL: <why>`` (exit 1). Without CUDA it still
runs, on the CPU and slower, and says so (``CPU-ONLY SMOKE PASS``); ``--require-cuda``
makes a CPU-only machine exit 2 at once instead.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

__all__ = ["SmokeResult", "cli", "run"]

STEPS = 20
TASKS = 3


@dataclass
class SmokeResult:
    device: str
    dtype: str
    steps: int
    first_loss: float
    last_loss: float
    train_s: float
    rows: int
    candidates: int
    parsed: int
    errors: list[str]
    draft_ves: float
    final_ves: float
    total_s: float

    def failures(self, device: str) -> list[str]:
        """Why this run is not a pass (empty when it is)."""
        wanted = "torch.bfloat16" if device == "cuda" else "torch.float32"
        out = []
        if self.steps != STEPS:
            out.append(f"trained {self.steps} steps, not {STEPS}")
        if not self.last_loss < self.first_loss:
            out.append(f"loss did not fall ({self.first_loss:.3f} -> {self.last_loss:.3f})")
        if self.device != device or self.dtype != wanted:
            out.append(f"checkpoint served on {self.device}/{self.dtype}, not {device}/{wanted}")
        if self.candidates == 0 or self.errors:
            out.append(f"the round made {self.candidates} candidates; errors: {self.errors}")
        return out

    def line(self) -> str:
        return (
            f"device={self.device} dtype={self.dtype} sft={self.steps} steps on {self.rows} rows "
            f"loss {self.first_loss:.3f}->{self.last_loss:.3f} ({self.train_s:.0f}s); "
            f"hf round: {self.candidates} candidates, {self.parsed} parsed, "
            f"VES {self.draft_ves:.3f}->{self.final_ves:.3f}; total {self.total_s:.0f}s"
        )


def run(work: Path) -> SmokeResult:
    """The three steps above in ``work``; the figures the verdict is made of."""
    from benchmarks.trainer_bench import editbench_tasks
    from benchmarks.trainer_bench_loop import LoopBudget, planner_session
    from services.planner.proposers import hf
    from services.trainer.configs import LoraSpec, SFTHyper
    from services.trainer.datasets import build_repair_sft
    from services.trainer.models import build_tiny, save_checkpoint
    from services.trainer.runners import run_sft
    from services.trainer.tokenizer import corpus_texts

    started = time.perf_counter()
    tasks = editbench_tasks(1, TASKS, 20)
    with planner_session(seed=0) as loop:
        for task in tasks:
            loop.plan(task, "search", LoopBudget(max_rounds=2, candidates=4))
        rows, _ = build_repair_sft(loop.new_records(), {t["id"]: t for t in tasks}, min_gain=0.0)
        model, tokenizer = build_tiny(corpus_texts(rows), seed=0, size="small")
        base = save_checkpoint(model, tokenizer, work / "student")
        hyper = SFTHyper(
            lr=2e-3, max_steps=STEPS, batch_size=4, max_length=2048, lora=LoraSpec(r=16, alpha=32)
        )
        losses: list[float] = []
        t0 = time.perf_counter()
        metrics = run_sft(
            rows, str(base), hyper, work / "sft", callback=lambda p: losses.append(p.loss)
        )
        train_s = time.perf_counter() - t0
        checkpoint = str(Path(metrics["checkpoint"]).resolve())
        plan = loop.plan(tasks[0], f"hf:{checkpoint}", LoopBudget(max_rounds=1, candidates=4))
    device, dtype = _served(hf, checkpoint)
    stats = plan["branches"][0].get("stats") or {}
    return SmokeResult(
        device=device,
        dtype=dtype,
        steps=int(metrics["steps"]),
        first_loss=losses[0] if losses else float("nan"),
        last_loss=losses[-1] if losses else float("nan"),
        train_s=train_s,
        rows=len(rows),
        candidates=int(stats.get("candidates", 0)),
        parsed=int(stats.get("candidates", 0)) - int(stats.get("dropped", 0)),
        errors=list(stats.get("errors", [])),
        draft_ves=float(plan["draft_ves"]),
        final_ves=float(plan["ves"]),
        total_s=time.perf_counter() - started,
    )


def _served(hf: Any, checkpoint: str) -> tuple[str, str]:
    """Where the planner loaded the checkpoint: its device and weight dtype."""
    for (path, _), loaded in hf._CACHE.items():
        if path == checkpoint:
            weight = next(loaded.model.parameters())
            return weight.device.type, str(weight.dtype)
    return "not loaded", "none"


def cli(
    require_cuda: bool = typer.Option(False, help="Exit 2 at once on a machine without CUDA."),
    work_dir: Path | None = typer.Option(None, help="Keep the checkpoints here."),
) -> None:
    """Train the student with LoRA on the GPU for 20 steps, then let it propose in one round."""
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        if require_cuda:
            typer.echo("GPU SMOKE SKIPPED: no CUDA device (torch.cuda.is_available() is False)")
            raise typer.Exit(2)
        typer.echo("no CUDA device: running on the CPU, slowly, to check the path only")
    else:
        typer.echo(f"CUDA device: {torch.cuda.get_device_name(0)}")
    with tempfile.TemporaryDirectory() as scratch:
        work = work_dir or Path(scratch)
        try:
            result = run(work)
        except Exception as error:  # the verdict line names whatever broke
            typer.echo(f"GPU SMOKE FAIL: {type(error).__name__}: {error}")
            raise typer.Exit(1) from None
    label = "GPU SMOKE" if device == "cuda" else "CPU-ONLY SMOKE"
    failures = result.failures(device)
    if failures:
        typer.echo(f"{label} FAIL: {'; '.join(failures)} [{result.line()}]")
        raise typer.Exit(1)
    typer.echo(f"{label} PASS: {result.line()}")
