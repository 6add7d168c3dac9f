"""The trainer benchmark: its noisy teacher, and a --quick run reporting every figure in range."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.editbench import generate
from benchmarks.trainer_bench import QUICK, SEEDS, editbench_tasks
from benchmarks.trainer_bench_loop import RELEVANCE, BenchRegistry, NoisyProposer, corrupt
from services.planner.proposers.search import SearchProposer
from services.planner.proposers.simple_draft import simple_draft
from services.verifier.protocol import TaskIn
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


def test_the_registry_adds_noisy_and_keeps_the_rest(tmp_path: Path) -> None:
    from services.common.db import make_engine
    from services.common.settings import database_url_for
    from services.planner.config import PlannerSettings

    settings = PlannerSettings(data_dir=tmp_path, media_root=tmp_path)
    registry = BenchRegistry(settings, make_engine(database_url_for(settings)))
    assert isinstance(registry.resolve("noisy"), NoisyProposer)
    assert isinstance(registry.resolve("search"), SearchProposer)


def test_editbench_tasks_are_small_distinct_and_split_by_seed() -> None:
    train = editbench_tasks(SEEDS["train_tasks"], 4, 20)
    heldout = editbench_tasks(SEEDS["heldout_tasks"], 4, 20)
    assert len(train) == len(heldout) == 4
    assert all(len(t["clips"]) <= 20 for t in train + heldout)
    assert not {t["id"] for t in train} & {t["id"] for t in heldout}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("trainer-bench") / "out.json"
    result = CliRunner().invoke(app, ["trainer", "--quick", "--json", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def test_a_quick_run_reports_every_figure_in_range(quick: dict[str, Any]) -> None:
    for key in ("ves_naive", "ves_untrained", "ves_sft"):
        assert 0.0 <= quick[key] <= 1.0, key
    # a model that never proposes a usable patch leaves the naive cut as it was
    assert quick["ves_untrained"] >= quick["ves_naive"]
    assert quick["ves_evo"] is None or 0.0 <= quick["ves_evo"] <= 1.0
    for key in ("step_sr_sft", "step_sr_solar", "step_sr_sparse"):
        assert 0.0 <= quick[key] <= 1.0, key
    assert quick["sft_tokens_per_s"] > 0 and quick["python_calibration_us"] > 0
    assert quick["train_tasks"] == QUICK.train_tasks
    assert quick["heldout_tasks"] == QUICK.heldout_tasks
    assert quick["teacher_records"] > 0 and quick["repair_sft_rows"] > 0
    assert set(quick["repair_sft_stats"]["teachers"]) <= {"search", "noisy"}
    assert quick["solar_rows"] == quick["sparse_rows"] > 0
    assert quick["sizes"]["train_tasks"] == QUICK.train_tasks and quick["seeds"] == SEEDS
    phases = {"teachers", "repair_sft", "evo", "evaluation", "gui_sft", "gui_solar", "total"}
    assert phases <= set(quick["runtime_s"])
    assert all(seconds >= 0 for seconds in quick["runtime_s"].values())
