"""Tool-use SFT rows from synth examples: TRL conversational rows with tools.

Synth serves ``{"messages", "tools", "meta"}`` with ``tools`` as one JSON string (the form
TRL's trainers decode); a list of schemas, or of JSON strings, is read too. TRL renders tool
calls through the model's chat template, and templates expect ``function.arguments`` as an
object (TRL's own tool checks pass a dict), so JSON-string arguments are decoded here; an
assistant turn that only calls tools gets ``content: ""`` (several templates cannot print
``None``). Rows whose
calls cannot be decoded, or that call a function the row does not offer, are skipped and
counted; exact duplicates are dropped. Meta shrinks to ``{"category"}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from services.trainer.datasets.stats import Tally

__all__ = ["ROLES", "RowSkipped", "build_tool_sft", "normalise_example", "normalise_tool_call"]

ROLES = frozenset({"system", "user", "assistant", "tool"})


class RowSkipped(ValueError):
    """An example that cannot become a row; ``reason`` is the stable stats key."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalise_tool_call(call: Any) -> dict[str, Any]:
    """``{"type": "function", "function": {"name", "arguments": {...}}}`` (``id`` kept)."""
    if not isinstance(call, Mapping):
        raise RowSkipped("bad_tool_call")
    function = call.get("function", call)
    name = function.get("name") if isinstance(function, Mapping) else None
    if not isinstance(name, str) or not name:
        raise RowSkipped("bad_tool_call")
    arguments = function.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            raise RowSkipped("bad_arguments") from None
    if not isinstance(arguments, dict):
        raise RowSkipped("bad_arguments")
    out: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if isinstance(call.get("id"), str):
        out["id"] = call["id"]
    return out


def _message(message: Any, tool_names: frozenset[str]) -> dict[str, Any]:
    if not isinstance(message, Mapping) or message.get("role") not in ROLES:
        raise RowSkipped("bad_message")
    out = {k: v for k, v in message.items() if k != "tool_calls"}
    calls = message.get("tool_calls") or []
    if calls:
        if message["role"] != "assistant":
            raise RowSkipped("bad_message")
        out["tool_calls"] = [normalise_tool_call(c) for c in calls]
        unknown = {c["function"]["name"] for c in out["tool_calls"]} - tool_names
        if unknown:
            raise RowSkipped("unknown_tool")
    content = out.get("content")
    if content is None:
        out["content"] = ""
    elif not isinstance(content, str):
        raise RowSkipped("bad_message")
    return out


def _tools(value: Any) -> list[Any]:
    """The row's tools as a list: decoded from one JSON string, or each entry from its own."""
    try:
        tools = json.loads(value) if isinstance(value, str) else value
        if not isinstance(tools, list):
            raise RowSkipped("bad_example")
        return [json.loads(t) if isinstance(t, str) else t for t in tools]
    except json.JSONDecodeError:
        raise RowSkipped("bad_tool") from None


def normalise_example(example: Mapping[str, Any]) -> dict[str, Any]:
    """One synth example → ``{"messages", "tools", "meta"}``, or :class:`RowSkipped`."""
    messages = example.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RowSkipped("bad_example")
    tools = _tools(example.get("tools", []))
    names = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise RowSkipped("bad_tool")
        names.append(function["name"])
    out_messages = [_message(m, frozenset(names)) for m in messages]
    if not any(m["role"] == "assistant" for m in out_messages):
        raise RowSkipped("no_assistant_turn")
    meta = example.get("meta")
    category = meta.get("category") if isinstance(meta, Mapping) else None
    return {
        "messages": out_messages,
        "tools": [dict(t) for t in tools],
        "meta": {"category": category},
    }


def build_tool_sft(
    examples: Iterable[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Synth examples → (TRL conversational rows with tools, stats)."""
    tally = Tally()
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    categories: dict[str, int] = {}
    for example in examples:
        tally.seen += 1
        try:
            row = normalise_example(example if isinstance(example, Mapping) else {})
        except RowSkipped as skipped:
            tally.skip(skipped.reason)
            continue
        key = json.dumps([row["messages"], row["tools"]], sort_keys=True)
        if key in seen:
            tally.skip("duplicate")
            continue
        seen.add(key)
        tally.kept += 1
        category = str(row["meta"]["category"])
        categories[category] = categories.get(category, 0) + 1
        rows.append(row)
    stats = {
        "builder": "tool_sft",
        "rows": len(rows),
        "examples": tally.as_dict(),
        "categories": dict(sorted(categories.items())),
    }
    return rows, stats
