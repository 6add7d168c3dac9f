"""``python -m benchmarks trainer``: the learning ladder end to end, on CPU, with tiny models.

Repair (EditBench, the real planner and a verifier served over HTTP; teachers and evo plans
start in repair mode from the naive one-shot cut, students are judged from their own first
cut, ``draft: "model"``, and from the naive cut, ``*_heuristic_draft``):

1. **teachers** — on the train tasks, every named teacher (``Sizes.teachers``: search run
   greedy, beam and with randomised restarts, the exact solver when the planner has one,
   plus any endpoint in ``REFINERY_TEACHERS``) runs as its own branch of one plan; every
   candidate becomes a scored record (``GET /v1/records``).
2. **repair SFT** — :func:`build_repair_sft` replays every teacher's trajectory through the
   verifier and keeps the verifier-best one per task (``teacher_wins``); :func:`run_sft`
   trains a tiny model from scratch on its steps.
3. **evo** — ``evo_rounds`` rounds: the current student plans the train tasks, its own
   self-scored records give the margin pairs (:func:`build_evo_pairs`), and DPO starts from
   the current student; each round is reported (``evo_rounds``).
4. **evaluation** — each model proposes as ``hf:<checkpoint>`` on the held-out tasks, same
   seed, rounds and candidates: ``ves_untrained`` (same architecture and tokenizer, untrained
   weights), ``ves_sft``, ``ves_evo`` (``draft_ves_*``: their first cuts;
   ``*_heuristic_draft``: the same from the naive cut); the teachers are judged from the
   naive cut (``ves_teachers``, ``ves_best_teacher``); ``ves_naive`` is the naive cut alone.
   Parse rates come from the planner's per-branch counts.

GUI (generated episodes, :mod:`benchmarks.trainer_bench_gui` and
:mod:`benchmarks.trainer_bench_online`): SFT a tiny policy on the train episodes
(``step_sr_sft``, teacher-forced on held-out episodes, validity = SOLAR's Φ); then SOLAR and
sparse-reward GRPO, each iterated on-policy from the SFT checkpoint (``solar_curve``,
``sparse_curve``; ``step_sr_solar`` / ``step_sr_sparse`` are the last points).

``--seeds K`` runs the whole benchmark K times (seed s shifts every data and model seed) and
reports each figure's mean under its key and its sample std under ``<key>_std``. Each run
also reports the goals' gaps taken within the seed (:data:`GAPS`), so ``<gap>_std`` is the
spread of the gap itself.
Hyper-parameters are fixed here, never chosen on held-out figures.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import typer
from rich.progress import Progress, TaskID

from benchmarks.cpu_threads import DEFAULT_THREADS, torch_threads
from benchmarks.editbench import generate
from benchmarks.trainer_bench_gui import step_sr
from benchmarks.trainer_bench_loop import LoopBudget, LoopRunner, planner_session
from benchmarks.trainer_bench_online import ONLINE, OnlineSizes, long_episodes, online_arm
from benchmarks.trainer_bench_seeds import aggregate, plot_curves
from benchmarks.verifier_bench import calibration_us
from protocol.trainer import RepairSelect
from services.common.base_models import is_named_base
from services.trainer.configs import DPOHyper, LoraSpec, SFTHyper
from services.trainer.datasets import build_evo_pairs, build_repair_sft
from services.trainer.episodes import Episode, episode_rows, generate_episodes
from services.trainer.models import named_source, resolve_base, save_checkpoint
from services.trainer.runners import Progress as RunnerProgress
from services.trainer.runners import run_dpo, run_sft
from services.trainer.teachers import TeacherEndpoint

__all__ = [
    "FULL",
    "GAPS",
    "QUICK",
    "REAL",
    "SEEDS",
    "Sizes",
    "goal_gaps",
    "gui_train_episodes",
    "run",
    "run_evo",
    "run_seeds",
    "seeded",
    "seeds_for",
    "sizes_for",
    "teach",
    "train_tasks",
    "untrained_checkpoint",
]

SEEDS = {
    "train_tasks": 1,
    "heldout_tasks": 2,
    "train_episodes": 11,
    "heldout_episodes": 12,
    "online_train_episodes": 13,
    "online_heldout_episodes": 14,
    "plan": 0,
    "model": 0,
    "samples": 0,
}
SEED_STRIDE = 100
"""Seed s adds ``s × SEED_STRIDE`` to every data seed and ``s`` to the model/plan seeds."""

TEACHERS = ("search:greedy", "search:beam", "search:restarts", "exact")
"""Teacher names, first the plan's proposer, then its other branches; names the planner
cannot resolve (``exact`` before the planner has it) are reported and left out."""
TEACHER_BUDGET = LoopBudget(max_rounds=4, candidates=4)
EVAL_BUDGET = LoopBudget(max_rounds=4, candidates=4)
"""Students and teachers alike are judged in the planner's loop with this budget (half the
planner's default rounds and candidates, to keep a seed within the CPU budget; patience 1:
``trainer-select --patience 4`` gave SFT − untrained +0.039 / −0.021 on 24 validation tasks,
seeds 0 / 1, against +0.015 / +0.006)."""
REPAIR_SFT = SFTHyper(seed=0, epochs=12, lr=3e-3, batch_size=4, max_length=2048)
EVO_DPO = DPOHyper(seed=0, epochs=2, lr=3e-4, batch_size=4, max_length=2048)
"""Chosen on the train side (``trainer-select --evo``, 24 validation tasks, seeds 0 and 1):
validation VES evo − SFT +0.014 / +0.019 at lr 3e-4, +0.005 / 0.000 at 1e-4, −0.006 / +0.013
at 1e-3."""
GUI_SFT = SFTHyper(seed=0, epochs=12, lr=3e-3, batch_size=8, max_length=1536)


@dataclass(frozen=True)
class Sizes:
    """Everything that sets the benchmark's size; :data:`FULL` and :data:`QUICK` below."""

    train_tasks: int = 16
    heldout_tasks: int = 8
    max_clips: int = 20
    """Only EditBench tasks with at most this many clips (short prompts for a CPU model)."""
    teachers: tuple[str, ...] = TEACHERS
    controls: tuple[str, ...] = ()
    """Negative controls run next to the teachers (e.g. ``noisy``): scored, never kept."""
    select: RepairSelect = "trajectory"
    """Which teacher steps repair SFT keeps (``DatasetFilters.select``)."""
    teacher: LoopBudget = TEACHER_BUDGET
    evaluation: LoopBudget = EVAL_BUDGET
    evo_rounds: int = 2
    evo_tasks: int = 16
    """Train tasks the student proposes on each evo round (rounds as evaluated, ≥ 4 candidates):
    every train task, chosen on the train side (``trainer-select --evo --evo-tasks``, 24
    validation tasks, seeds 0 / 1: evo − SFT +0.011 / +0.029 with 16, −0.011 / +0.026 with 8)."""
    evo_pairs_per_state: int = 4
    """At most this many preference pairs per state (largest VES gaps first)."""
    base: str = "tiny:small"
    """The repair student (2 layers of 128): chosen on seed 0's train side, where the repair
    SFT student lifted its own train tasks (0.7941 → 0.8222 VES; ``tiny``: no patch accepted)
    and SOLAR lifted the train episodes (0.2449 → 0.3265; ``tiny``: 0.3265 → 0.3265). A named
    real base (``smollm2-135m``) trains under ``sft.lora`` / ``dpo.lora``."""
    gui_base: str = "tiny:small"
    """The GUI student (SFT, then SOLAR and sparse GRPO)."""
    heuristic_draft: bool = True
    """Also judge every student from the naive heuristic cut (``*_heuristic_draft``) beside
    its own first cut (``draft: "model"``, the main figures)."""
    sft: SFTHyper = REPAIR_SFT
    dpo: DPOHyper = EVO_DPO
    train_episodes: int = 24
    heldout_episodes: int = 12
    gui_sft: SFTHyper = GUI_SFT
    online: OnlineSizes = ONLINE


