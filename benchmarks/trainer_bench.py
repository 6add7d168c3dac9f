"""``python -m benchmarks trainer``: the learning loop end to end, on CPU, with tiny models.

Repair (EditBench, the real planner and a verifier served over HTTP; every plan starts in
repair mode from the naive one-shot cut):

1. **teachers** — on the train tasks, ``search`` and the deliberately ``noisy`` teacher
   (:mod:`benchmarks.trainer_bench_loop`) run as two branches; every candidate of every
   branch becomes a scored record (``GET /v1/records``).
2. **repair SFT** — :func:`build_repair_sft` keeps the verifier-best accepted repair per
   state; :func:`run_sft` trains a tiny model from scratch on them.
3. **evaluation** — each model proposes as ``hf:<checkpoint>`` on the held-out tasks, same
   seed, rounds and candidates: ``ves_untrained`` (the same architecture and tokenizer,
   untrained weights), ``ves_sft``, ``ves_evo``; ``ves_naive`` is the naive cut alone.
4. **evo** — the SFT student proposes on train tasks; :func:`build_evo_pairs` (margin 0.1)
   ranks its own candidates by VES; :func:`run_dpo` from the SFT checkpoint.

GUI (synthetic episodes, :mod:`benchmarks.trainer_bench_gui`): SFT a tiny policy on the
train episodes (``step_sr_sft``, teacher-forced on held-out episodes, validity = SOLAR's Φ);
sample candidates per train step from it; policy-gradient from the SFT checkpoint on SOLAR's
dense rows (``step_sr_solar``) and, from the same candidates, on the sparse GRPO rows
(``step_sr_sparse``). Hyper-parameters are fixed here, never chosen on held-out figures.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import typer
from rich.progress import Progress, TaskID

from benchmarks.editbench import generate
from benchmarks.trainer_bench_gui import CandidateCache, step_sr
from benchmarks.trainer_bench_loop import LoopBudget, LoopRunner, planner_session
from benchmarks.verifier_bench import calibration_us
from services.trainer.configs import DPOHyper, PolicyGradientHyper, SFTHyper
from services.trainer.datasets import build_evo_pairs, build_repair_sft
from services.trainer.episodes import episode_rows, generate_episodes, render_messages
from services.trainer.models import build_tiny, save_checkpoint
from services.trainer.runners import Progress as RunnerProgress
from services.trainer.runners import run_dpo, run_policy_gradient, run_sft
from services.trainer.solar import SolarConfig, solar_rows, sparse_rows
from services.trainer.tokenizer import corpus_texts

__all__ = ["FULL", "QUICK", "SEEDS", "Sizes", "run"]

SEEDS = {
    "train_tasks": 1,
    "heldout_tasks": 2,
    "train_episodes": 11,
    "heldout_episodes": 12,
    "plan": 0,
    "model": 0,
    "samples": 0,
}


TEACHER_BUDGET = LoopBudget(max_rounds=4, candidates=4)
EVAL_BUDGET = LoopBudget(max_rounds=8, candidates=8)
"""The planner's own defaults: students are judged in the loop as the product runs it."""
REPAIR_SFT = SFTHyper(seed=0, epochs=12, lr=3e-3, batch_size=4, max_length=2048)
EVO_DPO = DPOHyper(seed=0, epochs=2, lr=1e-4, batch_size=4, max_length=2048)
GUI_SFT = SFTHyper(seed=0, epochs=12, lr=3e-3, batch_size=8, max_length=1536)
GUI_PG = PolicyGradientHyper(seed=0, epochs=1, lr=1e-4, batch_size=8, max_length=1536)


@dataclass(frozen=True)
class Sizes:
    """Everything that sets the benchmark's size; :data:`FULL` and :data:`QUICK` below."""

    train_tasks: int = 32
    heldout_tasks: int = 12
    max_clips: int = 20
    """Only EditBench tasks with at most this many clips (short prompts for a CPU model)."""
    teacher: LoopBudget = TEACHER_BUDGET
    evaluation: LoopBudget = EVAL_BUDGET
    evo_tasks: int = 32
    """Train tasks the SFT student proposes on (rounds as evaluated, at least 4 candidates)."""
    evo_pairs_per_state: int = 4
    """At most this many preference pairs per state (largest VES gaps first)."""
    base: str = "tiny"
    sft: SFTHyper = REPAIR_SFT
    dpo: DPOHyper = EVO_DPO
    train_episodes: int = 24
    heldout_episodes: int = 12
    gui_candidates: int = 4
    gui_sft: SFTHyper = GUI_SFT
    pg: PolicyGradientHyper = GUI_PG


FULL = Sizes()
QUICK = Sizes(
    train_tasks=3,
    heldout_tasks=2,
    teacher=LoopBudget(max_rounds=2, candidates=2),
    evaluation=LoopBudget(max_rounds=1, candidates=2),
    evo_tasks=2,
    sft=replace(FULL.sft, epochs=1, max_steps=2),
    dpo=replace(FULL.dpo, max_steps=1),
    train_episodes=2,
    heldout_episodes=1,
    gui_candidates=2,
    gui_sft=replace(FULL.gui_sft, max_steps=2),
    pg=replace(FULL.pg, max_steps=1),
)


