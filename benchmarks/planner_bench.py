"""``python -m benchmarks planner``: the closed loop on EditBench tasks, against a one-shot draft.

Each task goes through the real product path: ``POST /v1/plan`` on the planner app (records
written to a scratch SQLite file), whose every verdict comes from a verifier served by
uvicorn on localhost. Figures:

- ``mean_ves``: mean final VES over all tasks; ``oneshot_mean_ves``: the same tasks' drafts
  alone (no loop), from the same runs; ``loop_gain`` the difference.
- ``feasible_rate``: share of tasks flagged feasible that end feasible.
- ``infeasible_flagged_rate``: share of tasks built infeasible whose plan ends infeasible and
  names the unmet hard constraints.
- ``p50_s`` / ``p95_s``: wall time per task, draft and loop and recording included.
- ``mean_rounds``: repair rounds per task (accepted or not).
- ``naive_draft_mean_ves`` / ``naive_repaired_mean_ves``: the loop in repair mode from a naive
  one-shot cut (:func:`~services.planner.proposers.simple_draft.simple_draft`: the most
  relevant clips, all cuts, no beat grid) instead of the search proposer's own draft.
- ``mean_upper_bound`` / ``mean_gap_to_bound``: over the tasks flagged feasible, the proven
  VES upper bound the plan answer carries and how far the plan is below it
  (:mod:`services.verifier.bound`).
- the small tier (``--small-tier N`` tasks of at most 12 clips and 10 shots, built by
  :mod:`benchmarks.editbench_small`): ``exact_mean_ves`` (the exact solver's VES, verified),
  ``search_vs_exact`` (mean of the planner's VES ÷ the exact VES), ``exact_p95_s`` (solver
  wall time) and ``exact_proven_rate`` (share proven optimal within ``--exact-time-limit``
  of wall time); ``exact_cpu_p95_s`` and ``exact_proven_cpu_s`` (the most CPU time any
  proven task took) read the same solves by process CPU time, which a loaded machine does
  not inflate. ``--n 0`` runs the small tier alone (no tasks file needed).
- ``first_plan_s`` / ``tenth_plan_s``: a planner started fresh by uvicorn (as ``refinery
  up`` starts it, relevance ``auto``), once its ``/readyz`` answers, plans the small tier's
  first ten tasks over HTTP (ten different tasks: MiniLM embeds each new pool's captions,
  so planning one task ten times would flatter the tenth): the first and the tenth plan's
  wall time, ``median_plan_s`` of all ten, and ``ready_s`` from launch to ready (the
  start-up warm-up, ``REFINERY_WARM_UP``, included; ``--no-warm-up`` measures without it).
- ``python_calibration_us`` and ``load_1m`` (the 1-minute load average) state the machine's
  conditions with every run.
- ``relevance``: the backend ``search`` ranked clips with (``--relevance``, TF-IDF unless
  asked, so the figures do not depend on which extras are installed; ``auto`` is MiniLM when
  the ``relevance`` extra is). A MiniLM run's first plan includes loading the model.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import typer
from fastapi.testclient import TestClient
from rich.progress import Progress

from benchmarks import editbench_small
from benchmarks.verifier_bench import calibration_us, serve
from clients.verifier import VerifierClient
from protocol.verifier import TaskIn
from protocol.verifier.timeline import timeline_payload
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.planner.exact.solver import solve
from services.planner.proposers.simple_draft import simple_draft
from services.planner.relevance import backend
from services.verifier.score import Verifier


def _rows(path: Path, n: int) -> list[dict[str, Any]]:
    rows = []
    with path.open() as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
            if len(rows) >= n:
                break
    return rows


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _simple_draft(task_json: dict[str, Any]) -> dict[str, Any]:
    task = TaskIn.model_validate(task_json).to_task()
    return timeline_payload(simple_draft(task, seed=0))


def _small_tier(
    planner: TestClient, rows: list[dict[str, Any]], proposer: str, seed: int, limit_s: float
) -> dict[str, Any]:
    """The planner against the exact solver on small tasks (both verified the same way)."""
    ratios, exact, times, cpu, proven = [], [], [], [], []
    for row in rows:
        body = {"task": row["task"], "options": {"proposer": proposer, "seed": seed}}
        answer = planner.post("/v1/plan", json=body)
        answer.raise_for_status()
        task = TaskIn.model_validate(row["task"]).to_task()
        started = time.process_time()
        found = solve(task, time_limit_s=limit_s)
        cpu.append(time.process_time() - started)
        ves = Verifier(task).verify(found.timeline).ves if found.timeline else 0.0
        exact.append(ves)
        times.append(found.elapsed_s)
        proven.append(found.proven)
        ratios.append(answer.json()["ves"] / ves if ves > 0 else 1.0)
    return {
        "small_tier_tasks": len(rows),
        "exact_mean_ves": round(statistics.fmean(exact), 4),
        "search_vs_exact": round(statistics.fmean(ratios), 4),
        "search_below_exact": sum(r < 1 - 1e-4 for r in ratios),
        "exact_p95_s": round(_percentile(times, 0.95), 3),
        "exact_proven_rate": round(sum(proven) / len(rows), 4),
        "exact_cpu_p95_s": round(_percentile(cpu, 0.95), 3),
        "exact_proven_cpu_s": round(
            max((c for c, p in zip(cpu, proven, strict=True) if p), default=0.0), 3
        ),
    }


def _bound_figures(feasible: list[dict[str, Any]]) -> dict[str, Any]:
    if not feasible:
        return {"mean_upper_bound": None, "mean_gap_to_bound": None}
    return {
        "mean_upper_bound": round(statistics.fmean(t["upper_bound"] for t in feasible), 4),
        "mean_gap_to_bound": round(
            statistics.fmean(t["upper_bound"] - t["ves"] for t in feasible), 4
        ),
    }


def _summary(per_task: list[dict[str, Any]], proposer: str, relevance: str) -> dict[str, Any]:
    feasible = [t for t in per_task if t["flagged_feasible"]]
    infeasible = [t for t in per_task if not t["flagged_feasible"]]
    times = [t["seconds"] for t in per_task]
    mean_ves = statistics.fmean(t["ves"] for t in per_task)
    oneshot = statistics.fmean(t["draft_ves"] for t in per_task)
    return {
        "tasks": len(per_task),
        "proposer": proposer,
        "relevance": backend(relevance),
        "mean_ves": round(mean_ves, 4),
        "oneshot_mean_ves": round(oneshot, 4),
        "loop_gain": round(mean_ves - oneshot, 4),
        "feasible_rate": round(sum(t["feasible"] for t in feasible) / len(feasible), 4)
        if feasible
        else None,
        "infeasible_flagged_rate": round(
            sum(not t["feasible"] and bool(t["named"]) for t in infeasible) / len(infeasible), 4
        )
        if infeasible
        else None,
        "feasible_tasks": len(feasible),
        "infeasible_tasks": len(infeasible),
        "p50_s": round(_percentile(times, 0.50), 4),
        "p95_s": round(_percentile(times, 0.95), 4),
        "max_s": round(max(times), 4),
        "mean_rounds": round(statistics.fmean(t["rounds"] for t in per_task), 3),
        "naive_draft_mean_ves": round(statistics.fmean(t["naive_draft_ves"] for t in per_task), 4),
        "naive_repaired_mean_ves": round(
            statistics.fmean(t["naive_repaired_ves"] for t in per_task), 4
        ),
        **_bound_figures(feasible),
        "misses": [t["task_id"] for t in feasible if not t["feasible"]][:20],
    }


def _plan_row(planner: TestClient, row: dict[str, Any], proposer: str, seed: int) -> dict:
    """One task planned from scratch and from a naive draft, with its figures."""
    body = {"task": row["task"], "options": {"proposer": proposer, "seed": seed}}
    start = time.perf_counter()
    answer = planner.post("/v1/plan", json=body)
    elapsed = time.perf_counter() - start
    answer.raise_for_status()
    plan = answer.json()
    naive = _simple_draft(row["task"])
    repair = planner.post("/v1/plan", json={**body, "timeline": naive})
    repair.raise_for_status()
    return {
        "upper_bound": plan["ves_upper_bound"],
        "naive_draft_ves": repair.json()["draft_ves"],
        "naive_repaired_ves": repair.json()["ves"],
        "task_id": plan["task_id"],
        "flagged_feasible": row["feasible"],
        "ves": plan["ves"],
        "draft_ves": plan["draft_ves"],
        "feasible": plan["feasible"],
        "named": plan["infeasible_constraints"],
        "rounds": len(plan["rounds"]),
        "seconds": elapsed,
    }


def run(
    tasks: Path | None,
    *,
    n: int,
    proposer: str = "search",
    seed: int = 0,
    relevance: str = "tfidf",
    small_tier: int = 50,
    exact_time_limit_s: float = 10.0,
    first_tenth: bool = True,
    warm_up: bool = True,
) -> dict[str, Any]:
    """The loop on ``tasks``' first ``n`` rows, then the small tier (``n`` = 0: it alone)."""
    if n > 0 and tasks is None:
        raise ValueError("a tasks file is needed for n > 0")
    rows = _rows(tasks, n) if tasks is not None and n > 0 else []
    small: dict[str, Any] = {}
    per_task: list[dict[str, Any]] = []
    with (
        serve("services.verifier.app:app", workers=1) as url,
        tempfile.TemporaryDirectory() as scratch,
        VerifierClient(url) as verifier,
    ):
        settings = PlannerSettings(
            data_dir=Path(scratch),
            media_root=Path(scratch),
            log_level="WARNING",
            relevance=relevance,
        )
        with TestClient(build_app(settings, verifier=verifier)) as planner, Progress() as bar:
            progress = bar.add_task("planning", total=len(rows))
            for row in rows:
                per_task.append(_plan_row(planner, row, proposer, seed))
                bar.advance(progress)
            if small_tier > 0:
                tier = list(editbench_small.small_tier(small_tier, seed))
                small = _small_tier(planner, tier, proposer, seed, exact_time_limit_s)
    summary = _summary(per_task, proposer, relevance) if per_task else {"proposer": proposer}
    if first_tenth:
        ten = [row["task"] for row in editbench_small.small_tier(10, seed)]
        small.update(first_and_tenth(ten, warm_up=warm_up))
    return {**summary, **small, **_conditions()}