FULL = Sizes()
QUICK = Sizes(
    train_tasks=3,
    heldout_tasks=2,
    teachers=("search:greedy", "search:beam"),
    teacher=LoopBudget(max_rounds=2, candidates=2),
    evaluation=LoopBudget(max_rounds=1, candidates=2),
    evo_rounds=2,
    evo_tasks=2,
    base="tiny",
    sft=replace(FULL.sft, epochs=1, max_steps=2),
    dpo=replace(FULL.dpo, max_steps=1),
    train_episodes=2,
    heldout_episodes=1,
    gui_sft=replace(FULL.gui_sft, max_steps=2),
    online=OnlineSizes(
        iterations=2,
        candidates=2,
        train_episodes=1,
        heldout_episodes=1,
        pg=replace(ONLINE.pg, max_steps=1),
    ),
)


REAL_LORA = LoraSpec(r=16, alpha=32)
REAL = replace(
    FULL,
    train_tasks=4,
    heldout_tasks=4,
    max_clips=16,
    evaluation=LoopBudget(max_rounds=2, candidates=2),
    evo_tasks=4,
    evo_pairs_per_state=2,
    base="smollm2-135m",
    sft=SFTHyper(
        seed=0, epochs=2, lr=2e-4, batch_size=1, grad_accum=4, max_length=2048, lora=REAL_LORA
    ),
    dpo=DPOHyper(
        seed=0,
        epochs=1,
        lr=5e-5,
        batch_size=1,
        grad_accum=4,
        max_length=2048,
        lora=REAL_LORA,
        gradient_checkpointing=True,
    ),
)
"""The ladder on a named real base (LoRA), sized for one seed on one core: 4 train and 4
held-out tasks of at most 16 clips (EditBench draws fewer only rarely), students judged over
2 rounds of 2 candidates; the GUI arm keeps :data:`FULL`'s ``tiny:small`` student. DPO
recomputes activations: a step on pairs of about 1,700 tokens peaked at 6.6 GB instead of
9.4 GB, 15 % slower. First settings, not yet chosen on the train side."""


