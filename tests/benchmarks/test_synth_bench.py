"""The synth benchmark reports every figure, in range, on a tiny run."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.synth_bench import run
from services.synth.calls import CATEGORIES


def test_the_synth_harness_reports_every_figure() -> None:
    figures = run(n=40, seed=1)
    assert figures["n"] == 40 and figures["seed"] == 1
    for key in (
        "acceptance_rate",
        "baseline_acceptance_rate",
        "function_usage_entropy",
        "baseline_function_usage_entropy",
        "duplicate_query_rate",
        "label_leak_rate",
        "baseline_label_leak_rate",
        "distinct_2",
        "baseline_distinct_2",
        "stage1_refined_rate",
    ):
        assert 0.0 <= figures[key] <= 1.0, key
    assert figures["acceptance_rate"] >= figures["baseline_acceptance_rate"]
    assert figures["acceptance_rate"] >= 0.8
    assert figures["label_leak_rate"] <= 0.02
    assert figures["mean_query_words"] > 5 and figures["baseline_mean_query_words"] > 5
    held_out = figures["bfcl_solver_accuracy"]
    assert set(held_out) == {"simple", "multiple", "parallel", "parallel_multiple"}
    assert all(0.0 <= v <= 1.0 for v in held_out.values()) and held_out["simple"] > 0.2
    assert figures["examples_per_s"] > 0 and figures["python_calibration_us"] > 0
    assert figures["sample_us"] > 0 and figures["simple_check_us"] > 0
    assert 0 <= figures["mean_refine_rounds"] <= figures["max_refine_rounds"]
    assert set(figures["category_shares"]) == set(CATEGORIES)
    assert abs(sum(figures["category_shares"].values()) - 1) < 1e-3


def test_the_synth_command_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "synth.json"
    result = CliRunner().invoke(app, ["synth", "--n", "10", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["n"] == 10
