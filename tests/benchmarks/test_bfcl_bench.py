"""``python -m benchmarks bfcl``: any checkpoint on BFCL's single-turn categories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.bfcl_bench import measure

pytest.importorskip("bfcl_eval")
pytest.importorskip("xgrammar")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    from services.trainer.models import build_tiny, save_checkpoint

    model, tokenizer = build_tiny(["get the area of a triangle", '{"name":"f"}'] * 8, seed=0)
    folder = save_checkpoint(model, tokenizer, tmp_path_factory.mktemp("bfcl") / "tiny")
    return str(folder)


def test_figures_per_category_and_overall(checkpoint: str):
    figures = measure(checkpoint, ("simple", "live_simple"), n=2, batch_size=2, progress=False)
    assert figures["total"] == {"simple": 2, "live_simple": 2, "overall": 4}
    assert set(figures["accuracy"]) == {"simple", "live_simple", "overall"}
    correct = figures["correct"]
    assert correct["overall"] == correct["simple"] + correct["live_simple"]
    assert figures["accuracy"]["overall"] == round(correct["overall"] / 4, 4)
    assert len(figures["wrong"]["simple"]) == 2 - correct["simple"]
    assert figures["seconds_per_question"] > 0 and figures["half"] == "held_out"


def test_the_command_writes_the_json(checkpoint: str, tmp_path: Path):
    out = tmp_path / "out.json"
    args = ["bfcl", "--model", checkpoint, "--categories", "parallel", "--n", "1"]
    result = CliRunner().invoke(app, [*args, "--threads", "1", "--json", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert figures["model"] == checkpoint and figures["n"] == 1
    assert figures["total"]["parallel"] == 1 and "python_calibration_us" in figures
    assert "parallel:" in result.output


def test_an_unknown_category_is_one_line(checkpoint: str):
    result = CliRunner().invoke(app, ["bfcl", "--model", checkpoint, "--categories", "nope"])
    assert result.exit_code == 2 and "unknown category 'nope'" in result.output
