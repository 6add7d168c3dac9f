"""Example rows: the TRL conversational shape, and they load with ``datasets``."""

from __future__ import annotations

import json
from pathlib import Path

import datasets

from services.synth.calls import Call, GroundTruth
from services.synth.examples import NO_FIT, decode_row, trl_row
from services.synth.generators.template import TemplateGenerator
from services.synth.outcome import example_row
from services.synth.pipeline import synthesize


def _tool(name: str, props: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


ALARM = _tool(
    "set_alarm",
    {
        "time": {
            "type": "string",
            "pattern": "^[0-2][0-9]:[0-5][0-9]$",
            "description": "When to ring, HH:MM",
        },
        "repeat": {"type": "boolean", "default": False, "description": "Ring again every day"},
    },
    ["time"],
)
PLAYLIST = _tool(
    "create_playlist",
    {
        "name": {"type": "string", "description": "Title of the new playlist"},
        "songs": {"type": "array", "items": {"type": "string"}, "description": "Songs to add"},
        "mode": {
            "type": "string",
            "enum": ["shuffle", "ordered"],
            "default": "ordered",
            "description": "Playback order",
        },
    },
    ["name"],
)
TRUTHS = [
    GroundTruth(
        "simple",
        (ALARM,),
        (Call("set_alarm", {"time": "07:30", "repeat": True}),),
        {"functions": ["set_alarm"], "size": 1},
    ),
    GroundTruth(
        "multiple",
        (ALARM, PLAYLIST),
        (Call("create_playlist", {"name": "Run", "songs": ["Roar", "Jump"], "mode": "shuffle"}),),
        {"size": 1},
    ),
    GroundTruth(
        "irrelevance",
        (PLAYLIST,),
        (),
        {
            "intent": {"name": "set_alarm", "arguments": {"time": "06:00"}},
            "intent_tool": ALARM,
            "size": 1,
        },
    ),
]


def _rows() -> list[dict]:
    generator = TemplateGenerator()
    outcomes = [synthesize(t, generator, seed=i) for i, t in enumerate(TRUTHS)]
    assert all(o.accepted for o in outcomes)
    return [example_row(o) for o in outcomes]


def test_rows_have_the_conversational_shape() -> None:
    simple, multiple, irrelevant = _rows()
    user, assistant = simple["messages"]
    assert user["role"] == "user" and assistant["role"] == "assistant"
    (item,) = assistant["tool_calls"]
    assert item["type"] == "function" and item["function"]["name"] == "set_alarm"
    assert item["function"]["arguments"] == {"time": "07:30", "repeat": True}
    assert simple["meta"]["category"] == "simple"
    assert json.loads(simple["meta"]["ground_truth"])[0]["function"]["name"] == "set_alarm"
    assert isinstance(simple["tools"], str) and json.loads(simple["tools"])[0] == ALARM
    assert irrelevant["messages"][1] == {"role": "assistant", "content": NO_FIT}
    assert json.loads(irrelevant["meta"]["features"])["intent_tool"] == "set_alarm"
    trace = json.loads(multiple["meta"]["trace"])
    assert trace[-1]["stage"] == "calls" and trace[-1]["verdict"]["ok"]


def test_rows_with_mixed_shapes_load_with_datasets(tmp_path: Path) -> None:
    rows = _rows()
    path = tmp_path / "examples.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    loaded = datasets.load_dataset("json", data_files=str(path), split="train")
    assert len(loaded) == 3
    for original, row in zip(rows, loaded, strict=True):
        assert decode_row(row) == decode_row(original)


def test_loaded_rows_are_exact(tmp_path: Path) -> None:
    """``datasets`` gives every message back as written: no argument keys merged across rows."""
    rows = _rows()
    path = tmp_path / "examples.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    loaded = datasets.load_dataset("json", data_files=str(path), split="train")
    for original, row in zip(rows, loaded, strict=True):
        assert row["messages"] == original["messages"] and row["tools"] == original["tools"]


def test_older_stored_rows_become_the_current_form() -> None:
    current = _rows()[0]
    older = {
        "messages": [
            current["messages"][0],
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "type": "function",
                        "function": {"name": "set_alarm", "arguments": '{"time":"07:30"}'},
                    }
                ],
            },
        ],
        "tools": [json.dumps(ALARM)],
        "meta": current["meta"],
    }
    row = trl_row(older)
    assert json.loads(row["tools"]) == [ALARM] and row["meta"] == current["meta"]
    call = row["messages"][1]["tool_calls"][0]["function"]
    assert call == {"name": "set_alarm", "arguments": {"time": "07:30"}}
    assert trl_row(current) == current
