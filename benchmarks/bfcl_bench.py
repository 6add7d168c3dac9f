"""Any model on BFCL: constrained decoding with each question's own functions, judged by
bfcl-eval's ``ast_checker`` (:mod:`services.synth.bfcl.model_eval`).

``--model`` is a base name (``smollm2-135m``), a checkpoint directory (a trainer checkpoint,
merged, or its ``adapter/`` folder) or a hub id already in the local cache. ``--categories``
takes our names (``simple``, ``multiple``, ``parallel``, ``parallel_multiple``) or BFCL's
(``simple_python``, ``live_simple``, ``live_multiple``, …): any single-turn category.
The held-out half is the odd positions of each data file; the tuned half the even ones.

``python -m benchmarks bfcl --model smollm2-135m --half held_out --n 100 --json out.json``

The JSON: ``{"model", "half", "n", "accuracy": {"<category>": …, "overall": …},
"correct", "total", "wrong" (ids), "seconds_per_question", "load_s", "threads",
"python_calibration_us"}``; ``overall`` is the mean over the questions asked.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer
from rich.progress import Progress

from benchmarks.cpu_threads import torch_threads
from benchmarks.verifier_bench import calibration_us

__all__ = ["DEFAULT_CATEGORIES", "cli", "measure"]

DEFAULT_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


def load_reader(model: str, *, batch_size: int, dtype: str = "auto") -> tuple[Any, float]:
    """A :class:`~services.synth.model_reader.ModelReader` on ``model`` and its load seconds.
    ``auto`` is resolved for this CPU once, so a base and the checkpoints trained from it
    are judged in one dtype (bfloat16 where the CPU has it natively)."""
    from services.common.base_models import resolve_dtype
    from services.planner.proposers.hf import load, resolve_checkpoint
    from services.synth.model_reader import ModelReader

    started = time.perf_counter()
    loaded = load(resolve_checkpoint(model), "cpu", resolve_dtype(dtype, "cpu"))
    loaded.grammar  # noqa: B018 - the tokenizer's grammar tables belong to loading
    return ModelReader(loaded, batch_size=batch_size), time.perf_counter() - started


def measure(
    model: str,
    categories: tuple[str, ...] = DEFAULT_CATEGORIES,
    *,
    half: str = "held_out",
    n: int | None = 100,
    batch_size: int = 8,
    dtype: str = "auto",
    progress: bool = True,
) -> dict[str, Any]:
    """The figures of one model on ``n`` questions per category of one half."""
    from services.synth.bfcl.model_eval import evaluate_model, half_cases

    cases = {category: half_cases(category, half, n) for category in categories}
    reader, load_s = load_reader(model, batch_size=batch_size, dtype=dtype)
    total = sum(len(c) for c in cases.values())
    started = time.perf_counter()
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(f"BFCL {model}", total=total)
        report = evaluate_model(reader, cases, on_answered=lambda k: bar.advance(task, k))
    elapsed = time.perf_counter() - started
    return {
        "model": model,
        "half": half,
        "n": n,
        "accuracy": {name: figures["accuracy"] for name, figures in report.items()},
        "correct": {name: figures["correct"] for name, figures in report.items()},
        "total": {name: figures["total"] for name, figures in report.items()},
        "wrong": {name: report[name]["wrong"] for name in cases},
        "dtype": str(reader.loaded.model.dtype).removeprefix("torch."),
        "seconds_per_question": round(elapsed / max(total, 1), 3),
        "eval_s": round(elapsed, 1),
        "load_s": round(load_s, 1),
    }


def cli(
    model: str = typer.Option("smollm2-135m", help="base name, checkpoint dir or cached hub id"),
    categories: str = typer.Option(",".join(DEFAULT_CATEGORIES), help="comma-separated"),
    half: str = typer.Option("held_out", help="held_out (odd positions) or tuned (even)"),
    n: int = typer.Option(100, min=1, help="questions per category (the half's first n)"),
    batch_size: int = typer.Option(8, min=1, help="questions decoded together"),
    threads: int = typer.Option(2, min=0, help="torch threads (0: torch's default)"),
    dtype: str = typer.Option("auto", help="auto (bfloat16 where the CPU has it), float32, …"),
    json_path: Path | None = typer.Option(None, "--json", help="write the figures here"),
) -> None:
    """Accuracy of a model on BFCL's single-turn categories."""
    from services.synth.bfcl.data import load_cases

    names = tuple(c.strip() for c in categories.split(",") if c.strip())
    try:
        for name in names:
            load_cases(name)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--categories") from None
    calibration = calibration_us()
    with torch_threads(threads) as used:
        figures = measure(model, names, half=half, n=n, batch_size=batch_size, dtype=dtype)
    figures.update(threads=used, python_calibration_us=calibration)
    for name, accuracy in figures["accuracy"].items():
        total = figures["total"][name]
        typer.echo(f"{name:>20}: {accuracy:.3f} ({figures['correct'][name]}/{total})")
    typer.echo(f"{figures['seconds_per_question']} s a question, load {figures['load_s']} s")
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2) + "\n")
