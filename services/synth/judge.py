"""How natural a question reads to a pretrained LM: its mean per-token negative log-likelihood.

A question is scored as plain text after one start token (the tokenizer's BOS, else its EOS,
so the first word is scored too): the mean NLL, in nats, of its tokens. Lower reads more like
the text the model learnt from. :func:`mean_nll` averages over questions, each counting once,
so a long question weighs no more than a short one. The model is any named real base
(:mod:`services.common.base_models`, ``smollm2-135m`` by default, or the judge-only
``gemma3-270m``), loaded once per process; measured in float32 unless told otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from services.common import base_models

__all__ = ["NllJudge", "mean_nll"]


class NllJudge:
    """Scores questions in batches with a named base (``name``) on the CPU."""

    def __init__(
        self,
        name: str = "smollm2-135m",
        data_dir: Path | None = None,
        *,
        threads: int = 1,
        batch_size: int = 16,
        max_tokens: int = 256,
        dtype: str = "float32",
        param: str = "judge",
    ) -> None:
        if batch_size < 1 or max_tokens < 2:
            raise ValueError("batch_size must be ≥ 1 and max_tokens ≥ 2")
        self.loaded = base_models.load(name, data_dir, dtype=dtype, threads=threads, param=param)
        self.name, self.batch_size, self.max_tokens = name, batch_size, max_tokens
        tokenizer = self.loaded.tokenizer
        start = tokenizer.bos_token_id
        self.start = start if start is not None else tokenizer.eos_token_id

    def scores(self, texts: Sequence[str]) -> list[float]:
        """Each text's mean per-token NLL (nats), in order; NaN for an empty text. Texts of
        like length share a batch, so little is spent on padding."""
        tokenizer = self.loaded.tokenizer
        rows = [
            [self.start, *tokenizer(t, add_special_tokens=False)["input_ids"]][: self.max_tokens]
            for t in texts
        ]
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        out = [math.nan] * len(rows)
        for first in range(0, len(order), self.batch_size):
            chosen = order[first : first + self.batch_size]
            for i, score in zip(chosen, self._batch([rows[i] for i in chosen]), strict=True):
                out[i] = score
        return out

    def _batch(self, rows: Sequence[list[int]]) -> list[float]:
        import torch

        width = max(len(r) for r in rows)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = torch.tensor(row)
            mask[i, : len(row)] = 1
        with self.loaded.lock, torch.inference_mode():
            logits = self.loaded.model(input_ids=ids, attention_mask=mask).logits.float()
        losses = torch.nn.functional.cross_entropy(
            logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none"
        )
        kept = mask[:, 1:].float()
        totals, counts = (losses * kept).sum(1), kept.sum(1)
        return [
            float(t / c) if c > 0 else math.nan
            for t, c in zip(totals.tolist(), counts.tolist(), strict=True)
        ]


def mean_nll(judge: Any, texts: Sequence[str]) -> float:
    """The mean over ``texts`` (empty ones skipped) of each one's mean per-token NLL."""
    scores = [s for s in judge.scores(texts) if not math.isnan(s)]
    if not scores:
        raise ValueError("no non-empty text to score")
    return sum(scores) / len(scores)
