"""One ground truth's trip through the ToolLoop's stages 2 and 3, and its TRL row.

:mod:`services.synth.pipeline` makes outcomes; the jobs, the export and the benchmarks read
them without importing the pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.synth.calls import Call, GroundTruth
from services.synth.examples import NO_FIT, dumps, wire_call

__all__ = ["Outcome", "example_row"]


@dataclass
class Outcome:
    """One ground truth's trip through stages 2 and 3, every round recorded in ``trace``."""

    accepted: bool
    truth: GroundTruth
    query: str
    calls: tuple[Call, ...]
    refine_rounds: int
    trace: list[dict[str, Any]] = field(default_factory=list)

    def example(self) -> dict[str, Any]:
        """The TRL conversational row (see :func:`example_row`)."""
        return example_row(self)


def example_row(outcome: Outcome) -> dict[str, Any]:
    """The TRL conversational row for ``outcome`` (accepted or not: ``meta`` says which)."""
    truth = outcome.truth
    if truth.category == "irrelevance" or not outcome.calls:
        assistant: dict[str, Any] = {"role": "assistant", "content": NO_FIT}
    else:
        assistant = {"role": "assistant", "tool_calls": [wire_call(c) for c in outcome.calls]}
    features = {k: v for k, v in truth.features.items() if k != "intent_tool"}
    if "intent_tool" in truth.features:
        features["intent_tool"] = truth.features["intent_tool"]["function"]["name"]
    return {
        "messages": [{"role": "user", "content": outcome.query}, assistant],
        "tools": dumps(list(truth.tools)),
        "meta": {
            "category": truth.category,
            "accepted": outcome.accepted,
            "refine_rounds": outcome.refine_rounds,
            "features": dumps(features),
            "ground_truth": dumps([c.wire() for c in truth.calls]),
            "trace": dumps(outcome.trace),
        },
    }
