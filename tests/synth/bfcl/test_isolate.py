"""Dropping catalog tools that overlap BFCL's functions by name or by signature."""

from __future__ import annotations

from typing import Any

import pytest

from services.synth.bfcl.convert import from_bfcl_function
from services.synth.bfcl.data import all_functions, load_cases
from services.synth.bfcl.isolate import NEAR_THRESHOLD, isolate, normalise_name, signature
from services.synth.calls import Tool, tool_name


def tool(name: str, properties: dict[str, Any]) -> Tool:
    params = {"type": "object", "properties": properties, "required": list(properties)[:1]}
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": params},
    }


BFCL = [
    {
        "name": "math.hypot",
        "description": "Hypotenuse.",
        "parameters": {
            "type": "dict",
            "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
            "required": ["x", "y"],
        },
    },
    {
        "name": "loan.monthly_payment",
        "description": "Monthly payment.",
        "parameters": {
            "type": "dict",
            "properties": {"principal": {"type": "float"}, "rate": {"type": "float"}},
            "required": ["principal", "rate"],
        },
    },
    {"name": "get_time", "description": "Now.", "parameters": {"type": "dict", "properties": {}}},
]


def test_normalised_names_and_signatures() -> None:
    assert normalise_name("Math.Hypot") == normalise_name("math_hypot") == "mathhypot"
    assert normalise_name("get-time") == "gettime"
    assert signature(BFCL[1]["parameters"]) == {("principal", "number"), ("rate", "number")}


def test_drops_name_and_signature_overlaps_and_says_why() -> None:
    tools = [
        tool("MATH-hypot", {"a": {"type": "string"}}),
        tool("monthly_cost", {"rate": {"type": "number"}, "principal": {"type": "number"}}),
        tool("monthly_cost_v2", {"rate": {"type": "integer"}, "principal": {"type": "number"}}),
        tool("hypotenuse", {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {}}),
        tool("now", {}),
    ]
    kept, dropped = isolate(tools, BFCL)
    assert [tool_name(t) for t in kept] == ["monthly_cost_v2", "hypotenuse", "now"]
    assert [(d["name"], d["reason"], d["bfcl_function"]) for d in dropped] == [
        ("MATH-hypot", "name", "math.hypot"),
        ("monthly_cost", "signature", "loan.monthly_payment"),
    ]
    assert dropped[0]["tool"] is tools[0]


def test_default_is_every_bfcl_ast_function() -> None:
    case = load_cases("parallel_multiple")[0]
    bfcl_tool = from_bfcl_function(case.functions[0])  # dots become underscores
    renamed = from_bfcl_function({**case.functions[1], "name": "totally_new_name"})
    fresh = tool("summarise_meeting_notes", {"notes_markdown": {"type": "string"}})
    kept, dropped = isolate([bfcl_tool, renamed, fresh])
    assert kept == [fresh]
    assert {d["bfcl_function"] for d in dropped} == {f["name"] for f in case.functions[:2]}
    assert len(all_functions()) > 700


def test_builtin_catalog_keeps_no_overlap() -> None:
    try:
        from services.synth.catalog import builtin_catalog
    except ImportError:  # pragma: no cover - the catalog ships with the synth service
        pytest.skip("no built-in catalog")
    catalog = list(builtin_catalog())
    kept, dropped = isolate(catalog)
    assert len(kept) + len(dropped) == len(catalog)
    bfcl_names = {normalise_name(f["name"]) for f in all_functions()}
    assert not any(normalise_name(tool_name(t)) in bfcl_names for t in kept)


def test_renamed_bfcl_function_is_a_near_match_with_its_score() -> None:
    original = next(
        f for f in all_functions() if len((f.get("parameters") or {}).get("properties") or {}) >= 2
    )
    props = original["parameters"]["properties"]
    renamed = {
        **original,
        "name": "my_fresh_helper",
        "parameters": {
            "type": "dict",
            "properties": {f"arg_{i}": v for i, v in enumerate(props.values())},
            "required": [],
        },
    }
    kept, dropped = isolate([from_bfcl_function(renamed)])
    assert kept == []
    assert dropped[0]["reason"] == "similar"
    assert dropped[0]["bfcl_function"] == original["name"]
    assert NEAR_THRESHOLD <= dropped[0]["score"] <= 1.0


def test_unrelated_tool_scores_below_the_threshold() -> None:
    fresh = tool("summarise_meeting_notes", {"notes_markdown": {"type": "string"}})
    kept, dropped = isolate([fresh], BFCL)
    assert kept == [fresh] and dropped == []
    assert all(d["score"] == 1.0 for d in isolate([tool("math_hypot", {})], BFCL)[1])
