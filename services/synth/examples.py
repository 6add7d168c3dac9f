"""TRL conversational rows, the form the trainer and the export read (an outcome becomes
one in :func:`services.synth.outcome.example_row`).

A row is ``{"messages": [user, assistant], "tools": "<JSON list>", "meta": {...}}``, the
form TRL's trainers tokenize as they stand:

- the assistant turn carries ``tool_calls`` as ``{"type": "function", "function": {"name",
  "arguments": {...}}}`` with ``arguments`` a JSON *object*, as chat templates render it
  (``arguments | tojson``) and as TRL's own tool-calling checks pass it; an irrelevance row's
  assistant turn has ``content`` saying no available function fits and no ``tool_calls``;
- ``tools`` is the list of OpenAI function schemas as one JSON string, which TRL's
  ``SFTTrainer`` (and its DPO, KTO and reward trainers) decode before applying the chat
  template. One string keeps every row's schema the same whatever its tools look like.

JSON-lines files go through Arrow's schema inference in ``datasets.load_dataset("json", ...)``.
``datasets`` stores the messages, whose turns differ in keys, as its ``Json`` feature and
gives them back exactly. ``meta``'s nested parts (``features``, ``ground_truth``, ``trace``)
differ in shape from row to row and are JSON strings. :func:`decode_row` turns a loaded row
into plain objects; :func:`trl_row` brings a stored row of either form (older rows kept
``tools`` as a list of JSON strings and ``arguments`` as a JSON string) to this one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from services.synth.calls import Call

__all__ = ["NO_FIT", "decode_row", "dumps", "trl_row", "wire_call"]

NO_FIT = "None of the available functions can do that, so I can't help with it using them."


def dumps(value: Any) -> str:
    """Compact JSON in key order, non-ASCII kept: how a row's JSON-string parts are written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def wire_call(call: Call) -> dict[str, Any]:
    """A ``tool_calls`` item with ``arguments`` as an object (a copy of the call's)."""
    arguments = json.loads(dumps(call.arguments))
    return {"type": "function", "function": {"name": call.name, "arguments": arguments}}


def _loads(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _tools(value: Any) -> list[Any]:
    """The tool list of a row: one JSON string, or (older rows) a list of schemas or strings."""
    return [_loads(tool) for tool in _loads(value) or []]


def _messages(messages: Any) -> list[dict[str, Any]]:
    out = []
    for message in messages:
        message = {k: v for k, v in message.items() if v is not None}
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    "type": "function",
                    "function": {
                        "name": item["function"]["name"],
                        "arguments": _loads(item["function"]["arguments"]),
                    },
                }
                for item in message["tool_calls"]
            ]
        else:
            message.pop("tool_calls", None)
        out.append(message)
    return out


def trl_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stored row (current or older form) as the current TRL row; ``meta`` kept as is."""
    return {
        "messages": _messages(row["messages"]),
        "tools": dumps(_tools(row.get("tools"))),
        "meta": dict(row.get("meta") or {}),
    }


def decode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with its JSON-string parts decoded: tools and meta as objects."""
    meta = dict(row["meta"])
    for key in ("features", "ground_truth", "trace"):
        meta[key] = _loads(meta[key])
    return {"messages": _messages(row["messages"]), "tools": _tools(row["tools"]), "meta": meta}
