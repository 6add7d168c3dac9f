"""``python -m benchmarks trainer-select``: choose the student base on the train side only.

For each ``--base``, one seed of the trainer benchmark's train half, with nothing held out
ever built:

- **repair**: the teachers plan the train tasks, repair SFT trains on the verifier-best
  trajectories (once per ``--epochs``), and the untrained and SFT students are judged in the
  planner's loop on those same train tasks (``train_ves_untrained``,
  ``train_ves_sft_<epochs>``, the rounds accepted) and on validation tasks no teacher saw,
  drawn from the train side's own seed family (``val_ves_*``; EditBench seed
  :data:`VALIDATION_SEED` + 100·s, never the held-out one);
- **GUI**: GUI SFT on the train episodes, then SOLAR and sparse GRPO online, both judged on
  the long train episodes they learn from (``train_solar_curve``, ``train_sparse_curve``)
  and on as many long validation episodes as are held out, drawn from their own seed
  (:data:`VALIDATION_EPISODE_SEED` + 100·s, never the held-out one; ``val_*_curve``).

``--train-tasks``, ``--teacher``, ``--select`` and ``--validation-tasks`` change the repair
side's data (how many train tasks, which teachers, which of their steps become rows, how many
validation tasks judge the students), and
``--online-train-episodes`` / ``--validation-episodes`` the GUI side's (how many long episodes
the online arms learn on, how many judge them), so a change to the benchmark's data is
weighed on these figures too. ``--pg-lr`` and ``--pg-epochs`` set
both online arms' update (the benchmark's :data:`~benchmarks.trainer_bench_online.ONLINE_PG` is
chosen with them), and ``--no-repair`` / ``--no-gui`` skip a side. ``--evo`` runs the evo
rounds on the repair side too (from the SFT student of the first ``--epochs``) and judges
the evo student like the others (``train_ves_evo``, ``val_ves_evo``), with ``--dpo-lr`` and
``--dpo-beta`` setting its DPO update and ``--evo-tasks`` how many train tasks a round plans.
``--patience`` sets the evaluation loop's (and the evo rounds') ``options.patience``.
``--self-taught R`` makes the untrained student its own (``hf:``) teacher: it plans the train
tasks with the teachers' budget, repair SFT starts from it and learns its verifier-replayed
trajectories (rejection sampling through the verifier), and the named teachers' rows only
train its tokenizer, so the twin is the benchmark's own. With R > 1 the rounds iterate: each
round's student plans the train tasks again and the next round starts from it
(``*_self_taught_<r>``: round r's student; ``*_sft_<epochs>``: the last round's).

The trainer benchmark's held-out figures (``python -m benchmarks trainer``) then come from
the base chosen here; this harness never reads them.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer
from rich.progress import Progress

from benchmarks.cpu_threads import DEFAULT_THREADS, torch_threads
from benchmarks.trainer_bench import (
    FULL,
    QUICK,
    SEEDS,
    Context,
    Phases,
    Sizes,
    editbench_tasks,
    gui_train_episodes,
    run_evo,
    seeded,
    seeds_for,
    teach,
    train_tasks,
    untrained_checkpoint,
)
from benchmarks.trainer_bench_gui import step_sr
from benchmarks.trainer_bench_loop import LoopRunner, planner_session
from benchmarks.trainer_bench_online import long_episodes, online_arm
from protocol.trainer import RepairSelect
from services.trainer.datasets import build_repair_sft
from services.trainer.episodes import episode_rows
from services.trainer.runners import run_sft

__all__ = ["VALIDATION_EPISODE_SEED", "VALIDATION_SEED", "select"]

VALIDATION_SEED = 5
"""EditBench seed of the validation tasks (the held-out tasks use 2, the train tasks 1)."""
VALIDATION_EPISODE_SEED = 15
"""Seed of the long validation episodes (the online arms' train episodes use 13, the held-out
ones 14)."""


def _shifted_like(base: int, seeds: dict[str, int], key: str) -> int:
    """A validation seed moved by run s as far as the train data's ``key`` seed is."""
    return base + seeds[key] - SEEDS[key]


