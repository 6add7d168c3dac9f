"""The ToolLoop ladder on a real base: does the loop's data teach tool calling that transfers
to BFCL, better than generate-then-filter data?

Arms, all from one base with the same number of training examples, steps and
hyper-parameters: ``base`` (untrained, decoded once for every seed); ``toolloop`` (LoRA SFT
on the synth service's export of a generate → verify → refine job on the built-in
catalog); ``filter`` (the same job with no refinement round: generate, then filter);
``isolate`` (``toolloop`` with Isolate on, which drops the catalog functions near BFCL's);
``ranked`` (``toolloop`` whose stage 2 keeps the most natural of 8 template drafts, as the
real base reads them: ``rank_queries``).
Each export goes through :func:`~services.synth.model_reader.training_row` (the reader's own
prompt and answer format) and the trainer's own SFT runner, and every arm is judged by
:func:`benchmarks.bfcl_bench.measure` on BFCL's held-out half. No BFCL question, and no
BFCL answer's call, reaches any training row: :func:`assert_no_bfcl` checks every row.

``python -m benchmarks toolloop --seeds 3 --json out.json``
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from benchmarks.bfcl_bench import DEFAULT_CATEGORIES, measure
from benchmarks.cpu_threads import torch_threads
from benchmarks.verifier_bench import calibration_us
from services.synth.bfcl.solver_eval import HALVES

__all__ = ["ARMS", "Ladder", "assert_no_bfcl", "cli", "export_rows", "reader_rows", "run"]

ARMS: dict[str, dict[str, Any]] = {
    "toolloop": {"max_refine_rounds": 3},
    "filter": {"max_refine_rounds": 0},
    "isolate": {"max_refine_rounds": 3, "isolate": True},
    "ranked": {"max_refine_rounds": 3, "rank_queries": 8},
}
"""Each trained arm's synth job options (the rest of the request is shared)."""

LADDER_MIX = "simple=1,multiple=1,parallel=2,parallel_multiple=2"
"""The synth job's category mix for the ladder, chosen on BFCL's tuned half: the four AST
categories it judges, those of several calls twice as often, and no ``irrelevance``, whose
answer (``[]``) no AST question wants."""


def _ladder_mix() -> dict[str, float] | None:
    from clients.cli_synth import parse_mix

    return parse_mix(LADDER_MIX)


@dataclass(frozen=True)
class Ladder:
    """The ladder's settings: data, training and judging."""

    base: str = "smollm2-135m"
    examples: int = 200
    epochs: float = 1.0
    lr: float = 2e-4
    lora_r: int = 16
    batch_size: int = 4
    grad_accum: int = 2
    """Rows per optimiser step: batch_size × grad_accum (8); 4 rows a pass keep one training
    process near 7 GB (8 took 14 GB: the logits over a 49,152-token vocabulary)."""
    max_length: int = 768
    categories: tuple[str, ...] = DEFAULT_CATEGORIES
    half: str = "held_out"
    """The BFCL half judged: ``held_out`` for the ladder's figures, ``tuned`` to choose the
    settings above."""
    n: int = 100
    eval_batch: int = 8
    mix: dict[str, float] | None = field(default_factory=_ladder_mix)
    """The synth job's category mix (None: the service's default, equal shares)."""
    arms: tuple[str, ...] = tuple(ARMS)


