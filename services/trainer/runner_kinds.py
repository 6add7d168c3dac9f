"""Which runner and which hyper-parameters each train kind takes: read by the trainer's
worker (:mod:`services.trainer.training`) and by each process ``accelerate`` launches
(:mod:`services.trainer.launch`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["HYPER_KIND", "runner_for"]

HYPER_KIND = {
    "sft": "sft",
    "dpo": "dpo",
    "solar": "policy_gradient",
    "grpo_sparse": "policy_gradient",
}
"""Train kind → the hyper-parameter dataclass it takes (services.trainer.configs)."""


def runner_for(kind: str) -> Callable[..., Mapping[str, Any]]:
    """The TRL runner of a train kind (imported lazily: torch loads only when training)."""
    module, name = {
        "sft": ("sft", "run_sft"),
        "dpo": ("dpo", "run_dpo"),
        "solar": ("policy_gradient", "run_policy_gradient"),
        "grpo_sparse": ("policy_gradient", "run_policy_gradient"),
    }[kind]
    return getattr(importlib.import_module(f"services.trainer.runners.{module}"), name)
