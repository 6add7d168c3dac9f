"""The call checker: schema issues, BFCL-style equivalence, categories, feedback, speed."""

from __future__ import annotations

from typing import Any

import pytest

from services.synth.calls import Call, GroundTruth, Tool
from services.synth.checker import check_bfcl, check_calls, possible_answer, standardize_string


def tool(name: str, properties: dict[str, Any], required: list[str]) -> Tool:
    params = {"type": "object", "properties": properties, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": params},
    }


WEATHER = tool(
    "get_weather",
    {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "threshold": {"type": "number"},
    },
    ["city"],
)
BOOK = tool(
    "book_table",
    {
        "restaurant": {"type": "string"},
        "party": {
            "type": "object",
            "properties": {"size": {"type": "integer"}, "names": {"type": "array"}},
            "required": ["size"],
        },
        "slots": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"day": {"type": "string"}, "hour": {"type": "integer"}},
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "vip": {"type": "boolean"},
    },
    ["restaurant", "party"],
)
NEW_YORK = Call("get_weather", {"city": "New York", "days": 3})
PARIS = Call("get_weather", {"city": "Paris", "unit": "fahrenheit"})


def truth(category: str, *calls: Call, tools: tuple[Tool, ...] = (WEATHER, BOOK)) -> GroundTruth:
    return GroundTruth(category, tools, calls)  # type: ignore[arg-type]


def codes(calls: list[Call], gt: GroundTruth) -> list[str]:
    return [issue.code for issue in check_calls(calls, gt).issues]


def test_possible_answer_is_bfcl_form() -> None:
    book = Call(
        "book_table",
        {"restaurant": "Noma", "party": {"size": 2}, "slots": [{"day": "Mon", "hour": 19}]},
    )
    answer = possible_answer(truth("parallel_multiple", NEW_YORK, book))
    assert answer[0] == {
        "get_weather": {
            "city": ["New York"],
            "unit": ["", "celsius"],
            "days": [3],
            "threshold": [""],
        }
    }
    assert answer[1]["book_table"]["party"] == [{"size": [2], "names": [""]}]
    assert answer[1]["book_table"]["slots"] == [[{"day": ["Mon"], "hour": [19]}]]
    assert answer[1]["book_table"]["tags"] == [""]
    assert possible_answer(truth("irrelevance")) == []


def test_ground_truth_passes_its_own_check() -> None:
    gt = truth("parallel", NEW_YORK, PARIS)
    assert check_calls(list(gt.calls), gt).ok
    assert check_calls([PARIS, NEW_YORK], gt).ok  # order-free


@pytest.mark.parametrize(
    ("arguments", "ok"),
    [
        ({"city": "new york", "days": 3}, True),  # BFCL string standardisation
        ({"city": "New-York", "days": 3, "unit": "celsius"}, True),  # default accepted
        ({"city": "New York", "days": 3, "unit": "fahrenheit"}, False),
        ({"city": "Boston", "days": 3}, False),
        ({"city": "New York"}, False),  # the answer sets days
    ],
)
def test_value_equivalence(arguments: dict[str, Any], ok: bool) -> None:
    gt = truth("simple", NEW_YORK, tools=(WEATHER,))
    assert check_calls([Call("get_weather", arguments)], gt).ok is ok


def test_int_is_accepted_for_number() -> None:
    gt = truth("simple", Call("get_weather", {"city": "Rome", "threshold": 2.0}), tools=(WEATHER,))
    assert check_calls([Call("get_weather", {"city": "Rome", "threshold": 2})], gt).ok
    bad = check_calls([Call("get_weather", {"city": "Rome", "threshold": True})], gt)
    assert [i.code for i in bad.issues] == ["wrong_type"]


def test_schema_issues_name_call_and_param() -> None:
    gt = truth("simple", NEW_YORK, tools=(WEATHER,))
    verdict = check_calls(
        [Call("get_weather", {"days": "3", "unit": "kelvin", "wind": 1})],
        gt,
    )
    found = {(i.code, i.param) for i in verdict.issues}
    assert ("missing_required", "city") in found
    assert ("wrong_type", "days") in found
    assert ("bad_enum", "unit") in found
    assert ("unknown_parameter", "wind") in found
    assert all(issue.call == 0 for issue in verdict.issues)
    enum = next(i for i in verdict.issues if i.code == "bad_enum")
    assert "'celsius', 'fahrenheit'" in enum.message


def test_out_of_range_and_nested_types() -> None:
    gt = truth("simple", NEW_YORK, tools=(WEATHER,))
    assert codes([Call("get_weather", {"city": "New York", "days": 30})], gt) == ["out_of_range"]
    book = Call("book_table", {"restaurant": "Noma", "party": {"size": 2}, "tags": ["a"]})
    gt = truth("simple", book, tools=(BOOK,))
    assert check_calls([book], gt).ok
    nested = {"restaurant": "Noma", "party": {"size": "two"}, "tags": ["a"]}
    verdict = check_calls([Call("book_table", nested)], gt)
    assert [(i.code, i.param) for i in verdict.issues] == [("wrong_type", "party.size")]
    items = {"restaurant": "Noma", "party": {"size": 2}, "tags": [1]}
    assert [i.param for i in check_calls([Call("book_table", items)], gt).issues] == ["tags[0]"]
    many = {"restaurant": "Noma", "party": {"size": 2}, "tags": ["a", "b", "c", "d"]}
    assert codes([Call("book_table", many)], gt) == ["out_of_range"]
    missing = {"restaurant": "Noma", "party": {}, "tags": ["a"]}
    verdict = check_calls([Call("book_table", missing)], gt)
    assert [(i.code, i.param) for i in verdict.issues] == [("missing_required", "party.size")]


