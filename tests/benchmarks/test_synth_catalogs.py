"""Whole-catalog figures: the fresh library catalog, every function used, values that fit."""

from __future__ import annotations

import pytest

from benchmarks.synth_catalogs import bfcl_held_out_catalog, catalog_figures, library_catalog
from services.synth.calls import tool_name


def test_a_fresh_catalog_uses_every_function_with_values_that_fit() -> None:
    tools = library_catalog()
    figures = catalog_figures(tools, n=60, seed=0)
    assert figures["functions"] == 6 and figures["n"] == 60
    assert figures["functions_never_used"] == [] and figures["unrealisable"] == []
    assert figures["function_usage_entropy"] >= 0.95
    assert figures["value_fit_rate"] == 1.0 and figures["identifier_values"] > 50
    assert 0.5 <= figures["acceptance_rate"] <= 1.0
    assert figures["examples_per_s"] > 0


def test_the_bfcl_held_out_catalog_names_what_validation_refused() -> None:
    pytest.importorskip("bfcl_eval")
    tools, refused = bfcl_held_out_catalog()
    names = [tool_name(t) for t in tools]
    assert len(names) == len(set(names)) > 400
    assert refused and not set(refused) & set(names)
