"""The benchmark harnesses measure what they claim, on tiny runs."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import editbench, planner_bench
from benchmarks.verifier_bench import bench_task, bench_timeline, calibration_us, measure_inproc
from protocol.verifier import TaskIn, TimelineIn
from services.verifier.score import Verifier


def test_the_verifier_fixture_is_the_promised_shape() -> None:
    task = bench_task()
    timeline = bench_timeline(task)
    compiled = TaskIn.model_validate(task).to_task()
    report = Verifier(compiled).verify(TimelineIn.model_validate(timeline).to_timeline(compiled))
    assert len(timeline["shots"]) == 30 and len(task["ledger"]) == 12
    assert report.executable and not report.feasible
    assert measure_inproc(task, timeline, rounds=1, seconds=0.05) > 0
    assert calibration_us() > 0


def test_the_planner_harness_reports_every_figure(tmp_path: Path) -> None:
    rows = [editbench.generate_row(0, index) for index in range(3)]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(row) + "\n" for row in rows))
    figures = planner_bench.run(tasks, n=3, small_tier=2, exact_time_limit_s=20, first_tenth=False)
    assert figures["tasks"] == 3 and figures["small_tier_tasks"] == 2
    for key in (
        "mean_ves",
        "oneshot_mean_ves",
        "loop_gain",
        "p50_s",
        "p95_s",
        "mean_rounds",
        "naive_draft_mean_ves",
        "naive_repaired_mean_ves",
        "mean_upper_bound",
        "mean_gap_to_bound",
        "exact_mean_ves",
        "search_vs_exact",
        "exact_p95_s",
        "exact_proven_rate",
        "exact_cpu_p95_s",
        "load_1m",
    ):
        assert isinstance(figures[key], float), key
    assert 0 <= figures["mean_gap_to_bound"] <= figures["mean_upper_bound"]
    assert 0 <= figures["exact_proven_rate"] <= 1
    assert figures["mean_ves"] >= figures["oneshot_mean_ves"]
    assert figures["naive_repaired_mean_ves"] >= figures["naive_draft_mean_ves"]


def test_the_planner_harness_runs_the_small_tier_alone() -> None:
    figures = planner_bench.run(None, n=0, small_tier=2, exact_time_limit_s=20, first_tenth=True)
    assert "tasks" not in figures and figures["small_tier_tasks"] == 2
    for key in ("exact_mean_ves", "exact_proven_rate", "exact_cpu_p95_s", "exact_proven_cpu_s"):
        assert isinstance(figures[key], float), key
    assert figures["exact_cpu_p95_s"] > 0  # of 2 tasks, p95 is the slower one
    assert figures["exact_proven_cpu_s"] <= figures["exact_cpu_p95_s"]
    assert figures["python_calibration_us"] > 0 and figures["load_1m"] >= 0
    assert figures["warm_up"] and figures["ready_s"] > 0  # a fresh planner, warmed up
    assert figures["first_plan_s"] > 0 and figures["tenth_plan_s"] > 0
