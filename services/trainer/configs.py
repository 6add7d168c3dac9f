"""Training hyper-parameters as dataclasses with help text (TRL ``SFTConfig`` style).

A run's hyper-parameters arrive as JSON; :func:`hyper_from_dict` turns them into one of the
dataclasses below and rejects unknown keys, wrong types and out-of-range values with a 422
that names the key, so a typo never silently trains with a default.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal, get_type_hints

from services.common.errors import RefineryError

__all__ = [
    "DPOHyper",
    "Hyper",
    "HyperKind",
    "LoraSpec",
    "PolicyGradientHyper",
    "SFTHyper",
    "TrainerInputError",
    "coerce_fields",
    "hyper_from_dict",
]


class TrainerInputError(RefineryError):
    """A run that cannot start: bad hyper-parameters, base, tokenizer or rows (a 422)."""

    status_code = 422
    code = "bad_hyper"


DPO_LOSSES = frozenset(
    {"sigmoid", "hinge", "ipo", "nca_pair", "robust", "bco_pair", "sppo_hard", "aot"}
    | {"aot_unpaired", "apo_zero", "apo_down", "discopop", "sft", "sigmoid_norm"}
)
"""TRL's DPO losses usable without further options (``exo_pair`` needs label smoothing)."""


def _help(text: str, default: Any) -> Any:
    return field(default=default, metadata={"help": text})


@dataclass(frozen=True)
class LoraSpec:
    """A LoRA adapter to train instead of the full weights (merged into the published
    checkpoint; the adapter alone is kept next to it for runtime loading by vLLM)."""

    r: int = _help("Rank of the low-rank update.", 16)
    alpha: int = _help("Scaling numerator: the update is scaled by alpha / r.", 32)
    dropout: float = _help("Dropout on the adapter input.", 0.0)
    target_modules: tuple[str, ...] = _help(
        "Module names that get adapters; the attention and MLP projections by default.",
        ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
    )


@dataclass(frozen=True)
class Hyper:
    """Fields every runner shares."""

    seed: int = _help("Seeds model init, data order and dropout: same seed, same run.", 0)
    epochs: float = _help("Passes over the training rows (fractions allowed).", 1.0)
    lr: float = _help("Peak learning rate (linear decay to 0).", 2e-4)
    batch_size: int = _help("Rows per forward/backward pass on each device.", 8)
    grad_accum: int = _help(
        "Passes accumulated per optimisation step: the effective batch is batch_size x "
        "grad_accum x devices, while memory holds only batch_size rows' activations.",
        1,
    )
    gradient_checkpointing: bool = _help(
        "Recompute activations in the backward pass instead of keeping them: about a third "
        "more compute for activation memory that no longer grows with the layer count.",
        False,
    )
    max_length: int = _help(
        "Longest tokenised row (prompt + completion); longer rows are truncated at the end, "
        "rows whose prompt alone does not fit are dropped.",
        1024,
    )
    max_steps: int = _help("Stop after this many steps (-1: run the full epochs).", -1)
    save_steps: int = _help("Write a checkpoint every this many steps (0: only the final).", 0)
    keep_checkpoints: int = _help("Periodic checkpoints kept on disk (the newest ones).", 2)
    max_grad_norm: float = _help("Gradient clipping norm.", 1.0)
    lora: LoraSpec | None = field(
        default=None, metadata={"help": "Train a LoRA adapter instead of all weights."}
    )


@dataclass(frozen=True)
class SFTHyper(Hyper):
    """Supervised fine-tuning on prompt/completion or messages(+tools) rows."""

    completion_only: bool = _help(
        "Loss on the completion (assistant turns) only, never on the prompt.", True
    )


@dataclass(frozen=True)
class DPOHyper(Hyper):
    """Direct preference optimisation on prompt/chosen/rejected rows."""

    lr: float = _help("Peak learning rate (linear decay to 0).", 5e-6)
    beta: float = _help("Strength of the pull towards the reference model (higher: closer).", 0.1)
    loss_type: str = _help("TRL DPO loss: sigmoid, ipo, hinge, robust, …", "sigmoid")
    min_margin: float = _help(
        "Rows may carry `margin` (the chosen's score minus the rejected's, e.g. VES gain); "
        "pairs below this margin are dropped as too close to call.",
        0.0,
    )

    def __post_init__(self) -> None:
        if self.loss_type not in DPO_LOSSES:
            raise TrainerInputError(
                f"unknown DPO loss {self.loss_type!r}; expected one of {sorted(DPO_LOSSES)}",
                param="hyper.loss_type",
            )