def sizes_for(base: str | None, *, quick: bool = False) -> Sizes:
    """The benchmark's sizes for a student ``base``: :data:`QUICK` or :data:`FULL` with it,
    or :data:`REAL` for a named real base (quick: the quick sizes under LoRA)."""
    if base is None:
        return QUICK if quick else FULL
    if is_named_base(base) and quick:
        sft = replace(QUICK.sft, lora=REAL_LORA, batch_size=1)
        return replace(QUICK, base=base, sft=sft, dpo=replace(QUICK.dpo, lora=REAL_LORA))
    if is_named_base(base):
        return replace(REAL, base=base)
    return replace(QUICK if quick else FULL, base=base)


def seeds_for(seed: int) -> dict[str, int]:
    """The benchmark's seeds for run ``seed`` (run 0 is :data:`SEEDS` itself)."""
    model_keys = {"plan", "model", "samples"}
    return {k: v + (seed if k in model_keys else seed * SEED_STRIDE) for k, v in SEEDS.items()}


def seeded(sizes: Sizes, seed: int) -> Sizes:
    """``sizes`` with every trainer seed shifted by ``seed``."""
    pg = replace(sizes.online.pg, seed=sizes.online.pg.seed + seed)
    return replace(
        sizes,
        sft=replace(sizes.sft, seed=sizes.sft.seed + seed),
        dpo=replace(sizes.dpo, seed=sizes.dpo.seed + seed),
        gui_sft=replace(sizes.gui_sft, seed=sizes.gui_sft.seed + seed),
        online=replace(sizes.online, pg=pg),
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
            self.seconds[name] = round(self.seconds.get(name, 0) + time.perf_counter() - start, 2)
            done = self.bar.tasks[task].total or 1
            self.bar.update(task, completed=done, total=done)


def _r(value: float) -> float:
    return round(value, 4)


def _train_summary(metrics: Mapping[str, Any]) -> dict[str, Any]:
    keep = ("steps", "tokens", "tokens_per_s", "train_loss", "final_loss", "runtime_s")
    return {k: _r(metrics[k]) if isinstance(metrics[k], float) else metrics[k] for k in keep}


@dataclass
class Context:
    """One run's shared state: sizes, seeds, the planner loop, phases and scratch folder."""

    sizes: Sizes
    seeds: dict[str, int]
    loop: LoopRunner
    phases: Phases
    work: Path
    publish: Callable[[dict[str, Any]], None] = lambda figures: None
    """Called with the figures so far after each step (partial JSON for long runs)."""


def train_tasks(sizes: Sizes, seeds: Mapping[str, int]) -> list[dict[str, Any]]:
    """The repair side's train tasks."""
    return editbench_tasks(seeds["train_tasks"], sizes.train_tasks, sizes.max_clips)


def gui_train_episodes(
    sizes: Sizes, seeds: Mapping[str, int]
) -> tuple[list[Episode], list[Episode]]:
    """The GUI side's train episodes: (GUI SFT's, the long ones both online arms learn on)."""
    online = sizes.online
    episodes = generate_episodes(sizes.train_episodes, seed=seeds["train_episodes"], alternatives=0)
    long_train = long_episodes(
        online.train_episodes, seeds["online_train_episodes"], online.min_steps
    )
    return episodes, long_train


def teach(
    loop: LoopRunner,
    sizes: Sizes,
    train: list[dict[str, Any]],
    tick: Callable[[], None] = lambda: None,
) -> dict[str, Any]:
    """Every resolvable teacher (and control) as a branch of one plan per train task."""
    names, missing = loop.resolvable([*sizes.teachers, *sizes.controls])
    teachers = [n for n in names if n not in sizes.controls]
    if not teachers:
        raise RuntimeError(f"no teacher resolves: {missing}")
    for task in train:
        loop.plan(task, names[0], sizes.teacher, teachers=names[1:])
        tick()
    return {"teachers": teachers, "teachers_missing": missing, "records": loop.new_records()}


def _teachers(ctx: Context, train: list[dict[str, Any]]) -> dict[str, Any]:
    with ctx.phases.phase("teachers", len(train)) as tick:
        return teach(ctx.loop, ctx.sizes, train, tick)


def _repair(ctx: Context) -> dict[str, Any]:
    """Teachers → repair SFT → evo rounds, each student judged on the held-out tasks as soon
    as it exists (the figures so far go to ``ctx.publish`` after every step)."""
    sizes, seeds = ctx.sizes, ctx.seeds
    train = train_tasks(sizes, seeds)
    heldout = editbench_tasks(seeds["heldout_tasks"], sizes.heldout_tasks, sizes.max_clips)
    taught = _teachers(ctx, train)
    records = taught["records"]
    out: dict[str, Any] = {
        "train_tasks": len(train),
        "heldout_tasks": len(heldout),
        "teachers": taught["teachers"],
        "teachers_missing": taught["teachers_missing"],
        "teacher_records": len(records),
    }
    out.update(_judge_teachers(ctx, heldout, taught["teachers"]))
    ctx.publish(out)
    book = {t["id"]: t for t in train}
    rows, stats = build_repair_sft(records, book, controls=sizes.controls, select=sizes.select)
    out.update(
        repair_sft_rows=len(rows),
        teacher_wins=stats["teacher_wins"],
        repair_sft_stats={k: stats[k] for k in ("tasks", "trajectories", "teachers")},
    )
    with ctx.phases.phase("repair_sft"):
        untrained = untrained_checkpoint(rows, sizes, ctx.work / "untrained")
    _judge(ctx, heldout, "untrained", untrained, out)
    with ctx.phases.phase("repair_sft") as tick:
        sft = run_sft(rows, sizes.base, sizes.sft, ctx.work / "sft", callback=tick)
    out.update(sft=_train_summary(sft), sft_tokens_per_s=_r(sft["tokens_per_s"]))
    ctx.publish(out)
    _judge(ctx, heldout, "sft", sft["checkpoint"], out)
    out["sft_gap_to_best_teacher"] = _r(out["ves_best_teacher"] - out["ves_sft"])
    evo = run_evo(ctx, train[: sizes.evo_tasks], sft["checkpoint"])
    out.update(evo_tasks=evo["evo_tasks"], evo_rounds=evo["evo_rounds"])
    _judge(ctx, heldout, "evo", evo["checkpoint"], out)
    return out


def _judge(
    ctx: Context, heldout: list[dict[str, Any]], name: str, path: str, out: dict[str, Any]
) -> None:
    """The student ``name`` (``hf:<path>``) in the planner's closed loop on the held-out
    tasks, from its own first cut (``ves_<name>``) and, with ``heuristic_draft``, from the
    naive cut too (``ves_<name>_heuristic_draft``; ``ves_naive`` is that cut's own VES);
    into ``out``, published after each."""
    modes = ["model", "heuristic"] if ctx.sizes.heuristic_draft else ["model"]
    for mode in modes:
        with ctx.phases.phase("evaluation", len(heldout)) as tick:
            figures = ctx.loop.evaluate(
                heldout, f"hf:{path}", ctx.sizes.evaluation, tick, draft=mode
            )
        key = name if mode == "model" else f"{name}_heuristic_draft"
        out[f"ves_{key}"] = figures.pop("mean_ves")
        first_cut = figures.pop("naive_mean_ves")
        out["ves_naive" if mode == "heuristic" else f"draft_ves_{key}"] = first_cut
        out[f"parse_rate_{key}"] = figures["parse_rate"]
        if "draft_parse_rate" in figures:
            out[f"draft_parse_rate_{key}"] = figures["draft_parse_rate"]
        out[f"loop_{key}"] = figures
        ctx.publish(out)


def _judge_teachers(
    ctx: Context, heldout: list[dict[str, Any]], teachers: list[str]
) -> dict[str, Any]:
    """Every teacher in the same loop on the held-out tasks, repairing the naive cut."""
    budget, ves = ctx.sizes.evaluation, {}
    with ctx.phases.phase("teacher_evaluation", len(heldout) * len(teachers)) as tick:
        for name in teachers:
            ves[name] = ctx.loop.evaluate(heldout, name, budget, tick)["mean_ves"]
    best = max(ves, key=ves.get)
    return {"ves_teachers": ves, "best_teacher": best, "ves_best_teacher": ves[best]}


def untrained_checkpoint(rows: list[dict[str, Any]], sizes: Sizes, path: Path) -> str:
    """The SFT run's starting point: a named real base's own checkpoint, else the base
    :func:`run_sft` resolves from the same rows (same tokenizer) and seed (same weights)."""
    if is_named_base(sizes.base):
        return named_source(sizes.base)
    model, tokenizer = resolve_base(sizes.base, rows, seed=sizes.sft.seed)
    return str(save_checkpoint(model, tokenizer, path))


def run_evo(ctx: Context, tasks: list[dict[str, Any]], student: str) -> dict[str, Any]:
    """``evo_rounds`` rounds of: the current student's self-scored records → pairs → DPO
    from the current student. A round without pairs keeps the student and is reported."""
    rounds = []
    for number in range(1, ctx.sizes.evo_rounds + 1):
        figures, student = _evo_round(ctx, tasks, student, number)
        rounds.append(figures)
    return {"evo_tasks": len(tasks), "evo_rounds": rounds, "checkpoint": student}


def _evo_round(
    ctx: Context, tasks: list[dict[str, Any]], student: str, number: int
) -> tuple[dict[str, Any], str]:
    sizes, name = ctx.sizes, f"hf:{student}"
    budget = replace(sizes.evaluation, candidates=max(4, sizes.evaluation.candidates))
    with ctx.phases.phase("evo", len(tasks)) as tick:
        ctx.loop.new_records()  # skip anything not proposed by the student below
        plans = []
        for task in tasks:
            plans.append(ctx.loop.plan(task, name, budget))
            tick()
        records = ctx.loop.new_records()
        book = {t["id"]: t for t in tasks}
        pairs, stats = build_evo_pairs(
            records,
            book,
            margin=0.1,
            max_pairs_per_state=sizes.evo_pairs_per_state,
            proposers=[name],
        )
    figures: dict[str, Any] = {
        "round": number,
        "train_ves": _r(sum(p["ves"] for p in plans) / len(plans)),
        "records": len(records),
        "pairs": len(pairs),
        "pair_states": stats["states"],
    }
    if not pairs:
        figures["skipped"] = stats.get("empty_reason", "no pairs")
        return figures, student
    with ctx.phases.phase("evo_dpo") as tick:
        dpo = run_dpo(pairs, student, sizes.dpo, ctx.work / f"evo-{number}", callback=tick)
    figures["dpo"] = _train_summary(dpo)
    return figures, dpo["checkpoint"]


def _gui(ctx: Context) -> dict[str, Any]:
    """Episode SFT, then SOLAR and sparse GRPO online from the SFT checkpoint."""
    sizes, seeds, online = ctx.sizes, ctx.seeds, ctx.sizes.online
    train, long_train = gui_train_episodes(sizes, seeds)
    heldout = long_episodes(
        online.heldout_episodes, seeds["online_heldout_episodes"], online.min_steps
    )
    with ctx.phases.phase("gui_sft") as tick:
        rows = episode_rows(train)
        sft = run_sft(rows, sizes.gui_base, sizes.gui_sft, ctx.work / "gui_sft", callback=tick)
        start = sft["checkpoint"]
        sft_sr = step_sr(start, heldout, online.config())
    out: dict[str, Any] = {
        "train_episodes": len(train),
        "online_train_episodes": len(long_train),
        "heldout_episodes": len(heldout),
        "heldout_steps": sft_sr["steps"],
        "gui_sft_rows": len(rows),
        "gui_sft": _train_summary(sft),
        "step_sr_sft": sft_sr["step_sr"],
    }
    for kind in ("solar", "sparse"):
        with ctx.phases.phase(f"gui_{kind}", online.iterations) as tick:
            arm = online_arm(
                kind, start, long_train, heldout, online, ctx.work, seed=seeds["samples"], tick=tick
            )
        out[f"{kind}_curve"] = arm["curve"]
        out[f"step_sr_{kind}"] = arm["curve"][-1]
        out[f"{kind}_iterations"] = arm["iterations"]
    return out


GAPS = {
    "gap_sft_over_untrained": ("ves_sft", "ves_untrained"),
    "gap_evo_over_sft": ("ves_evo", "ves_sft"),
    "gap_solar_over_sparse": ("step_sr_solar", "step_sr_sparse"),
    "gap_sft_over_untrained_heuristic_draft": (
        "ves_sft_heuristic_draft",
        "ves_untrained_heuristic_draft",
    ),
    "gap_evo_over_sft_heuristic_draft": ("ves_evo_heuristic_draft", "ves_sft_heuristic_draft"),
}
"""The goals' gaps, taken within each seed; over seeds their mean and ``<key>_std`` say
whether a gap is larger than its own spread. The students' gaps are taken from their own
first cuts, and beside them from the naive cut (``*_heuristic_draft``, when judged)."""


def goal_gaps(figures: Mapping[str, Any]) -> dict[str, float]:
    """One run's :data:`GAPS` (higher minus lower figure) whose figures it has."""
    return {
        key: _r(figures[high] - figures[low])
        for key, (high, low) in GAPS.items()
        if high in figures and low in figures
    }


def run(
    sizes: Sizes = FULL,
    *,
    seed: int = 0,
    work_dir: Path | None = None,
    endpoints: list[TeacherEndpoint] | None = None,
    on_partial: Callable[[dict[str, Any]], None] = lambda figures: None,
) -> dict[str, Any]:
    """Run every phase once with seed ``seed``; the figures as a JSON-ready dict (those so
    far also go to ``on_partial`` after every repair step, with ``"partial": true``)."""
    started = time.perf_counter()
    seeds, sizes = seeds_for(seed), seeded(sizes, seed)
    endpoints = list(endpoints or ())
    sizes = replace(sizes, teachers=(*sizes.teachers, *(e.name for e in endpoints)))
    figures: dict[str, Any] = {"python_calibration_us": calibration_us()}
    with tempfile.TemporaryDirectory() as scratch, Progress() as bar:
        work = (work_dir or Path(scratch)) / f"seed-{seed}"
        phases = Phases(bar)

        def publish(so_far: dict[str, Any]) -> None:
            on_partial({**figures, **so_far, "partial": True, "runtime_s": dict(phases.seconds)})

        with planner_session(seed=seeds["plan"], endpoints=endpoints) as loop:
            figures.update(_repair(Context(sizes, seeds, loop, phases, work, publish)))
            publish({})
        figures.update(_gui(Context(sizes, seeds, loop, phases, work)))
    figures.update(goal_gaps(figures))
    figures["sizes"] = _jsonable(asdict(sizes))
    figures["seeds"] = seeds
    figures["runtime_s"] = {**phases.seconds, "total": round(time.perf_counter() - started, 2)}
    return figures


def run_seeds(
    sizes: Sizes = FULL,
    seeds: int = 1,
    *,
    work_dir: Path | None = None,
    on_partial: Callable[[dict[str, Any]], None] = lambda figures: None,
) -> dict[str, Any]:
    """:func:`run` for seeds 0 … ``seeds``−1; means under each key, std under ``<key>_std``.
    ``on_partial`` gets the seeds done so far and the running seed's figures so far."""
    from services.trainer.config import TrainerSettings

    endpoints = TrainerSettings().teachers
    runs: list[dict[str, Any]] = []
    for s in range(seeds):

        def running(figures: dict[str, Any], done: list[dict[str, Any]] = runs) -> None:
            on_partial({"partial": True, "seeds_done": len(done), "running_seed": figures})

        runs.append(run(sizes, seed=s, work_dir=work_dir, endpoints=endpoints, on_partial=running))
    return aggregate(runs)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def cli(
    json_path: Path = typer.Option(Path("trainer-bench.json"), "--json", help="Output file."),
    seeds: int = typer.Option(1, "--seeds", min=1, help="Runs, seeds 0 … K−1; mean and std."),
    quick: bool = typer.Option(False, "--quick", help="A test-sized run (seconds, not minutes)."),
    base: str | None = typer.Option(
        None, help="The repair student's base (default tiny:small; smollm2-135m: REAL sizes)."
    ),
    plot: Path | None = typer.Option(
        None, "--plot", help="The SOLAR vs sparse curves as a PNG (default: next to --json)."
    ),
    work_dir: Path | None = typer.Option(None, help="Keep checkpoints here (default: a temp dir)."),
    threads: int = typer.Option(DEFAULT_THREADS, help="torch threads (0: torch's default)."),
) -> None:
    """Run the learning ladder (repair SFT, evo, GUI SFT, SOLAR vs sparse online) as JSON."""

    def partial(figures: dict[str, Any]) -> None:
        json_path.write_text(json.dumps(_jsonable(figures), indent=2) + "\n")

    sizes = sizes_for(base, quick=quick)
    with torch_threads(threads) as used:
        results = run_seeds(sizes, seeds, work_dir=work_dir, on_partial=partial)
    results["torch_threads"] = used
    png = plot or json_path.with_suffix(".png")
    results["plot"] = str(png)
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    plot_curves(results, png)
    typer.echo(json.dumps(results, indent=2))
