"""Toy rows the runner tests train on: small, learnable, and shaped like the real ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SYSTEM = {"role": "system", "content": "You repair video timelines with patches."}


def prompt(i: int) -> list[dict[str, str]]:
    return [SYSTEM, {"role": "user", "content": f"shot {i % 4} is too long; fix it"}]


def good(i: int) -> dict[str, str]:
    return {"role": "assistant", "content": f'{{"op": "trim", "shot": {i % 4}}}'}


def bad(i: int) -> dict[str, str]:
    return {"role": "assistant", "content": f'{{"op": "remove", "shot": {i % 4}}}'}


def sft_rows(n: int = 24) -> list[dict[str, Any]]:
    return [{"prompt": prompt(i), "completion": [good(i)]} for i in range(n)]


def pair_rows(n: int = 16) -> list[dict[str, Any]]:
    return [{"prompt": prompt(i), "chosen": [good(i)], "rejected": [bad(i)]} for i in range(n)]


def pg_rows(n: int = 12) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        rows.append({"prompt": prompt(i), "completion": [good(i)], "advantage": 1.0, "group": i})
        rows.append({"prompt": prompt(i), "completion": [bad(i)], "advantage": -1.0, "group": i})
    return rows


def tiny_base(folder: Path) -> str:
    """A saved tiny base whose tokenizer knows every toy text."""
    from services.trainer.models import build_tiny, save_checkpoint
    from services.trainer.tokenizer import corpus_texts

    model, tokenizer = build_tiny(corpus_texts(pg_rows() + sft_rows()), seed=0)
    return str(save_checkpoint(model, tokenizer, folder / "base"))


def preference_gap(checkpoint: str, n: int = 8) -> float:
    """Mean log-prob of the good completions minus that of the bad ones."""
    from services.trainer.models import load_base
    from services.trainer.runners.policy_gradient import completion_logprobs

    model, tokenizer = load_base(checkpoint, lora=None)
    goods = completion_logprobs(model, tokenizer, [pg_rows(n)[2 * i] for i in range(n)])
    bads = completion_logprobs(model, tokenizer, [pg_rows(n)[2 * i + 1] for i in range(n)])
    return sum(goods) / n - sum(bads) / n
