"""DPO runner on a tiny local base: the chosen-vs-rejected margin grows; bad input is a 422."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("trl")

from services.planner.proposers.hf import HFProposer
from services.trainer.configs import DPOHyper, TrainerInputError
from services.trainer.runners.common import Progress
from services.trainer.runners.dpo import dpo_rows, run_dpo
from tests.trainer.runners.toy import pair_rows, preference_gap, tiny_base


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> str:
    return tiny_base(tmp_path_factory.mktemp("dpo"))


def test_dpo_raises_the_chosen_margin(base: str, tmp_path: Path) -> None:
    hyper = DPOHyper(lr=2e-3, epochs=2, batch_size=8, max_length=96, beta=0.1)
    seen: list[Progress] = []
    metrics = run_dpo(pair_rows(), base, hyper, tmp_path, callback=seen.append)
    assert metrics["steps"] == len(seen) == 4 and metrics["pairs"] == 16
    assert preference_gap(metrics["checkpoint"]) > preference_gap(base) + 0.1
    assert seen[-1].loss < seen[0].loss
    HFProposer(metrics["checkpoint"]).check()


def test_pairs_under_the_margin_are_dropped(base: str, tmp_path: Path) -> None:
    rows = [dict(row, margin=0.5 if i % 2 else 0.01) for i, row in enumerate(pair_rows(8))]
    assert len(dpo_rows(rows, min_margin=0.1)) == 4
    hyper = DPOHyper(lr=1e-3, max_steps=1, batch_size=4, max_length=96, min_margin=0.1)
    metrics = run_dpo(rows, base, hyper, tmp_path)
    assert metrics["pairs"] == 4 and metrics["dropped_pairs"] == 4
    with pytest.raises(TrainerInputError) as caught:
        run_dpo(rows, base, DPOHyper(min_margin=1.0), tmp_path / "none")
    assert caught.value.code == "empty_rows" and caught.value.param == "hyper.min_margin"


def test_cancelled_dpo_keeps_its_last_step(base: str, tmp_path: Path) -> None:
    hyper = DPOHyper(lr=1e-3, epochs=2, batch_size=8, max_length=96)
    metrics = run_dpo(pair_rows(), base, hyper, tmp_path, callback=lambda p: False)
    assert metrics["cancelled"] and metrics["steps"] == 1
    assert Path(metrics["checkpoint"]) == tmp_path / "checkpoint-1"


def test_bad_pairs_and_bases_fail_before_training(base: str, tmp_path: Path) -> None:
    with pytest.raises(TrainerInputError) as caught:
        run_dpo([{"prompt": "p", "chosen": "a"}], base, DPOHyper(), tmp_path)
    assert caught.value.code == "bad_rows"
    with pytest.raises(TrainerInputError) as caught:
        run_dpo(pair_rows(2), str(tmp_path / "missing"), DPOHyper(), tmp_path)
    assert (caught.value.code, caught.value.param) == ("unknown_base", "base")
    with pytest.raises(TrainerInputError) as caught:
        DPOHyper(loss_type="nope")
    assert caught.value.param == "hyper.loss_type"


def test_dpo_from_a_model_built_in_memory(tmp_path: Path) -> None:
    """``base="tiny"`` has no path to reload a reference from: the runner hands TRL a copy."""
    metrics = run_dpo(pair_rows(), "tiny", DPOHyper(epochs=1, batch_size=8), tmp_path)
    assert metrics["steps"] == 2 and Path(metrics["checkpoint"], "config.json").is_file()