def first_and_tenth(tasks: list[dict[str, Any]], *, warm_up: bool = True) -> dict[str, Any]:
    """A fresh planner process plans ``tasks`` (ten) once ready (see the module)."""
    with (
        serve("services.verifier.app:app", workers=1) as verifier_url,
        tempfile.TemporaryDirectory() as scratch,
    ):
        env = {"REFINERY_VERIFIER_URL": verifier_url, "REFINERY_DATA_DIR": scratch,
               "REFINERY_MEDIA_ROOT": scratch, "REFINERY_RELEVANCE": "auto",
               "REFINERY_WARM_UP": str(warm_up).lower()}  # fmt: skip
        launched = time.perf_counter()
        with serve("services.planner.app:app", workers=1, env=env) as url:
            while httpx.get(url + "/readyz", timeout=5).status_code != 200:
                if time.perf_counter() - launched > 300:
                    raise RuntimeError("the planner was not ready within 300 s")
                time.sleep(0.05)
            ready_s = time.perf_counter() - launched
            times = []
            for task in tasks:
                started = time.perf_counter()
                answer = httpx.post(url + "/v1/plan", json={"task": task}, timeout=600)
                answer.raise_for_status()
                times.append(time.perf_counter() - started)
    return {"first_plan_s": round(times[0], 3), "tenth_plan_s": round(times[-1], 3),
            "median_plan_s": round(statistics.median(times), 3), "ready_s": round(ready_s, 2),
            "warm_up": warm_up}  # fmt: skip


