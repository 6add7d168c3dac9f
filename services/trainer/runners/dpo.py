"""Direct preference optimisation with TRL's ``DPOTrainer``.

Rows are conversational ``{"prompt": [messages], "chosen": [assistant], "rejected": [assistant]}``
pairs (e.g. two verifier-scored patches for one state). A row may carry ``margin`` (the
chosen's score minus the rejected's): pairs under ``hyper.min_margin`` are dropped before
training, so near-ties do not teach noise. The reference model is a frozen copy of the base
(with LoRA: the base with the adapter disabled), as TRL builds it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from services.trainer.configs import DPOHyper, TrainerInputError
from services.trainer.models import check_fits, resolve_base
from services.trainer.runners.common import (
    Callback,
    CheckpointKeeper,
    RunState,
    quiet,
    train_with,
    trainer_callback,
    training_arguments,
)
from services.trainer.tokenizer import normalise_messages

__all__ = ["dpo_rows", "run_dpo"]


def dpo_rows(rows: Sequence[Mapping[str, Any]], *, min_margin: float) -> list[dict[str, Any]]:
    """The pairs TRL reads (margin-filtered); a 422 for malformed rows or none left."""
    out = []
    for index, row in enumerate(rows):
        if not all(
            isinstance(row.get(k), list) and row[k] for k in ("prompt", "chosen", "rejected")
        ):
            raise TrainerInputError(
                f"row {index} is not a conversational {{prompt, chosen, rejected}} pair",
                code="bad_rows",
                param="rows",
            )
        margin = row.get("margin")
        if margin is not None and float(margin) < min_margin:
            continue
        out.append({k: normalise_messages(row[k]) for k in ("prompt", "chosen", "rejected")})
    if not out:
        raise TrainerInputError(
            f"no pair has a margin of at least {min_margin}",
            code="empty_rows",
            param="hyper.min_margin",
        )
    return out


def run_dpo(
    rows: Sequence[Mapping[str, Any]],
    base: str,
    hyper: DPOHyper,
    out_dir: str | Path,
    *,
    callback: Callback | None = None,
    allow_download: bool = False,
) -> dict[str, Any]:
    """Preference-tune ``base`` on ``rows``; checkpoints under ``out_dir``. Returns
    ``{train_loss, steps, tokens, tokens_per_s, runtime_s, pairs, …}``."""
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    records = dpo_rows(rows, min_margin=hyper.min_margin)
    quiet()
    model, tokenizer = resolve_base(
        base, rows, seed=hyper.seed, lora=hyper.lora, allow_download=allow_download
    )
    check_fits(tokenizer, records, hyper.max_length)
    out = Path(out_dir)
    config = DPOConfig(
        **training_arguments(hyper, out),
        beta=hyper.beta,
        loss_type=[hyper.loss_type],
        dataset_num_proc=None,
    )
    state = RunState(callback, total=0)
    keeper = CheckpointKeeper(out, hyper.save_steps, hyper.keep_checkpoints)
    trainer = DPOTrainer(
        model=model,
        ref_model=_frozen_copy(model),
        args=config,
        train_dataset=Dataset.from_list(records),
        processing_class=tokenizer,
        callbacks=[trainer_callback(state, keeper, tokenizer)],
    )
    metrics = train_with(trainer, state, keeper, tokenizer)
    return {**metrics, "pairs": len(records), "dropped_pairs": len(rows) - len(records)}


def _frozen_copy(model: Any) -> Any:
    """The reference policy: a copy of the starting weights (None with LoRA, where TRL uses the
    base with the adapter disabled). Passed explicitly because TRL otherwise reloads the
    reference from ``config.name_or_path``, which a model built in memory does not have."""
    if hasattr(model, "peft_config"):
        return None
    return copy.deepcopy(model).eval()