def export_rows(
    arm: str,
    *,
    examples: int,
    seed: int,
    data_dir: Path,
    mix: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """The synth service's TRL export of one arm's job (the service runs in process)."""
    from fastapi.testclient import TestClient

    from clients.synth import SynthClient
    from services.synth.app import build_app
    from services.synth.config import SynthSettings

    settings = SynthSettings(
        data_dir=data_dir, database_url=f"sqlite:///{data_dir}/synth.db", log_level="WARNING"
    )
    with (
        TestClient(build_app(settings)) as http,
        SynthClient("http://testserver", http_client=http) as synth,
    ):
        job = synth.synthesize("builtin", n=examples, seed=seed, mix=mix, **ARMS[arm])
        job = synth.wait(job.job_id, poll_s=0.2)
        if job.status != "succeeded":
            raise RuntimeError(f"the {arm} synth job ended {job.status}: {job.error}")
        return [json.loads(line) for line in synth.export(job.job_id).splitlines() if line]


def reader_rows(exported: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """TRL export rows (user turn, assistant calls, tools) as the reader's SFT rows, read
    through the trainer's own normalisation of synth examples."""
    from services.synth.calls import Call
    from services.synth.model_reader import training_row
    from services.trainer.datasets.tool_sft import normalise_example

    rows = []
    for row in map(normalise_example, exported):
        user = next(m["content"] for m in row["messages"] if m["role"] == "user")
        answer = next(m for m in row["messages"] if m["role"] == "assistant")
        calls = [Call(**c["function"]) for c in answer.get("tool_calls", [])]
        rows.append(training_row(user, row["tools"], calls))
    return rows


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _bfcl_keys(categories: Sequence[str]) -> tuple[set[str], set[str]]:
    """Every question of ``categories`` (both halves) and every answer call, normalised."""
    from services.synth.bfcl.convert import openai_name
    from services.synth.bfcl.data import load_cases

    questions, answers = set(), set()
    for category in categories:
        for case in load_cases(category):
            questions |= {_normal(m["content"]) for m in case.messages if m["role"] == "user"}
            for call in case.answer:
                for name, options in call.items():
                    first = {k: v[0] for k, v in options.items() if v and v[0] != ""}
                    answers.add(json.dumps([openai_name(name), first], sort_keys=True))
    return questions, answers


def assert_no_bfcl(rows: Sequence[dict[str, Any]], categories: Sequence[str]) -> None:
    """AssertionError when a training row holds a BFCL question or one of its answers' calls."""
    questions, answers = _bfcl_keys(categories)
    for i, row in enumerate(rows):
        query = next(m["content"] for m in row["prompt"] if m["role"] == "user")
        assert _normal(query) not in questions, f"row {i} holds a BFCL question: {query!r}"
        for item in json.loads(row["completion"][0]["content"]):
            key = json.dumps([item["name"], item["arguments"]], sort_keys=True)
            assert key not in answers, f"row {i} holds a BFCL answer: {key}"


def train_arm(rows: list[dict[str, Any]], ladder: Ladder, seed: int, out: Path) -> dict[str, Any]:
    """LoRA SFT through the trainer's own runner; its metrics and checkpoint path."""
    from services.trainer.configs import LoraSpec, SFTHyper
    from services.trainer.runners.sft import run_sft

    hyper = SFTHyper(
        seed=seed,
        epochs=ladder.epochs,
        lr=ladder.lr,
        batch_size=ladder.batch_size,
        grad_accum=ladder.grad_accum,
        max_length=ladder.max_length,
        lora=LoraSpec(r=ladder.lora_r, alpha=2 * ladder.lora_r),
    )
    return run_sft(rows, ladder.base, hyper, out)


def _judge(model: str, ladder: Ladder) -> dict[str, Any]:
    """The model's figures; the loaded checkpoint is let go after, so a seed's process holds
    one model at a time (the planner's loader caches every checkpoint it loads)."""
    import gc

    from services.planner.proposers.hf import clear_cache

    try:
        return measure(
            model,
            ladder.categories,
            half=ladder.half,
            n=ladder.n,
            batch_size=ladder.eval_batch,
            progress=False,
        )
    finally:
        clear_cache()
        gc.collect()


def run_seed(
    ladder: Ladder,
    seed: int,
    work: Path,
    say: Callable[[str], None] = print,
    on_arm: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The ladder's trained arms of one seed: data, training, judging; ``on_arm`` sees the
    arms judged so far after each one."""
    arms: dict[str, Any] = {}
    for arm in ladder.arms:
        started = time.perf_counter()
        rows = reader_rows(
            export_rows(
                arm,
                examples=ladder.examples,
                seed=seed,
                data_dir=work / arm / "synth",
                mix=ladder.mix,
            )
        )
        assert_no_bfcl(rows, ladder.categories)
        trained = train_arm(rows, ladder, seed, work / arm / "train")
        trained_s = time.perf_counter() - started
        judged = _judge(trained["checkpoint"], ladder)
        say(f"seed {seed} {arm}: {judged['accuracy']} ({trained_s:.0f} s data + training)")
        arms[arm] = {
            "accuracy": judged["accuracy"],
            "train_examples": len(rows),
            "train_tokens": trained["tokens"],
            "train_s": round(trained_s, 1),
            "final_loss": round(trained["final_loss"], 4),
            "eval_s": judged["eval_s"],
            "checkpoint": trained["checkpoint"],
            "wrong": judged["wrong"],
        }
        if on_arm is not None:
            on_arm(arms)
    return arms


def _mean_std(values: list[dict[str, float]]) -> tuple[dict[str, float], dict[str, float]]:
    keys = values[0].keys()
    mean = {k: round(statistics.fmean(v[k] for v in values), 4) for k in keys}
    spread = {k: round(statistics.pstdev(v[k] for v in values), 4) for k in keys}
    return mean, spread


def summarise(base: dict[str, Any], seeds: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures the issue names: ``bfcl_<arm>`` and ``bfcl_<arm>_std`` over seeds."""
    figures: dict[str, Any] = {"bfcl_base": base["accuracy"], "eval_s": {"base": base["eval_s"]}}
    for arm in ARMS:
        runs = [s["arms"][arm] for s in seeds if arm in s["arms"]]
        if not runs:
            continue
        mean, spread = _mean_std([run["accuracy"] for run in runs])
        figures[f"bfcl_{arm}"], figures[f"bfcl_{arm}_std"] = mean, spread
        figures[f"seeds_{arm}"] = len(runs)
        for key in ("train_examples", "train_tokens", "train_s", "eval_s"):
            known = [run[key] for run in runs if key in run]
            if known:
                figures.setdefault(key, {})[arm] = known[0]
    figures["seconds_per_seed"] = [s["seconds"] for s in seeds]
    return figures


def run(
    ladder: Ladder,
    seeds: Sequence[int],
    work: Path,
    *,
    base: dict[str, Any] | None = None,
    on_seed: Callable[[dict[str, Any]], None] | None = None,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """The base once (unless its ``benchmarks bfcl`` figures are given), then every seed's
    arms; ``on_seed`` sees the figures so far."""
    if base is None:
        base = _judge(ladder.base, ladder)
    say(f"base: {base['accuracy']} ({base['eval_s']} s)")
    done: list[dict[str, Any]] = []
    for seed in seeds:
        started = time.perf_counter()

        def partial(arms: dict[str, Any], seed: int = seed) -> None:
            if on_seed is not None:
                so_far = [*done, {"seed": seed, "arms": arms, "seconds": None}]
                on_seed({**summarise(base, so_far), "seeds": so_far, "base": base})

        arms = run_seed(ladder, seed, work / f"seed{seed}", say, on_arm=partial)
        done.append({"seed": seed, "arms": arms, "seconds": round(time.perf_counter() - started)})
        if on_seed is not None:
            on_seed({**summarise(base, done), "seeds": done, "base": base})
    return {**summarise(base, done), "seeds": done, "base": base}


def cli(
    seeds: int = typer.Option(3, min=1, help="seeds 0..S-1"),
    first_seed: int = typer.Option(0, min=0, help="the first seed"),
    base: str = typer.Option("smollm2-135m"),
    examples: int = typer.Option(200, min=1, help="training examples per arm (N)"),
    epochs: float = typer.Option(1.0),
    lr: float = typer.Option(2e-4),
    lora_r: int = typer.Option(16, min=1),
    n: int = typer.Option(100, min=1, help="questions per category (the half's first n)"),
    half: str = typer.Option("held_out", help="held_out, or tuned to choose settings"),
    mix: str = typer.Option(LADDER_MIX, help="the synth job's mix ('': the service's default)"),
    categories: str = typer.Option(",".join(DEFAULT_CATEGORIES)),
    threads: int = typer.Option(2, min=0, help="torch threads (0: torch's default)"),
    keep: Path | None = typer.Option(None, help="keep each arm's checkpoint under KEEP/<arm>/"),
    base_figures: Path | None = typer.Option(
        None, help="the base's `benchmarks bfcl` JSON (same half, n, categories): not re-judged"
    ),
    combine: list[Path] = typer.Option(
        [], help="instead of running: these runs' seeds together (the base: --base-figures)"
    ),
    skip_base: bool = typer.Option(False, help="seeds only (for --combine with --base-figures)"),
    arms: str = typer.Option(",".join(ARMS), help="the trained arms to run, comma-separated"),
    batch_size: int = typer.Option(4, min=1, help="rows a pass (rows a step: × --grad-accum)"),
    grad_accum: int = typer.Option(2, min=1, help="passes a step"),
    json_path: Path | None = typer.Option(None, "--json", help="written after every seed"),
) -> None:
    """Base vs LoRA SFT on ToolLoop, generate-then-filter and Isolate data, judged on BFCL."""
    ladder = Ladder(
        base=base, examples=examples, epochs=epochs, lr=lr, lora_r=lora_r, n=n, half=half,
        mix=_parse_mix(mix),
        categories=tuple(c.strip() for c in categories.split(",") if c.strip()),
        arms=tuple(a.strip() for a in arms.split(",") if a.strip()),
        batch_size=batch_size, grad_accum=grad_accum,
    )  # fmt: skip
    _check(ladder)
    calibration = calibration_us()

    def write(figures: dict[str, Any]) -> None:
        if json_path is not None:
            extra = {"ladder": ladder.__dict__, "python_calibration_us": calibration}
            json_path.write_text(json.dumps({**figures, **extra}, indent=2, default=list) + "\n")

    base = _base_figures(base_figures, ladder) if base_figures is not None else None
    if combine:
        runs = [json.loads(path.read_text()) for path in combine]
        done = _merged_seeds([seed for figures in runs for seed in figures["seeds"]])
        base = base or runs[0]["base"]
        write(figures := {**summarise(base, done), "seeds": done, "base": base})
        _echo(figures)
        return
    if skip_base:
        base = {"accuracy": {}, "eval_s": 0.0, "skipped": True}
    with torch_threads(threads), tempfile.TemporaryDirectory() as scratch:
        work = keep if keep is not None else Path(scratch)
        seed_list = range(first_seed, first_seed + seeds)
        figures = run(ladder, seed_list, work, base=base, on_seed=write, say=typer.echo)
        if keep is not None:
            _keep_layout(figures, keep)
    write(figures)
    _echo(figures)


def _check(ladder: Ladder) -> None:
    """BadParameter naming the option a ladder's half or arms came from."""
    if ladder.half not in HALVES:
        raise typer.BadParameter(f"choose from {', '.join(HALVES)}", param_hint="--half")
    if unknown := set(ladder.arms) - set(ARMS):
        raise typer.BadParameter(f"unknown arms {sorted(unknown)}", param_hint="--arms")


def _keep_layout(figures: dict[str, Any], keep: Path) -> None:
    """``KEEP/<arm>/``: the last seed's checkpoint of each arm, loadable by ``benchmarks
    bfcl --model``."""
    import shutil

    last = figures["seeds"][-1]["arms"]
    for arm in last:
        target = keep / arm
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(last[arm]["checkpoint"], target)


def _base_figures(path: Path, ladder: Ladder) -> dict[str, Any]:
    """A ``benchmarks bfcl`` run's figures, checked to judge what the ladder judges."""
    figures = json.loads(path.read_text())
    asked = set(figures["accuracy"]) - {"overall"}
    if figures["half"] != ladder.half or figures["n"] != ladder.n:
        raise typer.BadParameter(
            f"not the {ladder.half} half at this --n", param_hint="--base-figures"
        )
    if asked != set(ladder.categories) or figures["model"] != ladder.base:
        raise typer.BadParameter("another base or other categories", param_hint="--base-figures")
    return figures


def _parse_mix(text: str) -> dict[str, float] | None:
    """``--mix`` as ``refinery synth`` reads it, checked as the synth service checks it."""
    from clients.cli_synth import parse_mix
    from services.synth.sampling import normalise_mix

    mix = parse_mix(text)
    try:
        normalise_mix(mix)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--mix") from None
    return mix


def _merged_seeds(seeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per seed number, its arms gathered from every run that judged one."""
    merged: dict[int, dict[str, Any]] = {}
    for seed in seeds:
        entry = merged.setdefault(seed["seed"], {"seed": seed["seed"], "arms": {}, "seconds": 0})
        entry["arms"].update(seed["arms"])
        entry["seconds"] = (entry["seconds"] or 0) + (seed.get("seconds") or 0)
    return [merged[number] for number in sorted(merged)]


def _echo(figures: dict[str, Any]) -> None:
    for arm in ("base", *ARMS):
        if f"bfcl_{arm}" in figures:
            typer.echo(f"bfcl_{arm}: {figures[f'bfcl_{arm}']}")