def _conditions() -> dict[str, Any]:
    return {"python_calibration_us": calibration_us(), "load_1m": round(os.getloadavg()[0], 2)}


def cli(
    tasks: Path | None = typer.Option(
        None, help="EditBench JSONL (python -m benchmarks editbench); not needed with --n 0."
    ),
    n: int = typer.Option(200, help="Tasks from the top of the file (0: the small tier only)."),
    json_path: Path = typer.Option(Path("planner-bench.json"), "--json", help="Output file."),
    proposer: str = typer.Option("search", help="Proposer to benchmark."),
    seed: int = typer.Option(0, help="Planning seed."),
    relevance: str = typer.Option(
        "tfidf", help="tfidf, minilm or auto: how search ranks clips (REFINERY_RELEVANCE)."
    ),
    small_tier: int = typer.Option(
        50, "--small-tier", help="Small tasks to compare with the exact solver (0: none)."
    ),
    exact_time_limit: float = typer.Option(10.0, help="The exact solver's limit per task (s)."),
    first_tenth: bool = typer.Option(
        True, help="Time a fresh planner's first and tenth plan (first_plan_s, tenth_plan_s)."
    ),
    warm_up: bool = typer.Option(True, help="That fresh planner warms up at start-up."),
) -> None:
    """Run the planner's closed loop on EditBench tasks and write the figures as JSON."""
    results = run(
        tasks,
        n=n,
        proposer=proposer,
        seed=seed,
        relevance=relevance,
        small_tier=small_tier,
        exact_time_limit_s=exact_time_limit,
        first_tenth=first_tenth,
        warm_up=warm_up,
    )
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps(results, indent=2))