def editbench_tasks(seed: int, n: int, max_clips: int) -> list[dict[str, Any]]:
    """The first ``n`` EditBench tasks of ``seed`` whose pool has at most ``max_clips``."""
    out = []
    for row in generate(1_000_000, seed=seed):
        if len(row["task"]["clips"]) <= max_clips:
            out.append(row["task"])
            if len(out) == n:
                return out
    return out


@dataclass
class Ticker:
    """One phase's bar: ``tick()`` advances it; as a runner callback it shows the steps."""

    bar: Progress
    task: TaskID

    def __call__(self, progress: RunnerProgress | None = None) -> None:
        if progress is None:
            self.bar.advance(self.task)
        else:
            self.bar.update(self.task, completed=progress.step, total=progress.total)


class Phases:
    """Wall time per phase, and one rich progress bar per phase."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.seconds: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str, total: int | None = None) -> Iterator[Ticker]:
        task = self.bar.add_task(name, total=total)
        start = time.perf_counter()
        try:
            yield Ticker(self.bar, task)
        finally:
            self.seconds[name] = round(time.perf_counter() - start, 2)
            done = self.bar.tasks[task].total or 1
            self.bar.update(task, completed=done, total=done)


def _r(value: float) -> float:
    return round(value, 4)


def _train_summary(metrics: Mapping[str, Any]) -> dict[str, Any]:
    keep = ("steps", "tokens", "tokens_per_s", "train_loss", "final_loss", "runtime_s")
    return {k: _r(metrics[k]) if isinstance(metrics[k], float) else metrics[k] for k in keep}


def _repair(sizes: Sizes, loop: LoopRunner, phases: Phases, work: Path) -> dict[str, Any]:
    """Teachers → repair SFT → held-out evaluation → evo; the repair half of the figures."""
    train = editbench_tasks(SEEDS["train_tasks"], sizes.train_tasks, sizes.max_clips)
    heldout = editbench_tasks(SEEDS["heldout_tasks"], sizes.heldout_tasks, sizes.max_clips)
    book = {t["id"]: t for t in train}
    with phases.phase("teachers", len(train)) as tick:
        for task in train:
            loop.plan(task, "search", sizes.teacher, teachers=["noisy"])
            tick()
        records = loop.new_records()
    with phases.phase("repair_sft") as tick:
        rows, sft_stats = build_repair_sft(records, book, min_gain=0.0)
        sft = run_sft(rows, sizes.base, sizes.sft, work / "sft", callback=tick)
        untrained = _untrained(rows, sizes, work / "untrained")
    models = {"untrained": untrained, "sft": sft["checkpoint"]}
    out: dict[str, Any] = {
        "train_tasks": len(train),
        "heldout_tasks": len(heldout),
        "teacher_records": len(records),
        "repair_sft_rows": len(rows),
        "repair_sft_stats": {k: sft_stats[k] for k in ("states", "teachers")},
        "sft": _train_summary(sft),
        "sft_tokens_per_s": _r(sft["tokens_per_s"]),
    }
    out.update(_evo(sizes, loop, phases, work, train[: sizes.evo_tasks], sft["checkpoint"]))
    if out.get("evo_checkpoint"):
        models["evo"] = out.pop("evo_checkpoint")
    evaluation = sizes.evaluation
    with phases.phase("evaluation", len(heldout) * len(models)) as tick:
        for name, path in models.items():
            figures = loop.evaluate(heldout, f"hf:{path}", evaluation, tick)
            out[f"ves_{name}"] = figures.pop("mean_ves")
            out["ves_naive"] = figures.pop("naive_mean_ves")
            out[f"loop_{name}"] = figures
    out.setdefault("ves_evo", None)
    return out


def _untrained(rows: list[dict[str, Any]], sizes: Sizes, path: Path) -> str:
    """The SFT run's starting point (same rows → same tokenizer, same seed → same weights)."""
    size = sizes.base.removeprefix("tiny").removeprefix(":") or "tiny"
    model, tokenizer = build_tiny(corpus_texts(rows), seed=sizes.sft.seed, size=size)
    return str(save_checkpoint(model, tokenizer, path))


