"""Supervised fine-tuning with TRL's ``SFTTrainer``.

Two row shapes (one per run): conversational prompt/completion rows
``{"prompt": [messages], "completion": [{"role": "assistant", …}]}`` (loss on the completion
only), and tool-use rows ``{"messages": [...], "tools": [...]}`` as synth exports them (loss on
the assistant turns only, through the template's ``{% generation %}`` markers). Tools travel
as JSON text, as TRL accepts them, so rows with different schemas share one Arrow table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from services.trainer.configs import SFTHyper, TrainerInputError
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

__all__ = ["run_sft", "sft_rows"]


def sft_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The rows reduced to what TRL reads, and whether they are messages (tool-use) rows;
    a 422 for rows of neither shape or a mix of both."""
    shapes = {_shape(i, row) for i, row in enumerate(rows)}
    if len(shapes) > 1:
        raise TrainerInputError(
            "rows mix prompt/completion and messages shapes; train them in separate runs",
            code="bad_rows",
            param="rows",
        )
    if shapes == {"messages"}:
        out = [
            {
                "messages": normalise_messages(row["messages"]),
                "tools": json.dumps(row.get("tools") or [], ensure_ascii=False),
            }
            for row in rows
        ]
        return out, True
    return [
        {
            "prompt": normalise_messages(r["prompt"]),
            "completion": normalise_messages(r["completion"]),
        }
        for r in rows
    ], False


def _shape(index: int, row: Mapping[str, Any]) -> str:
    if isinstance(row.get("messages"), list) and row["messages"]:
        if not any(m.get("role") == "assistant" for m in row["messages"]):
            raise TrainerInputError(
                f"row {index} has no assistant turn to learn", code="bad_rows", param="rows"
            )
        return "messages"
    if isinstance(row.get("prompt"), list) and isinstance(row.get("completion"), list):
        return "prompt_completion"
    raise TrainerInputError(
        f"row {index} is neither {{prompt, completion}} nor {{messages, tools}} conversational",
        code="bad_rows",
        param="rows",
    )


def run_sft(
    rows: Sequence[Mapping[str, Any]],
    base: str,
    hyper: SFTHyper,
    out_dir: str | Path,
    *,
    callback: Callback | None = None,
    allow_download: bool = False,
) -> dict[str, Any]:
    """Fine-tune ``base`` (``tiny``, a path or a hub id) on ``rows``; checkpoints under
    ``out_dir``. Returns ``{train_loss, steps, tokens, tokens_per_s, runtime_s, …}``."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    records, is_messages = sft_rows(rows)
    quiet()
    model, tokenizer = resolve_base(
        base, rows, seed=hyper.seed, lora=hyper.lora, allow_download=allow_download
    )
    check_fits(tokenizer, records, hyper.max_length)
    out = Path(out_dir)
    config = SFTConfig(
        **training_arguments(hyper, out),
        completion_only_loss=hyper.completion_only and not is_messages,
        assistant_only_loss=hyper.completion_only and is_messages,
        packing=False,
        dataset_num_proc=None,
    )
    state = RunState(callback, total=0)
    keeper = CheckpointKeeper(out, hyper.save_steps, hyper.keep_checkpoints)
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=Dataset.from_list(records),
        processing_class=tokenizer,
        callbacks=[trainer_callback(state, keeper, tokenizer)],
    )
    return train_with(trainer, state, keeper, tokenizer)
