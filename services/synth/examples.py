"""Accepted outcomes as TRL conversational rows, the form the trainer and the export read.

A row is ``{"messages": [user, assistant], "tools": [...], "meta": {...}}``. The assistant
turn carries ``tool_calls`` in the OpenAI wire form, whose ``function.arguments`` is a JSON
*string* (as the API sends it); an irrelevance row's assistant turn has ``content`` saying
no available function fits and no ``tool_calls``.

Why strings: JSON-lines files go through Arrow's schema inference in
``datasets.load_dataset("json", ...)``, which needs every field to have one type across rows.
Call arguments, ground-truth calls, features and the trace differ in shape from row to row
(a ``default`` is a bool in one tool and a string in another), so those nested parts are
stored as JSON strings: ``function.arguments``, each entry of ``tools``, ``meta.features``,
``meta.ground_truth`` and ``meta.trace``. :func:`decode_row` turns a loaded row back into
plain objects.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from services.synth.calls import Call

if TYPE_CHECKING:
    from services.synth.pipeline import Outcome

__all__ = ["NO_FIT", "decode_row", "example_row", "wire_call"]

NO_FIT = "None of the available functions can do that, so I can't help with it using them."


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def wire_call(call: Call) -> dict[str, Any]:
    """An OpenAI ``tool_calls`` item with ``arguments`` as a JSON string."""
    return {
        "type": "function",
        "function": {"name": call.name, "arguments": _dumps(call.arguments)},
    }


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
        "tools": [_dumps(tool) for tool in truth.tools],
        "meta": {
            "category": truth.category,
            "accepted": outcome.accepted,
            "refine_rounds": outcome.refine_rounds,
            "features": _dumps(features),
            "ground_truth": _dumps([c.wire() for c in truth.calls]),
            "trace": _dumps(outcome.trace),
        },
    }


def decode_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its JSON-string parts decoded: arguments, tools and meta as objects."""
    messages = []
    for message in row["messages"]:
        message = {k: v for k, v in message.items() if v is not None}
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    "type": "function",
                    "function": {
                        "name": item["function"]["name"],
                        "arguments": json.loads(item["function"]["arguments"]),
                    },
                }
                for item in message["tool_calls"]
            ]
        else:
            message.pop("tool_calls", None)
        messages.append(message)
    meta = dict(row["meta"])
    for key in ("features", "ground_truth", "trace"):
        meta[key] = json.loads(meta[key])
    return {"messages": messages, "tools": [json.loads(t) for t in row["tools"]], "meta": meta}
