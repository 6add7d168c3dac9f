"""Synth examples → TRL conversational rows with tools."""

from __future__ import annotations

import json
from typing import Any

from services.trainer.datasets.tool_sft import build_tool_sft

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def example(
    arguments: Any = '{"city": "Lisbon"}', name: str = "get_weather", **extra: Any
) -> dict[str, Any]:
    call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {
        "messages": [
            {"role": "user", "content": "Weather in Lisbon?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ],
        "tools": [WEATHER],
        "meta": {"category": "simple", "features": ["x"], "ground_truth": {}, "trace": []},
        **extra,
    }


def test_string_arguments_become_objects_and_meta_shrinks() -> None:
    rows, stats = build_tool_sft([example()])
    assert stats["rows"] == 1 and stats["categories"] == {"simple": 1}
    row = rows[0]
    assert set(row) == {"messages", "tools", "meta"}
    assistant = row["messages"][1]
    assert assistant["content"] == ""
    assert assistant["tool_calls"] == [
        {
            "type": "function",
            "function": {"name": "get_weather", "arguments": {"city": "Lisbon"}},
            "id": "call_0",
        }
    ]
    assert row["tools"] == [WEATHER] and row["meta"] == {"category": "simple"}


def test_object_arguments_and_irrelevance_rows_pass() -> None:
    irrelevant = {
        "messages": [
            {"role": "user", "content": "Tell me a joke"},
            {"role": "assistant", "content": "None of the tools can help."},
        ],
        "tools": [WEATHER],
        "meta": {"category": "irrelevance"},
    }
    rows, stats = build_tool_sft([example({"city": "Porto"}), irrelevant])
    assert rows[0]["messages"][1]["tool_calls"][0]["function"]["arguments"] == {"city": "Porto"}
    assert rows[1]["messages"][1] == irrelevant["messages"][1]
    assert stats["categories"] == {"irrelevance": 1, "simple": 1}


def test_bad_examples_are_skipped_by_reason() -> None:
    bad = [
        example("{not json"),
        example("[1, 2]"),
        example(name="get_time"),
        {"messages": [{"role": "user", "content": "hi"}], "tools": []},
        {"messages": [{"role": "robot", "content": "hi"}], "tools": []},
        {"tools": []},
        "not an object",
        example(),
        example(),
    ]
    rows, stats = build_tool_sft(bad)  # type: ignore[arg-type]
    assert len(rows) == 1
    assert stats["examples"] == {
        "seen": 9,
        "kept": 1,
        "skipped": {
            "bad_arguments": 2,
            "bad_example": 2,
            "bad_message": 1,
            "duplicate": 1,
            "no_assistant_turn": 1,
            "unknown_tool": 1,
        },
    }


def test_tools_as_one_json_string_or_strings_are_read() -> None:
    """Synth serves ``tools`` as one JSON string; older rows held a list of strings."""
    forms = [json.dumps([WEATHER]), [json.dumps(WEATHER)], [WEATHER]]
    built = [build_tool_sft([example({"city": "Porto"}, tools=tools)]) for tools in forms]
    assert all(rows[0]["tools"] == [WEATHER] for rows, _ in built)
    rows, stats = build_tool_sft([example(tools="{broken"), example(tools='{"a": 1}')])
    assert not rows and stats["examples"]["skipped"] == {"bad_tool": 1, "bad_example": 1}
