"""The trainer benchmark: its negative control, seeds, and a --quick run over two seeds."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from random import Random
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.editbench import generate
from benchmarks.trainer_bench import (
    FULL,
    GAPS,
    QUICK,
    REAL,
    SEEDS,
    editbench_tasks,
    seeds_for,
    sizes_for,
)
from benchmarks.trainer_bench_loop import (
    RELEVANCE,
    BenchRegistry,
    NoisyProposer,
    corrupt,
    parse_counts,
)
from benchmarks.trainer_bench_seeds import aggregate
from protocol.verifier import TaskIn
from services.planner.proposers.search import SearchProposer
from services.planner.proposers.simple_draft import simple_draft
from services.verifier.score import Verifier


def _task() -> Any:
    row = next(generate(1, seed=3))
    return TaskIn.model_validate(row["task"]).to_task()


def test_the_noisy_teacher_corrupts_a_share_of_the_search_proposals() -> None:
    task = _task()
    timeline = simple_draft(task, seed=0)
    report = Verifier(task).verify(timeline)
    clean = SearchProposer(relevance_backend=RELEVANCE).propose(task, timeline, report, n=8, seed=1)
    noisy = NoisyProposer(share=0.5).propose(task, timeline, report, n=8, seed=1)
    again = NoisyProposer(share=0.5).propose(task, timeline, report, n=8, seed=1)
    assert [p.ops for p in noisy] == [p.ops for p in again]  # seeded
    assert {p.source for p in noisy} == {"noisy"}
    changed = [a.ops != b.ops for a, b in zip(clean, noisy, strict=True)]
    assert any(changed) and not all(changed)
    assert all(("corrupted" in p.note) == c for p, c in zip(noisy, changed, strict=True))
    untouched = NoisyProposer(share=0.0).propose(task, timeline, report, n=8, seed=1)
    assert [p.ops for p in untouched] == [p.ops for p in clean]


def test_corrupt_always_changes_the_patch() -> None:
    task = _task()
    timeline = simple_draft(task, seed=0)
    report = Verifier(task).verify(timeline)
    rng = Random(0)
    for proposal in SearchProposer(relevance_backend=RELEVANCE).propose(
        task, timeline, report, n=8, seed=2
    ):
        assert corrupt(proposal.ops, task, rng) != tuple(proposal.ops)


def test_the_registry_adds_noisy_and_the_teachers_and_keeps_the_rest(tmp_path: Path) -> None:
    from services.common.db import make_engine
    from services.common.settings import database_url_for
    from services.planner.config import PlannerSettings

    settings = PlannerSettings(data_dir=tmp_path, media_root=tmp_path)
    registry = BenchRegistry(settings, make_engine(database_url_for(settings)))
    assert isinstance(registry.resolve("noisy"), NoisyProposer)
    assert isinstance(registry.resolve("search"), SearchProposer)
    assert registry.resolve("search:greedy").name == "search:greedy"


def test_editbench_tasks_are_small_distinct_and_split_by_seed() -> None:
    train = editbench_tasks(SEEDS["train_tasks"], 4, 20)
    heldout = editbench_tasks(SEEDS["heldout_tasks"], 4, 20)
    assert len(train) == len(heldout) == 4
    assert all(len(t["clips"]) <= 20 for t in train + heldout)
    assert not {t["id"] for t in train} & {t["id"] for t in heldout}


def test_seeds_shift_data_and_model_seeds_and_seed_zero_is_the_default() -> None:
    assert seeds_for(0) == SEEDS
    one = seeds_for(1)
    assert one["train_tasks"] != SEEDS["train_tasks"] and one["model"] == SEEDS["model"] + 1
    assert len(set(seeds_for(2).values())) == len(set(SEEDS.values()))


def test_aggregate_folds_means_stds_curves_and_dicts() -> None:
    runs = [
        {"ves": 0.5, "curve": [0.1, 0.2], "wins": {"a": 2}, "name": "x", "rounds": [{"v": 1}]},
        {"ves": 0.7, "curve": [0.3, 0.4], "wins": {"b": 1}, "name": "y", "rounds": [{"v": 3}]},
    ]
    out = aggregate(runs)
    assert out["n_seeds"] == 2
    assert out["ves"] == pytest.approx(0.6) and out["ves_std"] == pytest.approx(0.1414, abs=1e-4)
    assert out["curve"] == pytest.approx([0.2, 0.3])
    assert out["wins"] == {"a": 1.0, "b": 0.5}
    assert out["rounds"] == [{"v": 2.0}]
    assert out["name"] == "x" and len(out["per_seed"]) == 2
    assert aggregate(runs[:1])["ves_std"] == 0.0


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("trainer-bench") / "out.json"
    args = ["trainer", "--quick", "--seeds", "2", "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def test_a_quick_run_reports_every_figure_in_range(quick: dict[str, Any]) -> None:
    assert quick["n_seeds"] == 2 and len(quick["per_seed"]) == 2
    for key in ("ves_naive", "ves_untrained", "ves_sft", "ves_evo", "ves_best_teacher"):
        assert 0.0 <= quick[key] <= 1.0, key
        assert quick[f"{key}_std"] >= 0.0, key
    # the loop never lowers a first cut: the naive one, or the student's own
    assert quick["ves_untrained_heuristic_draft"] >= quick["ves_naive"]
    students = [f"{s}{d}" for s in ("untrained", "sft", "evo") for d in ("", "_heuristic_draft")]
    for run, name in itertools.product(quick["per_seed"], students):
        assert 0.0 <= run[f"parse_rate_{name}"] <= 1.0, name
        if not name.endswith("_heuristic_draft"):
            assert run[f"ves_{name}"] >= run[f"draft_ves_{name}"], name
            assert 0.0 <= run[f"draft_parse_rate_{name}"] <= 1.0, name
        loop = run[f"loop_{name}"]
        assert 0.0 <= loop["improving_share"] <= 1.0, name
        # a round is accepted only for a candidate that raised VES
        assert loop["improving_share"] > 0 or loop["accepted_rounds"] == 0, name
    for key in ("step_sr_sft", "step_sr_solar", "step_sr_sparse"):
        assert 0.0 <= quick[key] <= 1.0, key
    iterations = QUICK.online.iterations
    assert len(quick["solar_curve"]) == len(quick["sparse_curve"]) == iterations
    assert quick["step_sr_solar"] == quick["solar_curve"][-1]
    assert len(quick["solar_curve_std"]) == iterations
    assert [r["round"] for r in quick["evo_rounds"]] == [1.0, 2.0]
    for key, (high, low) in GAPS.items():
        runs = quick["per_seed"]
        assert [r[key] for r in runs] == [pytest.approx(r[high] - r[low], abs=1e-4) for r in runs]
        assert quick[key] == pytest.approx((runs[0][key] + runs[1][key]) / 2, abs=1e-4)
        assert f"{key}_std" in quick
    assert quick["teachers"] == list(QUICK.teachers)
    assert set(quick["teacher_wins"]) <= set(QUICK.teachers)
    assert sum(quick["teacher_wins"].values()) > 0
    assert set(quick["ves_teachers"]) == set(QUICK.teachers)
    assert quick["sft_tokens_per_s"] > 0 and quick["python_calibration_us"] > 0
    assert quick["torch_threads"] == 1
    assert quick["train_tasks"] == QUICK.train_tasks
    assert quick["teacher_records"] > 0 and quick["repair_sft_rows"] > 0
    assert quick["seeds"] == [seeds_for(0), seeds_for(1)]
    phases = {"teachers", "repair_sft", "evo", "evaluation", "gui_sft", "gui_solar", "total"}
    assert phases <= set(quick["runtime_s"])
    assert Path(quick["plot"]).read_bytes().startswith(b"\x89PNG")


def test_a_named_base_gets_the_real_sizes_under_lora() -> None:
    assert sizes_for(None) == FULL and sizes_for(None, quick=True) == QUICK
    assert sizes_for("tiny").base == "tiny" and sizes_for("tiny").sft.lora is None
    real = sizes_for("smollm2-135m")
    assert real == REAL and real.sft.lora is not None and real.dpo.lora is not None
    assert real.gui_base == FULL.gui_base  # the GUI arm keeps its tiny student
    quick = sizes_for("smollm2-135m", quick=True)
    assert quick.base == "smollm2-135m" and quick.sft.max_steps == QUICK.sft.max_steps
    assert quick.sft.lora is not None


def test_parse_counts_read_the_planners_answer_counters() -> None:
    assert parse_counts({"answers": 10, "parsed": 9, "candidates": 10, "dropped": 3}) == (10, 1)
    assert parse_counts({"candidates": 8, "dropped": 2}) == (8, 2)
