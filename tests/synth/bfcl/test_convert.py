"""OpenAI ⇄ BFCL conversion, and bfcl-eval's own checker judging our exported rows."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from services.synth.bfcl.convert import (
    PYTHON_HINT,
    bfcl_row,
    from_bfcl_function,
    openai_name,
    split_row,
    to_bfcl_function,
)
from services.synth.bfcl.loader import judge
from services.synth.calls import Call, GroundTruth, Tool
from services.synth.checker import check_calls


def tool(name: str, properties: dict[str, Any], required: list[str]) -> Tool:
    params = {"type": "object", "properties": properties, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": params},
    }


HOTEL = tool(
    "book_hotel",
    {
        "city": {"type": "string"},
        "nights": {"type": "integer", "minimum": 1},
        "budget": {"type": "number"},
        "breakfast": {"type": "boolean", "default": False},
        "room": {"type": "string", "enum": ["single", "double", "suite"], "default": "double"},
        "guests": {"type": "array", "items": {"type": "string"}},
        "contact": {
            "type": "object",
            "properties": {"email": {"type": "string"}, "phone": {"type": "string"}},
            "required": ["email"],
        },
        "legs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"from": {"type": "string"}, "day": {"type": "integer"}},
            },
        },
    },
    ["city", "nights"],
)
CONVERT = tool(
    "convert_currency",
    {"amount": {"type": "number"}, "to": {"type": "string"}, "rates": {"type": "array"}},
    ["amount", "to"],
)
WEATHER = tool("get_weather", {"city": {"type": "string"}}, ["city"])

PARIS = Call(
    "book_hotel",
    {
        "city": "Paris",
        "nights": 3,
        "budget": 450,
        "room": "suite",
        "guests": ["Ana", "Bo"],
        "contact": {"email": "ana@example.com"},
        "legs": [{"from": "Lyon", "day": 2}],
    },
)
ROME = Call("book_hotel", {"city": "Rome", "nights": 2, "breakfast": True})
EUROS = Call("convert_currency", {"amount": 99.5, "to": "EUR"})
TRUTHS = [
    GroundTruth("simple", (HOTEL,), (PARIS,)),
    GroundTruth("multiple", (WEATHER, HOTEL, CONVERT), (ROME,)),
    GroundTruth("parallel", (HOTEL,), (PARIS, ROME)),
    GroundTruth("parallel_multiple", (HOTEL, CONVERT, WEATHER), (ROME, EUROS, PARIS)),
]


def bfcl_output(calls: tuple[Call, ...] | list[Call]) -> list[dict[str, Any]]:
    return [{call.name: copy.deepcopy(call.arguments)} for call in calls]


def test_to_bfcl_uses_bfcl_type_names() -> None:
    doc = to_bfcl_function(HOTEL)
    params = doc["parameters"]
    assert doc["name"] == "book_hotel"
    assert params["type"] == "dict"
    assert params["required"] == ["city", "nights"]
    assert params["properties"]["budget"]["type"] == "float"
    assert params["properties"]["contact"]["type"] == "dict"
    assert params["properties"]["legs"]["items"]["type"] == "dict"
    assert params["properties"]["legs"]["items"]["properties"]["day"]["type"] == "integer"
    assert HOTEL["function"]["parameters"]["properties"]["budget"]["type"] == "number"


def test_round_trip_is_identity_on_json_schema() -> None:
    for original in (HOTEL, CONVERT, WEATHER):
        assert from_bfcl_function(to_bfcl_function(original)) == original


def test_from_bfcl_maps_types_names_and_hint() -> None:
    doc = {
        "name": "geometry.area.circle",
        "description": "Area of a circle.",
        "parameters": {
            "type": "dict",
            "properties": {
                "radius": {"type": "float", "description": "r"},
                "center": {"type": "tuple", "items": {"type": "float"}},
                "meta": {"type": "dict", "properties": {"tag": {"type": "any"}}},
            },
            "required": ["radius"],
        },
    }
    converted = from_bfcl_function(doc, hint=PYTHON_HINT)
    function = converted["function"]
    assert function["name"] == "geometry_area_circle" == openai_name(doc["name"])
    assert function["description"].endswith("Python 3 syntax.")
    props = function["parameters"]["properties"]
    assert function["parameters"]["type"] == "object"
    assert props["radius"]["type"] == "number"
    assert props["center"] == {"type": "array", "items": {"type": "number"}}
    assert props["meta"]["type"] == "object"
    assert props["meta"]["properties"]["tag"]["type"] == "string"
    assert doc["parameters"]["type"] == "dict"  # the input is not mutated


def test_bfcl_row_splits_into_bfcl_files() -> None:
    row = bfcl_row("synth_simple_0", "Book Paris for 3 nights", TRUTHS[0])
    assert row["question"] == [[{"role": "user", "content": "Book Paris for 3 nights"}]]
    assert row["function"] == [to_bfcl_function(HOTEL)]
    question, answer = split_row(row)
    assert set(question) == {"id", "question", "function"}
    assert answer == {"id": "synth_simple_0", "ground_truth": row["ground_truth"]}
    none = bfcl_row(
        "synth_irrelevance_0", "Tell me a joke", GroundTruth("irrelevance", (HOTEL,), ())
    )
    assert split_row(none)[1] is None


@pytest.mark.parametrize("truth", TRUTHS, ids=[t.category for t in TRUTHS])
def test_bfcl_eval_accepts_our_export(truth: GroundTruth) -> None:
    row = bfcl_row(f"synth_{truth.category}_0", "query", truth)
    assert check_calls(list(truth.calls), truth).ok
    for calls in (truth.calls, truth.calls[::-1]):
        verdict = judge(row["function"], bfcl_output(calls), row["ground_truth"], truth.category)
        assert verdict["valid"], verdict["error"]


@pytest.mark.parametrize("truth", TRUTHS, ids=[t.category for t in TRUTHS])
def test_bfcl_eval_rejects_wrong_outputs(truth: GroundTruth) -> None:
    row = bfcl_row(f"synth_{truth.category}_0", "query", truth)
    function, answer = row["function"], row["ground_truth"]
    changed = bfcl_output(truth.calls)
    first = next(iter(changed[0].values()))
    first["city"] = "Atlantis"
    assert not judge(function, changed, answer, truth.category)["valid"]
    assert not check_calls([Call(*next(iter(c.items()))) for c in changed], truth).ok
    missing = bfcl_output(truth.calls)
    del next(iter(missing[-1].values()))[next(iter(truth.calls[-1].arguments))]
    assert not judge(function, missing, answer, truth.category)["valid"]
    assert not judge(function, bfcl_output(truth.calls)[1:], answer, truth.category)["valid"]


def test_builtin_catalog_exports_are_judged_valid() -> None:
    try:
        from services.synth.catalog import builtin_catalog
        from services.synth.sampling import Sampler
    except ImportError:  # pragma: no cover - the catalog ships with the synth service
        pytest.skip("no built-in catalog")
    sampler = Sampler(builtin_catalog(), seed=7)
    judged = 0
    for index in range(60):
        truth = sampler.sample()
        if truth.category == "irrelevance":
            continue
        row = bfcl_row(f"synth_{index}", "query", truth)
        output = bfcl_output(truth.calls)
        verdict = judge(row["function"], output, row["ground_truth"], truth.category)
        assert verdict["valid"], (truth, verdict["error"])
        judged += 1
    assert judged >= 30
