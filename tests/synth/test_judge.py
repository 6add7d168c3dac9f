"""The NLL judge: fluent text scores lower than its words shuffled; batching changes nothing."""

from __future__ import annotations

import math
from typing import Any

import pytest

from services.synth.judge import NllJudge, mean_nll

FLUENT = "What is the weather like in Paris today?"
SHUFFLED = "today weather Paris like is What in the?"


class _Fixed:
    def __init__(self, scores: list[float]) -> None:
        self.given = scores

    def scores(self, texts: list[str]) -> list[float]:
        return self.given[: len(texts)]


def test_the_mean_skips_empty_texts_and_refuses_none() -> None:
    assert mean_nll(_Fixed([2.0, math.nan, 4.0]), ["a", "", "b"]) == 3.0
    with pytest.raises(ValueError, match="no non-empty text"):
        mean_nll(_Fixed([math.nan]), [""])


@pytest.mark.real_model
def test_the_real_base_prefers_a_fluent_question(real_base: Any) -> None:
    judge = NllJudge(data_dir=real_base.path.parent.parent, batch_size=2)
    texts = [FLUENT, SHUFFLED, "Book a table for two at 7 pm, please.", ""]
    together = judge.scores(texts)
    alone = [judge.scores([t])[0] for t in texts[:3]]
    assert together[0] + 1.0 < together[1]  # a shuffle costs well over a nat a token
    assert all(abs(a - b) < 1e-3 for a, b in zip(alone, together, strict=False))
    assert math.isnan(together[3]) and 1.0 < mean_nll(judge, texts) < 10.0
