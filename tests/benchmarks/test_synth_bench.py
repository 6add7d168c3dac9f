"""The synth benchmark reports every figure, in range, on a tiny run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.synth_bench import bfcl_model_solver, run
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
    assert figures["bfcl_solver_seconds_per_question"] > 0
    assert "bfcl_model_solver_accuracy" not in figures  # the model solver is opt-in
    assert figures["examples_per_s"] > 0 and figures["python_calibration_us"] > 0
    assert figures["sample_us"] > 0 and figures["simple_check_us"] > 0
    assert 0 <= figures["mean_refine_rounds"] <= figures["max_refine_rounds"]
    assert set(figures["category_shares"]) == set(CATEGORIES)
    assert abs(sum(figures["category_shares"].values()) - 1) < 1e-3


def test_the_synth_command_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "synth.json"
    arguments = ["--n", "10", "--catalogs", "library", "--per-function", "2", "--natural-n", "0"]
    result = CliRunner().invoke(app, ["synth", *arguments, "--json", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert figures["n"] == 10 and figures["catalogs"]["library"]["n"] == 12
    assert set(figures["catalogs"]) == {"library"}


def test_a_model_solver_is_judged_beside_the_rule_reader(tiny_checkpoint: Path) -> None:
    pytest.importorskip("bfcl_eval")
    figures = bfcl_model_solver(str(tiny_checkpoint), n=2, batch_size=2)
    categories = {"simple", "multiple", "parallel", "parallel_multiple"}
    assert figures["bfcl_model_solver"] == str(tiny_checkpoint)
    assert set(figures["bfcl_model_solver_accuracy"]) == categories | {"overall"}
    assert figures["bfcl_model_solver_questions"] == {**dict.fromkeys(categories, 2), "overall": 8}
    rules = figures["bfcl_solver_accuracy_same_questions"]
    assert set(rules) == categories | {"overall"} and all(0 <= v <= 1 for v in rules.values())
    assert figures["model_solver_seconds_per_question"] > 0 and figures["model_solver_threads"] == 1


def test_the_synth_command_takes_a_model_solver(tiny_checkpoint: Path, tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    out = tmp_path / "synth.json"
    args = ["synth", "--n", "4", "--natural-n", "0", "--json", str(out)]
    args += ["--model-solver", str(tiny_checkpoint)]
    result = CliRunner().invoke(app, [*args, "--model-solver-n", "1"])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert figures["bfcl_model_solver_questions"]["overall"] == 4
    assert "bfcl_solver_accuracy" in figures and "model_solver_seconds_per_question" in figures