def _repair(
    loop: LoopRunner,
    sizes: Sizes,
    seeds: dict[str, int],
    epochs: list[int],
    work: Path,
    validation_tasks: int,
    evo: bool,
    self_taught: int,
) -> dict[str, Any]:
    train = train_tasks(sizes, seeds)
    seed = _shifted_like(VALIDATION_SEED, seeds, "train_tasks")
    validation = editbench_tasks(seed, validation_tasks, sizes.max_clips)
    records = teach(loop, sizes, train)["records"]
    book = {t["id"]: t for t in train}
    rows, stats = build_repair_sft(records, book, controls=sizes.controls, select=sizes.select)
    students = {"untrained": untrained_checkpoint(rows, sizes, work / "untrained")}
    sft_base = sizes.base
    if self_taught:  # the teachers' rows only trained the tokenizer
        rows, stats, sft_base = _self_taught(loop, sizes, train, students, self_taught, work)
    out: dict[str, Any] = {
        "train_tasks": len(train),
        "validation_tasks": len(validation),
        "repair_sft_rows": len(rows),
        "teacher_wins": stats.get("teacher_wins"),
        "select": sizes.select,
        "self_taught": self_taught,
        "self_taught_rows": stats.get("rows_per_round"),
        "patience": sizes.evaluation.patience,
    }
    for count in epochs:
        hyper = replace(sizes.sft, epochs=count)
        sft = run_sft(rows, sft_base, hyper, work / f"sft-{count}")
        students[f"sft_{count}"] = sft["checkpoint"]
        out[f"sft_{count}_loss"] = round(sft["final_loss"], 4)
    if evo:
        ctx = Context(sizes, seeds, loop, Phases(Progress(disable=True)), work)
        rounds = run_evo(ctx, train[: sizes.evo_tasks], students[f"sft_{epochs[0]}"])
        students["evo"] = rounds.pop("checkpoint")
        out["evo_rounds"], out["evo_tasks"] = rounds["evo_rounds"], rounds["evo_tasks"]
        out["dpo_lr"], out["dpo_beta"] = sizes.dpo.lr, sizes.dpo.beta
    for name, path in students.items():
        for split, tasks in (("train", train), ("val", validation)):
            figures = loop.evaluate(tasks, f"hf:{path}", sizes.evaluation, tick=lambda: None)
            out[f"{split}_ves_naive"] = figures["naive_mean_ves"]
            out[f"{split}_ves_{name}"] = figures["mean_ves"]
            out[f"{split}_accepted_{name}"] = figures["accepted_rounds"]
            out[f"{split}_improving_{name}"] = figures["improving_share"]
    return out


def _self_taught(
    loop: LoopRunner,
    sizes: Sizes,
    train: list[dict[str, Any]],
    students: dict[str, str],
    rounds: int,
    work: Path,
) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """(rows, stats, start) of the last of ``rounds`` self-taught rounds: each round's student
    plans the train tasks and the next starts from it, trained on its own trajectories (the
    earlier rounds with the benchmark's epochs, the last once per ``--epochs``); the
    students of the earlier rounds join ``students`` as ``self_taught_<r>``, and the stats
    count every round's rows (``rows_per_round``)."""
    student, counts = students["untrained"], []
    for number in range(1, rounds):
        rows, _ = _own_rows(loop, sizes, train, student)
        student = run_sft(rows, student, sizes.sft, work / f"self-taught-{number}")["checkpoint"]
        students[f"self_taught_{number}"] = student
        counts.append(len(rows))
    rows, stats = _own_rows(loop, sizes, train, student)
    return rows, {**stats, "rows_per_round": [*counts, len(rows)]}, student


