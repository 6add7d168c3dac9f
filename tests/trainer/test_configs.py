"""Hyper-parameters from JSON: unknown keys, wrong types and bad values are 422s."""

from __future__ import annotations

import dataclasses

import pytest

from services.trainer.configs import (
    DPOHyper,
    LoraSpec,
    PolicyGradientHyper,
    SFTHyper,
    TrainerInputError,
    hyper_from_dict,
)


def test_builds_each_kind_with_its_fields() -> None:
    assert hyper_from_dict("sft", {"lr": 1, "seed": 3}) == SFTHyper(lr=1.0, seed=3)
    dpo = hyper_from_dict("dpo", {"beta": 0.2, "min_margin": 0.05})
    assert isinstance(dpo, DPOHyper) and dpo.beta == 0.2 and dpo.lr == 5e-6
    pg = hyper_from_dict("policy_gradient", {"kl_coef": 0.04, "clip": 0})
    assert isinstance(pg, PolicyGradientHyper) and pg.clip == 0.0
    lora = hyper_from_dict("sft", {"lora": {"r": 4, "target_modules": ["q_proj"]}}).lora
    assert lora == LoraSpec(r=4, target_modules=("q_proj",))


def test_every_field_has_help() -> None:
    for cls in (SFTHyper, DPOHyper, PolicyGradientHyper, LoraSpec):
        assert all(f.metadata.get("help") for f in dataclasses.fields(cls))


@pytest.mark.parametrize(
    ("kind", "data", "code", "param"),
    [
        ("sft", {"learning_rate": 1e-4}, "unknown_hyper", "hyper.learning_rate"),
        ("sft", {"beta": 0.1}, "unknown_hyper", "hyper.beta"),
        ("dpo", {"lora": {"rank": 4}}, "unknown_hyper", "hyper.lora.rank"),
        ("sft", {"batch_size": 2.5}, "bad_hyper", "hyper.batch_size"),
        ("sft", {"completion_only": "yes"}, "bad_hyper", "hyper.completion_only"),
        ("sft", {"lr": 0}, "bad_hyper", "hyper.lr"),
        ("sft", {"grad_accum": 0}, "bad_hyper", "hyper.grad_accum"),
        ("dpo", {"gradient_checkpointing": 1}, "bad_hyper", "hyper.gradient_checkpointing"),
        ("policy_gradient", {"kl_coef": -1}, "bad_hyper", "hyper.kl_coef"),
        ("dpo", {"loss_type": "nope"}, "bad_hyper", "hyper.loss_type"),
        ("ppo", {}, "unknown_kind", "kind"),
        ("sft", {"lr": False}, "bad_hyper", "hyper.lr"),
        ("sft", {"seed": True}, "bad_hyper", "hyper.seed"),
        ("sft", {"epochs": True}, "bad_hyper", "hyper.epochs"),
        ("sft", {"lr": float("nan")}, "bad_hyper", "hyper.lr"),
        ("sft", {"lr": float("inf")}, "bad_hyper", "hyper.lr"),
        ("sft", {"epochs": 1e308}, "bad_hyper", "hyper.epochs"),
        ("sft", {"max_length": 10**400}, "bad_hyper", "hyper.max_length"),
        ("sft", {"seed": -1}, "bad_hyper", "hyper.seed"),
        ("sft", {"seed": 2**32}, "bad_hyper", "hyper.seed"),
        ("sft", {"max_steps": -2}, "bad_hyper", "hyper.max_steps"),
        ("sft", {"batch_size": 10**6}, "bad_hyper", "hyper.batch_size"),
        ("dpo", {"beta": 1e9}, "bad_hyper", "hyper.beta"),
        ("dpo", {"min_margin": -float("inf")}, "bad_hyper", "hyper.min_margin"),
        ("dpo", {"loss_type": "x" * 500}, "bad_hyper", "hyper.loss_type"),
        ("sft", {"lora": {"r": 10**6}}, "bad_hyper", "hyper.lora.r"),
        ("sft", {"lora": {"dropout": 1}}, "bad_hyper", "hyper.lora.dropout"),
        ("sft", {"lora": {"target_modules": ["q"] * 65}}, "bad_hyper", "hyper.lora.target_modules"),
    ],
)
def test_rejects_bad_hyper(kind: str, data: dict, code: str, param: str) -> None:
    with pytest.raises(TrainerInputError) as caught:
        hyper_from_dict(kind, data)
    assert (caught.value.code, caught.value.param, caught.value.status_code) == (code, param, 422)
    assert len(caught.value.message) < 300


def test_bounds_are_inclusive_where_they_should_be() -> None:
    edge = hyper_from_dict("sft", {"seed": 2**32 - 1, "max_steps": -1, "lr": 10, "epochs": 1000})
    assert edge.seed == 2**32 - 1 and edge.lr == 10.0 and isinstance(edge.epochs, float)
