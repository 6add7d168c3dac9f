"""The real base's cost harness on the session's materialised base (no conversion here)."""

from __future__ import annotations

import pytest

from benchmarks.real_base import forward_rates
from services.common.base_models import Materialized


@pytest.mark.real_model
def test_forward_rates_compare_float32_and_bf16(real_base: Materialized) -> None:
    pytest.importorskip("torch")
    figures = forward_rates(real_base.path, tokens=16, repeats=1, threads=1)
    assert figures["tokens"] == 16 and figures["threads"] == 1
    assert figures["float32_tok_s"] > 0 and figures["bfloat16_tok_s"] > 0
    assert 0.5 <= figures["next_token_agreement"] <= 1.0
