"""A model's calls on BFCL's questions, judged by bfcl-eval; any single-turn category."""

from __future__ import annotations

import pytest

from services.synth.bfcl.data import load_cases
from services.synth.bfcl.model_eval import case_query, case_tools, half_cases, is_correct
from services.synth.calls import Call

pytest.importorskip("bfcl_eval")


def test_the_right_call_is_correct_and_a_wrong_value_is_not():
    case = load_cases("simple")[0]  # the triangle: base 10, height 5
    assert "triangle" in case_query(case)
    (tool,) = case_tools(case)
    name = tool["function"]["name"]
    assert is_correct(case, [Call(name, {"base": 10, "height": 5})])
    assert not is_correct(case, [Call(name, {"base": 10, "height": 6})])
    assert not is_correct(case, [])


def test_relevance_categories_judge_whether_there_is_a_call():
    irrelevant = load_cases("irrelevance")[0]
    assert is_correct(irrelevant, []) and not is_correct(irrelevant, [Call("x", {})])
    relevant = load_cases("live_relevance")[0]
    assert is_correct(relevant, [Call("x", {})]) and not is_correct(relevant, [])


def test_categories_go_by_bfcl_names_too_and_halves_by_position():
    live = load_cases("live_simple")
    assert live[0].bfcl_category == "live_simple"
    held = half_cases("live_simple", "held_out", 3)
    assert [c.id for c in held] == [live[1].id, live[3].id, live[5].id]
    assert len(half_cases("simple_python", "tuned")) == (len(load_cases("simple")) + 1) // 2
    with pytest.raises(ValueError, match="multi-turn"):
        load_cases("multi_turn_base")
    with pytest.raises(ValueError, match="unknown category 'nope'"):
        load_cases("nope")
    with pytest.raises(ValueError, match="unknown half"):
        half_cases("simple", "odd")


def test_java_parameters_are_strings_in_the_languages_syntax():
    case = load_cases("simple_java")[0]
    properties = case_tools(case)[0]["function"]["parameters"]["properties"]
    assert {spec["type"] for spec in properties.values()} == {"string"}
    assert all(spec["description"].endswith("a Java literal.") for spec in properties.values())
    name = case_tools(case)[0]["function"]["name"]
    right = {"controller": "mapController", "parent": "mapArea"}
    assert is_correct(case, [Call(name, right)])
    assert not is_correct(case, [Call(name, {**right, "parent": "mapView"})])