@dataclass(frozen=True)
class PolicyGradientHyper(Hyper):
    """Advantage-weighted policy gradient (SOLAR dense step advantages or sparse GRPO)."""

    lr: float = _help("Peak learning rate (linear decay to 0).", 1e-5)
    kl_coef: float = _help(
        "Weight of the per-token KL (k3 estimator) to the frozen starting policy; 0 disables it.",
        0.0,
    )
    clip: float = _help(
        "Trust region: a token whose probability ratio to the epoch-start policy left "
        "[1 - clip, 1 + clip] in the advantage's direction stops contributing; 0 disables it.",
        0.2,
    )


HyperKind = Literal["sft", "dpo", "policy_gradient"]
_KINDS: dict[str, type[Hyper]] = {
    "sft": SFTHyper,
    "dpo": DPOHyper,
    "policy_gradient": PolicyGradientHyper,
}
Range = tuple[float, float, bool]
"""``(low, high, low_excluded)``: a value lies in [low, high], or (low, high] when excluded."""

RANGES: dict[str, Range] = {
    "seed": (0, 2**32 - 1, False),
    "epochs": (0, 1000, True),
    "lr": (0, 10, True),
    "batch_size": (1, 4096, False),
    "grad_accum": (1, 4096, False),
    "max_length": (1, 131_072, False),
    "max_steps": (-1, 10**8, False),
    "save_steps": (0, 10**8, False),
    "keep_checkpoints": (0, 1000, False),
    "max_grad_norm": (0, 1e6, True),
    "beta": (0, 1000, True),
    "min_margin": (-1e6, 1e6, False),
    "kl_coef": (0, 1000, False),
    "clip": (0, 100, False),
    "r": (1, 1024, False),
    "alpha": (1, 65_536, False),
    "dropout": (0, 0.99, False),
}
"""The bounds of every numeric hyper-parameter (a value outside is a 422 naming it)."""
MAX_TARGET_MODULES = 64


def hyper_from_dict(kind: str, data: dict[str, Any] | None) -> Hyper:
    """The ``kind`` dataclass from JSON ``data``; a 422 naming the first bad key."""
    cls = _KINDS.get(kind)
    if cls is None:
        raise TrainerInputError(
            f"unknown training kind {kind!r}; expected one of {sorted(_KINDS)}",
            code="unknown_kind",
            param="kind",
        )
    values = coerce_fields(cls, dict(data or {}), prefix="hyper", ranges=RANGES)
    if isinstance(values.get("lora"), dict):
        lora = coerce_fields(LoraSpec, values["lora"], prefix="hyper.lora", ranges=RANGES)
        values["lora"] = LoraSpec(**lora)
    return cls(**values)


def coerce_fields(
    cls: type,
    data: dict[str, Any],
    *,
    prefix: str,
    ranges: dict[str, Range],
    unknown_code: str = "unknown_hyper",
) -> dict[str, Any]:
    """``data`` checked against the dataclass ``cls``: known keys, JSON types matching the
    annotations (a boolean is no number; an integer is a valid float), finite numbers inside
    ``ranges``. A 422 naming ``<prefix>.<key>`` otherwise."""
    hints = get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    out: dict[str, Any] = {}
    for key, value in data.items():
        param = f"{prefix}.{key}"
        if key not in names:
            raise TrainerInputError(
                f"unknown setting {key!r}; known: {', '.join(sorted(names))}",
                code=unknown_code,
                param=param,
            )
        out[key] = _check(key, value, hints[key], param)
        if key in ranges:
            _check_range(key, out[key], ranges[key], param)
    return out


def _check_range(key: str, value: Any, bounds: Range, param: str) -> None:
    low, high, excluded = bounds
    inside = (low < value if excluded else low <= value) and value <= high
    if not (inside and (not isinstance(value, float) or math.isfinite(value))):
        opening = "(" if excluded else "["
        raise TrainerInputError(
            f"{key} out of range: {repr(value)[:40]} (allowed {opening}{low:g}, {high:g}])",
            param=param,
        )


def _check(key: str, value: Any, hint: Any, param: str) -> Any:
    text = str(hint)
    if key == "lora":
        if value is None or isinstance(value, dict | LoraSpec):
            return value
        raise TrainerInputError(f"{key} must be an object or null", param=param)
    if key == "target_modules":
        if (
            isinstance(value, list | tuple)
            and 0 < len(value) <= MAX_TARGET_MODULES
            and all(isinstance(v, str) and 0 < len(v) <= 200 for v in value)
        ):
            return tuple(value)
        raise TrainerInputError(
            f"{key} must be a non-empty list of at most {MAX_TARGET_MODULES} names", param=param
        )
    if hint is bool or text == "bool":
        ok = isinstance(value, bool)
    elif hint is int or text == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float or text == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok and abs(value) < 1e300 else value
    else:
        ok = isinstance(value, str) and len(value) <= 200
    if not ok:
        raise TrainerInputError(f"{key} has the wrong type ({type(value).__name__})", param=param)
    return value
