"""The train-side base selection: a quick run per base, and nothing held out is built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmarks import trainer_bench, trainer_bench_select
from benchmarks.__main__ import app
from benchmarks.trainer_bench import QUICK, SEEDS
from benchmarks.trainer_bench_select import VALIDATION_EPISODE_SEED, VALIDATION_SEED
from services.trainer.episodes import Episode


def test_a_quick_selection_reports_train_side_figures_and_builds_nothing_held_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_seeds: list[int] = []
    real = trainer_bench_select.editbench_tasks

    def recorded(seed: int, n: int, max_clips: int) -> list[dict[str, Any]]:
        task_seeds.append(seed)
        return real(seed, n, max_clips)

    monkeypatch.setattr(trainer_bench, "editbench_tasks", recorded)
    monkeypatch.setattr(trainer_bench_select, "editbench_tasks", recorded)
    out = tmp_path / "select.json"
    args = ["trainer-select", "--quick", "--base", "tiny", "--epochs", "1", "--epochs", "2"]
    args += ["--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())["tiny"]
    assert task_seeds == [SEEDS["train_tasks"], VALIDATION_SEED]
    assert SEEDS["heldout_tasks"] not in task_seeds
    assert figures["repair_sft_rows"] > 0 and figures["sft_1_loss"] > 0
    for split in ("train", "val"):
        for student in ("untrained", "sft_1", "sft_2"):
            key = f"{split}_ves_{student}"
            assert 0.0 <= figures[key] <= 1.0, key
            # the loop keeps a patch only when it raises VES: no student ends below the naive cut
            assert figures[key] >= figures[f"{split}_ves_naive"], key
            assert 0.0 <= figures[f"{split}_improving_{student}"] <= 1.0, key
    assert 0.0 <= figures["train_step_sr_sft"] <= 1.0
    for kind in ("solar", "sparse"):
        curve = figures[f"train_{kind}_curve"]
        assert len(curve) == QUICK.online.iterations and all(0 <= x <= 1 for x in curve)


def test_the_repair_options_set_tasks_teachers_and_the_loop_patience(tmp_path: Path) -> None:
    out = tmp_path / "select.json"
    args = ["trainer-select", "--quick", "--base", "tiny", "--no-gui", "--train-tasks", "2"]
    args += ["--teacher", "search:greedy", "--validation-tasks", "1", "--patience", "2"]
    args += ["--select", "teachers"]
    result = CliRunner().invoke(app, [*args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())["tiny"]
    assert (figures["train_tasks"], figures["validation_tasks"]) == (2, 1)
    assert (figures["patience"], figures["select"]) == (2, "teachers")
    assert set(figures["teacher_wins"]) == {"search:greedy"}
    assert sum(figures["teacher_wins"].values()) <= 2
    assert "train_step_sr_sft" not in figures


def _self_taught(tmp_path: Path, rounds: int) -> dict[str, Any]:
    out = tmp_path / "select.json"
    args = ["trainer-select", "--quick", "--base", "tiny", "--no-gui", "--self-taught"]
    args += [str(rounds), "--validation-tasks", "1", "--patience", "2"]
    result = CliRunner().invoke(app, [*args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    figures: dict[str, Any] = json.loads(out.read_text())["tiny"]
    assert figures["self_taught"] == rounds and figures["repair_sft_rows"] > 0
    assert 0.0 <= figures["val_ves_sft_1"] <= 1.0
    return figures


def test_self_taught_trains_on_the_untrained_students_own_trajectories(tmp_path: Path) -> None:
    figures = _self_taught(tmp_path, 1)
    assert figures["self_taught_rows"] == [figures["repair_sft_rows"]]
    (winner,) = figures["teacher_wins"]  # the student itself, as an hf: teacher
    assert winner.startswith("hf:") and winner.endswith("untrained")
    assert "val_ves_self_taught_1" not in figures


def test_a_second_self_taught_round_learns_the_first_rounds_student_plans(tmp_path: Path) -> None:
    figures = _self_taught(tmp_path, 2)
    (winner,) = figures["teacher_wins"]  # round 2's teacher: round 1's student
    assert winner.startswith("hf:") and winner.endswith("self-taught-1/final")
    assert 0.0 <= figures["val_ves_self_taught_1"] <= 1.0
    first, last = figures["self_taught_rows"]
    assert first > 0 and last == figures["repair_sft_rows"]


def test_the_gui_side_alone_runs_with_the_online_update_asked_for_on_no_held_out_episode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episode_seeds: list[int] = []
    real = trainer_bench_select.long_episodes

    def recorded(n: int, seed: int, min_steps: int) -> list[Episode]:
        episode_seeds.append(seed)
        return real(n, seed, min_steps)

    monkeypatch.setattr(trainer_bench, "long_episodes", recorded)
    monkeypatch.setattr(trainer_bench_select, "long_episodes", recorded)
    out = tmp_path / "select.json"
    args = ["trainer-select", "--quick", "--base", "tiny", "--no-repair"]
    args += ["--pg-lr", "0.0005", "--pg-epochs", "3", "--json", str(out)]
    args += ["--online-train-episodes", "2", "--validation-episodes", "3"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())["tiny"]
    assert (figures["pg_lr"], figures["pg_epochs"]) == (0.0005, 3)
    assert (figures["online_train_episodes"], figures["validation_episodes"]) == (2, 3)
    assert figures["validation_steps"] >= 3 * QUICK.online.min_steps
    assert "repair_sft_rows" not in figures and "train_ves_untrained" not in figures
    assert episode_seeds == [SEEDS["online_train_episodes"], VALIDATION_EPISODE_SEED]
    assert 0.0 <= figures["val_step_sr_sft"] <= 1.0
    for kind in ("solar", "sparse"):
        for split in ("train", "val"):
            curve = figures[f"{split}_{kind}_curve"]
            assert len(curve) == QUICK.online.iterations and all(0 <= x <= 1 for x in curve)


def test_evo_joins_the_repair_side_with_the_dpo_update_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "select.json"
    args = ["trainer-select", "--quick", "--base", "tiny", "--no-gui", "--evo"]
    args += ["--dpo-lr", "0.0002", "--dpo-beta", "0.2", "--evo-tasks", "3", "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())["tiny"]
    assert (figures["dpo_lr"], figures["dpo_beta"]) == (0.0002, 0.2)
    assert figures["evo_tasks"] == 3
    assert [r["round"] for r in figures["evo_rounds"]] == list(range(1, QUICK.evo_rounds + 1))
    for split in ("train", "val"):
        assert figures[f"{split}_ves_evo"] >= figures[f"{split}_ves_naive"]


@pytest.mark.parametrize(
    "option", ["--patience", "--evo-tasks", "--validation-episodes", "--online-train-episodes"]
)
def test_counts_below_one_are_refused_naming_the_option(option: str) -> None:
    result = CliRunner().invoke(app, ["trainer-select", "--quick", option, "0"])
    assert result.exit_code == 2
    assert option in result.output


def test_an_unknown_row_selection_is_refused_naming_the_option() -> None:
    result = CliRunner().invoke(app, ["trainer-select", "--quick", "--select", "best"])
    assert result.exit_code == 2
    assert "--select" in result.output
