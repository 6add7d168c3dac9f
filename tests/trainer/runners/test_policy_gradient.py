"""Advantage-weighted policy gradient (SOLAR / sparse GRPO) on a tiny local base."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from services.planner.proposers.hf import HFProposer  # noqa: E402
from services.trainer.configs import PolicyGradientHyper, TrainerInputError  # noqa: E402
from services.trainer.runners.common import Progress, latest_checkpoint  # noqa: E402
from services.trainer.runners.policy_gradient import (  # noqa: E402
    pg_loss,
    run_policy_gradient,
)
from tests.trainer.runners.toy import pg_rows, preference_gap, tiny_base  # noqa: E402

FAST = PolicyGradientHyper(lr=2e-3, epochs=2, batch_size=8, max_length=96, kl_coef=0.05)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> str:
    return tiny_base(tmp_path_factory.mktemp("pg"))


def test_positive_advantages_gain_on_negative_ones(base: str, tmp_path: Path) -> None:
    seen: list[Progress] = []
    metrics = run_policy_gradient(pg_rows(), base, FAST, tmp_path, callback=seen.append)
    assert metrics["steps"] == len(seen) == 6 and seen[-1].total == 6
    assert metrics["rows"] == 24 and metrics["groups"] == 12 and metrics["tokens"] > 0
    assert preference_gap(metrics["checkpoint"]) > preference_gap(base) + 0.1
    HFProposer(metrics["checkpoint"]).check()


def test_dense_and_sparse_advantages_share_the_loss(base: str, tmp_path: Path) -> None:
    """SOLAR's dense step advantages and GRPO's trajectory ones are just different values."""
    sparse = [dict(row, advantage=row["advantage"] * 0.5) for row in pg_rows()]
    hyper = PolicyGradientHyper(lr=1e-3, max_steps=2, batch_size=8, max_length=96)
    a = run_policy_gradient(pg_rows(), base, hyper, tmp_path / "dense")
    b = run_policy_gradient(sparse, base, hyper, tmp_path / "sparse")
    again = run_policy_gradient(sparse, base, hyper, tmp_path / "again")
    assert b["train_loss"] == again["train_loss"]  # deterministic given the seed
    assert a["train_loss"] != b["train_loss"]


def test_loss_is_minus_advantage_times_mean_logprob() -> None:
    logps = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, -0.5, -9.0]])
    mask = torch.tensor([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    advantages = torch.tensor([1.0, -2.0])
    loss = pg_loss(logps, mask, advantages, clip=0.0, kl_coef=0.0)
    assert float(loss) == pytest.approx((2.5 + 2 * -0.5) / 2)
    # the KL term vanishes at the reference and is positive away from it
    same = pg_loss(logps, mask, advantages, ref=logps, clip=0.0, kl_coef=1.0)
    assert float(same) == pytest.approx(float(loss))
    assert float(pg_loss(logps, mask, advantages, ref=logps + 1, clip=0.0, kl_coef=1.0)) > float(
        loss
    )


def test_clip_drops_tokens_past_the_trust_region() -> None:
    logps = torch.tensor([[-1.0, -1.0]], requires_grad=True)
    mask = torch.ones(1, 2)
    old = torch.tensor([[-1.0, -2.0]])  # token 2's ratio is e ≈ 2.7: outside 1 ± 0.2
    pg_loss(logps, mask, torch.tensor([1.0]), old=old, clip=0.2, kl_coef=0.0).backward()
    assert logps.grad.tolist() == [[-0.5, 0.0]]


def test_cancellation_and_kill_keep_checkpoints(base: str, tmp_path: Path) -> None:
    hyper = PolicyGradientHyper(lr=1e-3, epochs=2, batch_size=8, max_length=96, save_steps=2)
    metrics = run_policy_gradient(
        pg_rows(), base, hyper, tmp_path / "c", callback=lambda p: p.step < 3
    )
    assert metrics["cancelled"] and metrics["steps"] == 3
    assert latest_checkpoint(tmp_path / "c") == tmp_path / "c" / "checkpoint-3"

    def kill(progress: Progress) -> None:
        if progress.step == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_policy_gradient(pg_rows(), base, hyper, tmp_path / "k", callback=kill)
    assert latest_checkpoint(tmp_path / "k") == tmp_path / "k" / "checkpoint-2"


def test_bad_rows_fail_before_training(base: str, tmp_path: Path) -> None:
    row = dict(pg_rows(1)[0], advantage=float("nan"))
    with pytest.raises(TrainerInputError) as caught:
        run_policy_gradient([row], base, FAST, tmp_path)
    assert caught.value.code == "bad_rows" and not tmp_path.joinpath("final").exists()


def test_accumulated_passes_match_one_big_batch(base: str, tmp_path: Path) -> None:
    whole = PolicyGradientHyper(lr=1e-3, max_steps=1, batch_size=8, max_length=96)
    split = PolicyGradientHyper(
        lr=1e-3, max_steps=1, batch_size=2, grad_accum=4, max_length=96, gradient_checkpointing=True
    )
    a = run_policy_gradient(pg_rows(), base, whole, tmp_path / "whole")
    b = run_policy_gradient(pg_rows(), base, split, tmp_path / "split")
    assert a["steps"] == b["steps"] == 1 and a["tokens"] == b["tokens"]
    assert b["train_loss"] == pytest.approx(a["train_loss"], rel=1e-4, abs=1e-6)


def test_rows_without_advantage_are_skipped_exactly(
    base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Passes whose rows carry no advantage add exact zeros: skipping them (and stepping the
    optimiser on zero gradients when a whole step is such) leaves the same weights."""
    from safetensors.torch import load_file

    from services.trainer.runners import policy_gradient

    rows = [dict(r, advantage=0.0) if i >= 4 else r for i, r in enumerate(pg_rows())]
    hyper = PolicyGradientHyper(lr=1e-3, epochs=2, batch_size=2, grad_accum=2, max_length=96)
    skipped = run_policy_gradient(rows, base, hyper, tmp_path / "skipped")
    monkeypatch.setattr(policy_gradient._Loop, "_silent", lambda self, items: False)
    computed = run_policy_gradient(rows, base, hyper, tmp_path / "computed")
    for key in ("train_loss", "final_loss", "tokens"):
        assert skipped[key] == computed[key]
    a, b = (load_file(f"{m['checkpoint']}/model.safetensors") for m in (skipped, computed))
    assert all(torch.equal(a[k], b[k]) for k in a)