def _own_rows(
    loop: LoopRunner, sizes: Sizes, train: list[dict[str, Any]], student: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Repair SFT's rows from ``student`` as its own (``hf:``) teacher on the train tasks: its
    verifier-replayed trajectories, rejection sampling through the verifier."""
    own = replace(sizes, teachers=(f"hf:{student}",), controls=())
    records = teach(loop, own, train)["records"]
    rows, stats = build_repair_sft(records, {t["id"]: t for t in train}, select=sizes.select)
    if not rows:
        raise RuntimeError("--self-taught: the student's own trajectories raised VES nowhere")
    return rows, stats


def _gui(
    sizes: Sizes, seeds: dict[str, int], work: Path, validation_episodes: int
) -> dict[str, Any]:
    online = sizes.online
    episodes, train = gui_train_episodes(sizes, seeds)
    seed = _shifted_like(VALIDATION_EPISODE_SEED, seeds, "online_train_episodes")
    validation = long_episodes(validation_episodes, seed, online.min_steps)
    sft = run_sft(episode_rows(episodes), sizes.gui_base, sizes.gui_sft, work / "gui_sft")
    out: dict[str, Any] = {
        "gui_sft_loss": round(sft["final_loss"], 4),
        "pg_lr": online.pg.lr,
        "pg_epochs": online.pg.epochs,
        "online_train_episodes": len(train),
        "validation_episodes": len(validation),
        "validation_steps": sum(len(e.steps) for e in validation),
        "train_step_sr_sft": step_sr(sft["checkpoint"], train, online.config())["step_sr"],
        "val_step_sr_sft": step_sr(sft["checkpoint"], validation, online.config())["step_sr"],
    }
    for kind in ("solar", "sparse"):
        arm = online_arm(
            kind,
            sft["checkpoint"],
            train,
            train,
            online,
            work,
            seed=seeds["samples"],
            also={"val": validation},
        )
        out[f"train_{kind}_curve"] = arm["curve"]
        out[f"val_{kind}_curve"] = arm["curves"]["val"]
    return out


def select(
    sizes: Sizes,
    bases: list[str],
    *,
    seed: int = 0,
    epochs: list[int] | None = None,
    gui: bool = True,
    repair: bool = True,
    evo: bool = False,
    validation_tasks: int | None = None,
    validation_episodes: int | None = None,
    self_taught: int = 0,
) -> dict[str, dict[str, Any]]:
    """The train-side figures of each base (see the module doc), seed ``seed``; repair SFT
    runs once per entry of ``epochs`` (default: the benchmark's own), and the students are
    judged on ``validation_tasks`` validation tasks and the online arms on
    ``validation_episodes`` long validation episodes (default: as many as are held out).
    ``repair`` and ``gui`` switch either side off; ``evo`` adds the evo rounds from the first
    SFT student to the repair side; ``self_taught`` (rounds) trains repair SFT from the
    untrained student on its own verifier-replayed trajectories instead of the teachers'."""
    seeds = seeds_for(seed)
    validation = validation_tasks or sizes.heldout_tasks
    episodes = validation_episodes or sizes.online.heldout_episodes
    runs = epochs or [sizes.sft.epochs]
    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for base in bases:
            based = replace(seeded(sizes, seed), base=base, gui_base=base)
            work = Path(scratch) / base.replace(":", "-")
            figures: dict[str, Any] = {}
            if repair:
                with planner_session(seed=seeds["plan"]) as loop:
                    figures = _repair(loop, based, seeds, runs, work, validation, evo, self_taught)
            if gui:
                figures.update(_gui(based, seeds, work, episodes))
            out[base] = figures
    return out


def _with(hyper: Any, **changes: Any) -> Any:
    """``hyper`` with every change that is not ``None``."""
    return replace(hyper, **{k: v for k, v in changes.items() if v is not None})


def _sized(base: Sizes, *, pg: dict[str, Any], **changes: Any) -> Sizes:
    """``base`` with every change that is not ``None``; a dict changes that field's fields
    (``pg``: the online arms' update)."""
    fields = {
        k: _with(getattr(base, k), **v) if isinstance(v, dict) else v for k, v in changes.items()
    }
    fields["online"] = replace(fields.get("online", base.online), pg=_with(base.online.pg, **pg))
    return _with(base, **fields)


def cli(
    bases: list[str] = typer.Option(["tiny", "tiny:small"], "--base", help="Student bases."),
    json_path: Path = typer.Option(Path("trainer-select.json"), "--json", help="Output file."),
    seed: int = typer.Option(0, "--seed", help="The trainer benchmark's seed to run."),
    epochs: list[int] = typer.Option([], "--epochs", help="Repair SFT epochs (default: FULL's)."),
    gui: bool = typer.Option(True, "--gui/--no-gui", help="Run the GUI side."),
    repair: bool = typer.Option(True, "--repair/--no-repair", help="Run the repair side."),
    evo: bool = typer.Option(False, "--evo/--no-evo", help="Add evo rounds to the repair side."),
    quick: bool = typer.Option(False, "--quick", help="A test-sized run (seconds, not minutes)."),
    train_tasks: int | None = typer.Option(
        None, "--train-tasks", min=1, help="Repair train tasks (default: the benchmark's)."
    ),
    teachers: list[str] = typer.Option([], "--teacher", help="Repair teachers, by name."),
    select_rows: RepairSelect | None = typer.Option(None, "--select", help="Repair SFT's rows."),
    validation_tasks: int | None = typer.Option(
        None, "--validation-tasks", min=1, help="Validation tasks (default: as many as held out)."
    ),
    validation_episodes: int | None = typer.Option(
        None, "--validation-episodes", min=1, help="Validation episodes (default: as held out)."
    ),
    evo_tasks: int | None = typer.Option(None, "--evo-tasks", min=1, help="Tasks a round plans."),
    self_taught: int = typer.Option(0, min=0, help="Rounds of SFT on the student's own plans."),
    online_train_episodes: int | None = typer.Option(
        None, "--online-train-episodes", min=1, help="Long episodes the online arms learn on."
    ),
    dpo_lr: float | None = typer.Option(None, "--dpo-lr", min=0.0, help="Evo's DPO lr."),
    dpo_beta: float | None = typer.Option(None, "--dpo-beta", min=0.0, help="Evo's DPO beta."),
    pg_lr: float | None = typer.Option(None, "--pg-lr", min=0.0, help="Online update's lr."),
    pg_epochs: int | None = typer.Option(None, "--pg-epochs", min=1, help="Its epochs."),
    patience: int | None = typer.Option(None, "--patience", min=1, help="The loop's patience."),
    threads: int = typer.Option(DEFAULT_THREADS, help="torch threads (0: torch's default)."),
) -> None:
    """Train-side figures per student base; every option left out keeps the benchmark's."""
    sizes = _sized(
        QUICK if quick else FULL,
        train_tasks=train_tasks,
        select=select_rows,
        evo_tasks=evo_tasks,
        teachers=tuple(teachers) or None,
        dpo={"lr": dpo_lr, "beta": dpo_beta},
        evaluation={"patience": patience},
        online={"train_episodes": online_train_episodes},
        pg={"lr": pg_lr, "epochs": pg_epochs},
    )
    with torch_threads(threads):
        results = select(
            sizes,
            bases,
            seed=seed,
            epochs=epochs,
            gui=gui,
            repair=repair,
            evo=evo,
            validation_tasks=validation_tasks,
            validation_episodes=validation_episodes,
            self_taught=self_taught,
        )
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps(results, indent=2))