def _evo(
    sizes: Sizes,
    loop: LoopRunner,
    phases: Phases,
    work: Path,
    tasks: list[dict[str, Any]],
    student: str,
) -> dict[str, Any]:
    """The SFT student's self-scored records → preference pairs → DPO."""
    name = f"hf:{student}"
    budget = LoopBudget(sizes.evaluation.max_rounds, max(4, sizes.evaluation.candidates))
    with phases.phase("evo", len(tasks)) as tick:
        loop.new_records()  # skip anything not proposed by the student below
        for task in tasks:
            loop.plan(task, name, budget)
            tick()
        records = loop.new_records()
        book = {t["id"]: t for t in tasks}
        pairs, stats = build_evo_pairs(
            records,
            book,
            margin=0.1,
            max_pairs_per_state=sizes.evo_pairs_per_state,
            proposers=[name],
        )
        out: dict[str, Any] = {
            "evo_tasks": len(tasks),
            "evo_records": len(records),
            "evo_pairs": len(pairs),
            "evo_pair_states": stats["states"],
        }
        if not pairs:
            out["evo_skipped"] = stats.get("empty_reason", "no pairs")
            return out
    with phases.phase("evo_dpo") as tick:
        dpo = run_dpo(pairs, student, sizes.dpo, work / "evo", callback=tick)
    return {**out, "dpo": _train_summary(dpo), "evo_checkpoint": dpo["checkpoint"]}


def _gui(sizes: Sizes, phases: Phases, work: Path) -> dict[str, Any]:
    """Episode SFT, then SOLAR and sparse policy gradient from the same sampled candidates."""
    train = generate_episodes(sizes.train_episodes, seed=SEEDS["train_episodes"], alternatives=0)
    heldout = generate_episodes(
        sizes.heldout_episodes, seed=SEEDS["heldout_episodes"], alternatives=0
    )
    config = SolarConfig(n_candidates=sizes.gui_candidates, temperature=1.0)
    with phases.phase("gui_sft") as tick:
        rows = episode_rows(train)
        sft = run_sft(rows, sizes.base, sizes.gui_sft, work / "gui_sft", callback=tick)
        policy = sft["checkpoint"]
        sft_sr = step_sr(policy, heldout, config)
    wire = [episode.to_dict() for episode in train]
    samples = CandidateCache(policy, SEEDS["samples"])
    with phases.phase("gui_candidates"):
        solar, solar_stats = solar_rows(wire, render=render_messages, config=config, policy=samples)
        sparse, _ = sparse_rows(wire, render=render_messages, config=config, policy=samples)
    out: dict[str, Any] = {
        "train_episodes": len(train),
        "heldout_episodes": len(heldout),
        "gui_sft_rows": len(rows),
        "heldout_steps": sft_sr["steps"],
        "gui_sft": _train_summary(sft),
        "step_sr_sft": sft_sr["step_sr"],
        "gui_eval_sft": sft_sr,
        "candidates_drawn": samples.drawn,
        "candidates_parsed_rate": _r(samples.parsed / samples.drawn) if samples.drawn else 0.0,
        "solar_rows": len(solar),
        "sparse_rows": len(sparse),
        "successful_trajectories": solar_stats["successful_trajectories"],
        "trajectories": solar_stats["trajectories"],
        "nonzero_advantage_rows": {
            "solar": sum(abs(r["advantage"]) > 1e-9 for r in solar),
            "sparse": sum(abs(r["advantage"]) > 1e-9 for r in sparse),
        },
    }
    for kind, pg_rows in (("solar", solar), ("sparse", sparse)):
        with phases.phase(f"gui_{kind}") as tick:
            metrics = run_policy_gradient(
                pg_rows, policy, sizes.pg, work / f"gui_{kind}", callback=tick
            )
            figures = step_sr(metrics["checkpoint"], heldout, config)
        out[f"step_sr_{kind}"] = figures["step_sr"]
        out[f"gui_eval_{kind}"] = figures
        out[f"gui_{kind}"] = _train_summary(metrics)
    return out


def run(sizes: Sizes = FULL, *, work_dir: Path | None = None) -> dict[str, Any]:
    """Run every phase; the figures as a JSON-ready dict (see the module docstring)."""
    started = time.perf_counter()
    figures: dict[str, Any] = {"python_calibration_us": calibration_us()}
    with tempfile.TemporaryDirectory() as scratch, Progress() as bar:
        work = work_dir or Path(scratch)
        phases = Phases(bar)
        with planner_session(seed=SEEDS["plan"]) as loop:
            figures.update(_repair(sizes, loop, phases, work))
        figures.update(_gui(sizes, phases, work))
    figures["sizes"] = _jsonable(asdict(sizes))
    figures["seeds"] = dict(SEEDS)
    figures["runtime_s"] = {**phases.seconds, "total": round(time.perf_counter() - started, 2)}
    return figures


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def cli(
    json_path: Path = typer.Option(Path("trainer-bench.json"), "--json", help="Output file."),
    quick: bool = typer.Option(False, "--quick", help="A test-sized run (seconds, not minutes)."),
    work_dir: Path | None = typer.Option(None, help="Keep checkpoints here (default: a temp dir)."),
) -> None:
    """Run the trainer's learning loop (repair SFT, evo, GUI SFT / SOLAR / sparse) as JSON."""
    results = run(QUICK if quick else FULL, work_dir=work_dir)
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps(results, indent=2))