def test_dict_and_list_of_dicts_values() -> None:
    book = Call(
        "book_table",
        {"restaurant": "Noma", "party": {"size": 2}, "slots": [{"day": "Mon", "hour": 19}]},
    )
    gt = truth("simple", book, tools=(BOOK,))
    same = {"restaurant": "NOMA", "party": {"size": 2}, "slots": [{"day": "mon", "hour": 19}]}
    assert check_calls([Call("book_table", same)], gt).ok
    other = {"restaurant": "Noma", "party": {"size": 3}, "slots": [{"day": "Mon", "hour": 19}]}
    assert codes([Call("book_table", other)], gt) == ["wrong_value"]
    longer = {**same, "slots": [{"day": "Mon", "hour": 19}, {"day": "Tue", "hour": 19}]}
    assert codes([Call("book_table", longer)], gt) == ["wrong_value"]


def test_wrong_function_unknown_function_and_counts() -> None:
    gt = truth("multiple", NEW_YORK)
    book = Call("book_table", {"restaurant": "Noma", "party": {"size": 2}})
    assert codes([book], gt) == ["wrong_function"]
    assert codes([Call("get_wether", {"city": "New York"})], gt) == [
        "unknown_function",
        "missing_call",
    ]
    assert codes([NEW_YORK, NEW_YORK], gt) == ["wrong_count", "unexpected_call"]
    assert codes([], truth("parallel", NEW_YORK, PARIS)) == ["wrong_count", "missing_call"]


def test_parallel_feedback_points_at_the_nearest_call() -> None:
    gt = truth("parallel", NEW_YORK, PARIS)
    verdict = check_calls([Call("get_weather", {"city": "Paris", "unit": "celsius"}), NEW_YORK], gt)
    assert [(i.code, i.call, i.param) for i in verdict.issues] == [("wrong_value", 0, "unit")]
    assert "'fahrenheit'" in verdict.issues[0].message


def test_irrelevance_wants_no_call() -> None:
    gt = truth("irrelevance")
    assert check_calls([], gt).ok
    assert codes([NEW_YORK], gt) == ["unexpected_call"]


def test_check_bfcl_reads_bfcl_types_and_dotted_names() -> None:
    functions = [
        {
            "name": "math.area",
            "description": "area",
            "parameters": {
                "type": "dict",
                "properties": {
                    "size": {"type": "tuple", "items": {"type": "float"}},
                    "unit": {"type": "string", "enum": ["Square Meter", "Acre"]},
                    "meta": {"type": "dict", "properties": {"tag": {"type": "string"}}},
                    "anything": {"type": "any"},
                },
                "required": ["size"],
            },
        }
    ]
    answer = [{"math.area": {"size": [[2.0, 3.5]], "unit": ["", "square meter"], "meta": [""]}}]
    good = [{"math.area": {"size": [2, 3.5], "unit": "square-meter"}}]
    assert check_bfcl(functions, good, answer, "simple_python").ok
    wrong = check_bfcl(functions, [{"math.area": {"size": [2, 4]}}], answer, "simple")
    assert [i.code for i in wrong.issues] == ["wrong_value"]
    typed = check_bfcl(functions, [{"math.area": {"size": "2x3"}}], answer, "simple")
    assert [i.code for i in typed.issues] == ["wrong_type"]
    extra = check_bfcl(functions, [{"math.area": {"size": [2, 3.5], "anything": "x"}}], answer, "s")
    assert [i.code for i in extra.issues] == ["unexpected_parameter"]
    assert check_bfcl(functions, [], [], "irrelevance").ok


def test_standardize_string_matches_bfcl() -> None:
    assert standardize_string("April 1, 2024 - N.Y.") == "april12024ny"
    assert standardize_string("it's") == 'it"s'


def test_string_formats_patterns_and_unique_items() -> None:
    flights = tool(
        "find_flights",
        {
            "origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "email": {"type": "string", "format": "email"},
            "stops": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "fare": {"type": "number", "exclusiveMinimum": 0},
        },
        ["origin"],
    )
    good = {
        "origin": "JFK",
        "day": "2026-05-03",
        "at": "2026-05-03T09:30:00Z",
        "email": "a@b.io",
        "stops": ["LHR", "CDG"],
        "fare": 0.5,
    }
    gt = truth("simple", Call("find_flights", good), tools=(flights,))
    assert check_calls([Call("find_flights", good)], gt).ok
    bad = {**good, "origin": "jfk", "day": "May 3", "at": "9:30", "email": "nobody"}
    bad.update(stops=["LHR", "LHR"], fare=0)
    found = {(i.code, i.param) for i in check_calls([Call("find_flights", bad)], gt).issues}
    assert found == {
        ("bad_format", "origin"),
        ("bad_format", "day"),
        ("bad_format", "at"),
        ("bad_format", "email"),
        ("duplicate_items", "stops"),
        ("out_of_range", "fare"),
    }


def test_check_bfcl_is_lenient_on_enum_spelling_and_formats() -> None:
    functions = [
        {
            "name": "book",
            "description": "book",
            "parameters": {
                "type": "dict",
                "properties": {
                    "material": {"type": "string", "enum": ["Bronze", "Stone"]},
                    "day": {"type": "string", "format": "date"},
                },
                "required": ["material"],
            },
        }
    ]
    answer = [{"book": {"material": ["bronze"], "day": ["Dec 25, 2020"]}}]
    output = [{"book": {"material": "bronze", "day": "Dec 25, 2020"}}]
    assert check_bfcl(functions, output, answer, "simple").ok
    wrong = [{"book": {"material": "gold", "day": "Dec 25, 2020"}}]
    assert [i.code for i in check_bfcl(functions, wrong, answer, "simple").issues] == [
        "bad_enum",
    ]
