"""The template ToolLoop on whole catalogs: does every function get used, evenly, with
values that fit?

Catalogs: ``builtin`` (the service's own), ``bfcl_held_out`` (every function of BFCL's
held-out half, odd positions of each AST data file, converted as the bridge converts them;
the few our catalog validation refuses are left out and named) and ``library`` (a user's
catalog the generator was never tuned on: ``examples/catalogs/library.json``, six functions
with a nested object, a list of objects, an ISBN-13, an IBAN, a country code).

Per catalog, ``per_function`` ground truths per function (at most ``max_n``) from the
stage-1 sampler, each through the ToolLoop with feedback:

- ``function_usage_entropy``: normalised entropy of the functions the accepted examples
  call (1.0 = even), over the sampler's (realisable) functions;
- ``functions_never_used``: realisable functions no accepted example calls (names);
- ``unrealisable``: what the sampler left out (``{name, reason}``);
- ``value_fit_rate``: share of every sampled argument value (all ground truths, nested
  values one by one) that fits its schema and the identifier its description names,
  checked by :mod:`benchmarks.value_fit`; ``identifier_fit_rate`` over those naming one;
- ``acceptance_rate`` and ``examples_per_s`` (accepted per second, sampling included;
  ``examples_per_cpu_s`` per second of this process's CPU time, for a shared machine).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.value_fit import value_fit
from services.synth.calls import GroundTruth, Tool, parameters, tool_name
from services.synth.catalog import CatalogError, builtin_catalog, validate_catalog
from services.synth.generators.template import TemplateGenerator
from services.synth.pipeline import synthesize
from services.synth.sampling import Sampler, normalised_entropy

__all__ = ["CATALOGS", "bfcl_held_out_catalog", "catalog_figures", "library_catalog", "run"]

LIBRARY = Path(__file__).resolve().parents[1] / "examples" / "catalogs" / "library.json"
CATALOGS = ("builtin", "bfcl_held_out", "library")


def library_catalog() -> list[Tool]:
    return validate_catalog(json.loads(LIBRARY.read_text()))


def bfcl_held_out_catalog() -> tuple[list[Tool], list[str]]:
    """BFCL's held-out functions as one catalog, and the names validation refused."""
    from services.synth.bfcl.convert import from_bfcl_function
    from services.synth.bfcl.data import AST_CATEGORIES
    from services.synth.bfcl.solver_eval import half_cases

    tools: dict[str, Tool] = {}
    for category in AST_CATEGORIES:
        for case in half_cases(category, "held_out"):
            for function in case.functions:
                tool = from_bfcl_function(function)
                tools.setdefault(tool_name(tool), tool)
    kept, refused = [], []
    for name, tool in tools.items():
        try:
            kept.extend(validate_catalog([tool]))
        except CatalogError:
            refused.append(name)
    return kept, refused


def _called(truths: Sequence[GroundTruth]) -> Iterator[tuple[Mapping[str, Any], Any]]:
    """``(parameters, arguments)`` of every call the ground truths hold (an irrelevance
    truth's intended call too)."""
    for truth in truths:
        by_name = {tool_name(t): t for t in truth.tools}
        for call in truth.calls:
            yield parameters(by_name[call.name]), call.arguments
        intent = truth.features.get("intent")
        if intent:
            yield parameters(truth.features["intent_tool"]), intent["arguments"]


def catalog_figures(tools: Sequence[Tool], *, n: int, seed: int = 0) -> dict[str, Any]:
    """The figures of the module doc for ``n`` ground truths over ``tools``."""
    generator = TemplateGenerator()
    start, cpu = time.perf_counter(), time.process_time()
    sampler = Sampler(list(tools), seed=seed)
    truths = [sampler.sample() for _ in range(n)]
    outcomes = [
        synthesize(t, generator, max_refine_rounds=3, seed=seed * 1_000_003 + i)
        for i, t in enumerate(truths)
    ]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    used = Counter(c.name for o in outcomes if o.accepted for c in o.truth.calls)
    usage = {name: used[name] for name in sampler.functions}
    accepted = sum(o.accepted for o in outcomes)
    return {
        "functions": len(tools),
        "n": n,
        "function_usage_entropy": round(normalised_entropy(usage, len(usage)), 4),
        "functions_never_used": [name for name, count in usage.items() if not count],
        "unrealisable": sampler.unrealisable,
        **value_fit(_called(truths)),
        "acceptance_rate": round(accepted / n, 4),
        "examples_per_s": round(accepted / elapsed, 1),
        "examples_per_cpu_s": round(accepted / cpu, 1),
    }


def run(
    names: Sequence[str] = CATALOGS, *, per_function: int = 20, max_n: int = 4000, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """:func:`catalog_figures` of each named catalog, ``per_function`` truths a function."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        refused: list[str] = []
        if name == "builtin":
            tools = builtin_catalog()
        elif name == "bfcl_held_out":
            tools, refused = bfcl_held_out_catalog()
        elif name == "library":
            tools = library_catalog()
        else:
            raise ValueError(f"unknown catalog {name!r}: use {', '.join(CATALOGS)}")
        figures = catalog_figures(tools, n=min(per_function * len(tools), max_n), seed=seed)
        out[name] = figures | ({"refused_by_validation": refused} if refused else {})
    return out
