"""``python -m benchmarks toolloop``: synth's export → the trainer's SFT → BFCL, per arm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmarks import toolloop_bench
from benchmarks.__main__ import app
from benchmarks.toolloop_bench import (
    ARMS,
    Ladder,
    assert_no_bfcl,
    export_rows,
    reader_rows,
    run_seed,
    summarise,
)
from services.synth.model_reader import training_row

pytest.importorskip("bfcl_eval")


@pytest.mark.parametrize("arm", sorted(a for a in ARMS if "rank_queries" not in ARMS[a]))
def test_each_arm_exports_reader_rows_free_of_bfcl(arm: str, tmp_path: Path):
    rows = reader_rows(export_rows(arm, examples=6, seed=1, data_dir=tmp_path))
    assert len(rows) == 6
    assert_no_bfcl(rows, ("simple", "parallel"))
    for row in rows:
        assert row["prompt"][0]["content"].startswith("You call functions.")
        assert isinstance(json.loads(row["completion"][0]["content"]), list)


def test_the_ladders_mix_reaches_the_synth_job(tmp_path: Path):
    rows = reader_rows(
        export_rows("filter", examples=4, seed=1, data_dir=tmp_path, mix={"parallel": 1.0})
    )
    for row in rows:  # parallel: one function called several times
        calls = json.loads(row["completion"][0]["content"])
        assert len(calls) >= 2 and len({call["name"] for call in calls}) == 1


def test_the_ladder_trains_on_the_categories_it_judges():
    from services.synth.sampling import normalise_mix

    shares = normalise_mix(Ladder().mix)
    assert shares["irrelevance"] == 0  # no AST question wants the answer []
    assert shares["parallel"] == shares["parallel_multiple"] == 2 * shares["simple"]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--mix", "parallel"),
        ("--mix", "parallel=many"),
        ("--mix", "nonsense=1"),
        ("--half", "both"),
        ("--arms", "toolloop,bogus"),
    ],
)
def test_an_option_the_ladder_cannot_take_is_refused_by_name(
    option: str, value: str, tmp_path: Path
):
    args = ["toolloop", option, value, "--skip-base", "--json", str(tmp_path / "out.json")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and option in result.output
    assert not (tmp_path / "out.json").exists()


@pytest.mark.real_model
def test_the_ranked_arm_exports_rows_the_real_base_chose(real_base: Any, tmp_path: Path):
    bases = tmp_path / "data" / "bases"  # the converted base, seen from the arm's data dir
    bases.mkdir(parents=True)
    (bases / real_base.path.name).symlink_to(real_base.path)
    data_dir = bases.parent
    rows = reader_rows(export_rows("ranked", examples=2, seed=1, data_dir=data_dir))
    assert len(rows) == 2
    assert_no_bfcl(rows, ("simple", "parallel"))


def test_a_bfcl_question_or_answer_in_the_rows_is_refused():
    from services.synth.bfcl.convert import openai_name
    from services.synth.bfcl.data import load_cases
    from services.synth.bfcl.model_eval import case_query, case_tools
    from services.synth.calls import Call

    case = load_cases("simple")[3]
    tools = case_tools(case)
    asked = training_row(case_query(case), tools, [])
    with pytest.raises(AssertionError, match="BFCL question"):
        assert_no_bfcl([asked], ("simple",))
    ((name, options),) = case.answer[0].items()
    arguments = {k: v[0] for k, v in options.items() if v and v[0] != ""}
    call = Call(openai_name(name), arguments)
    answered = training_row("a question of ours", tools, [call])
    with pytest.raises(AssertionError, match="BFCL answer"):
        assert_no_bfcl([answered], ("simple",))


def _seed(seed: int, toolloop: float, filter_: float) -> dict:
    def arm(accuracy: float) -> dict:
        figures = {"accuracy": {"simple": accuracy, "overall": accuracy}, "eval_s": 1.0}
        return figures | {"train_examples": 4, "train_tokens": 99, "train_s": 2.0}

    arms = {"toolloop": arm(toolloop), "filter": arm(filter_), "isolate": arm(toolloop)}
    return {"seed": seed, "arms": arms, "seconds": 10}


def test_the_figures_are_means_and_spreads_over_seeds():
    base = {"accuracy": {"simple": 0.4, "overall": 0.4}, "eval_s": 3.0}
    figures = summarise(base, [_seed(0, 0.5, 0.4), _seed(1, 0.7, 0.4)])
    assert figures["bfcl_base"] == {"simple": 0.4, "overall": 0.4}
    assert figures["bfcl_toolloop"] == {"simple": 0.6, "overall": 0.6}
    assert figures["bfcl_toolloop_std"] == {"simple": 0.1, "overall": 0.1}
    assert figures["bfcl_filter_std"]["overall"] == 0.0
    assert figures["seconds_per_seed"] == [10, 10] and figures["eval_s"]["base"] == 3.0


def test_runs_of_single_seeds_combine_with_the_bases_figures(tmp_path: Path):
    base = {"model": "smollm2-135m", "half": "held_out", "n": 100, "eval_s": 3.0}
    base["accuracy"] = {name: 0.3 for name in (*toolloop_bench.DEFAULT_CATEGORIES, "overall")}
    (tmp_path / "base.json").write_text(json.dumps(base))
    for seed in (0, 1):
        figures = {"seeds": [_seed(seed, 0.5 + seed / 10, 0.4)], "base": {"skipped": True}}
        (tmp_path / f"seed{seed}.json").write_text(json.dumps(figures))
    args = ["toolloop", "--base-figures", str(tmp_path / "base.json")]
    args += ["--combine", str(tmp_path / "seed0.json"), "--combine", str(tmp_path / "seed1.json")]
    result = CliRunner().invoke(app, [*args, "--json", str(tmp_path / "all.json")])
    assert result.exit_code == 0, result.output
    combined = json.loads((tmp_path / "all.json").read_text())
    assert combined["bfcl_toolloop"]["overall"] == 0.55
    assert combined["bfcl_base"]["overall"] == 0.3 and len(combined["seeds"]) == 2


@pytest.mark.real_model
def test_a_trained_arm_of_the_real_base_is_judged_on_bfcl(real_base, tmp_path):
    ladder = Ladder(
        base=str(real_base.path),
        examples=4,
        batch_size=4,
        categories=("simple",),
        n=1,
        arms=("toolloop",),
    )
    arms = run_seed(ladder, 0, tmp_path, say=lambda _line: None)
    toolloop = arms["toolloop"]
    assert toolloop["train_examples"] == 4 and toolloop["train_tokens"] > 0
    assert set(toolloop["accuracy"]) == {"simple", "overall"}
    assert Path(toolloop["checkpoint"], "config.json").is_file()  # loadable by --model


def test_a_seeds_arms_from_two_runs_are_one_seed(tmp_path: Path):
    base = {"accuracy": {"simple": 0.3, "overall": 0.3}, "eval_s": 1.0}
    first = _seed(0, 0.5, 0.4)
    isolate = first["arms"].pop("isolate")
    (tmp_path / "a.json").write_text(json.dumps({"seeds": [first], "base": base}))
    later = {"seed": 0, "arms": {"isolate": isolate}, "seconds": 5}
    (tmp_path / "b.json").write_text(json.dumps({"seeds": [later], "base": base}))
    args = ["toolloop", "--combine", str(tmp_path / "a.json")]
    args += ["--combine", str(tmp_path / "b.json")]
    result = CliRunner().invoke(app, [*args, "--json", str(tmp_path / "all.json")])
    assert result.exit_code == 0, result.output
    combined = json.loads((tmp_path / "all.json").read_text())
    assert [s["seed"] for s in combined["seeds"]] == [0]
    assert set(combined["seeds"][0]["arms"]) == set(first["arms"]) | {"isolate"}
    assert combined["seeds_isolate"] == 1
    assert combined["seconds_per_seed"] == [15]
