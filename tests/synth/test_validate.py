"""Catalog validation: a valid catalog passes unchanged; each defect is a 422 naming its path."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from services.common.errors import RefineryError
from services.synth.catalog import CatalogError, validate_catalog


def _tool(name: str = "get_weather", **properties: dict[str, Any]) -> dict[str, Any]:
    props = properties or {"city": {"type": "string", "description": "City"}}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": "Get the weather in a city.",
            "parameters": {"type": "object", "properties": props, "required": list(props)[:1]},
        },
    }


def _props(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return tools[0]["function"]["parameters"]["properties"]


def test_valid_catalog_is_returned_as_copies() -> None:
    tools = [_tool(), _tool("get_time", tz={"type": "string", "enum": ["UTC", "CET"]})]
    out = validate_catalog(tools)
    assert out == tools
    out[0]["function"]["name"] = "other"
    assert tools[0]["function"]["name"] == "get_weather"


def test_tool_without_parameters_is_accepted() -> None:
    tool = {"type": "function", "function": {"name": "ping", "description": "Check it is up."}}
    assert validate_catalog([tool]) == [tool]


P = "catalog[0].function.parameters"
CASES: list[tuple[str, Callable[[list[dict[str, Any]]], Any], str]] = [
    ("not-a-list", lambda t: {"tools": t}, "catalog"),
    ("empty", lambda t: [], "catalog"),
    ("not-an-object", lambda t: ["get_weather"], "catalog[0]"),
    ("type", lambda t: t[0].update(type="tool"), "catalog[0].type"),
    ("function", lambda t: t[0].update(function="get_weather"), "catalog[0].function"),
    ("name", lambda t: t[0]["function"].update(name="get weather!"), "catalog[0].function.name"),
    ("long-name", lambda t: t[0]["function"].update(name="x" * 65), "catalog[0].function.name"),
    ("duplicate", lambda t: t.append(copy.deepcopy(t[0])), "catalog[1].function.name"),
    (
        "description",
        lambda t: t[0]["function"].__delitem__("description"),
        "catalog[0].function.description",
    ),
    ("params-shape", lambda t: t[0]["function"].update(parameters=[]), P),
    ("params-type", lambda t: t[0]["function"]["parameters"].update(type="array"), f"{P}.type"),
    ("bad-schema", lambda t: _props(t)["city"].update(type="strng"), f"{P}.properties.city.type"),
    (
        "required",
        lambda t: t[0]["function"]["parameters"].update(required=["town"]),
        f"{P}.required",
    ),
    ("empty-enum", lambda t: _props(t)["city"].update(enum=[]), f"{P}.properties.city.enum"),
    ("dup-enum", lambda t: _props(t)["city"].update(enum=["a", "a"]), f"{P}.properties.city.enum"),
    (
        "enum-type",
        lambda t: _props(t)["city"].update(enum=["a", 3]),
        f"{P}.properties.city.enum[1]",
    ),
    (
        "default",
        lambda t: _props(t)["city"].update(enum=["a"], default="b"),
        f"{P}.properties.city.default",
    ),
    (
        "min-max",
        lambda t: _props(t).update(n={"type": "integer", "minimum": 5, "maximum": 1}),
        f"{P}.properties.n.minimum",
    ),
    (
        "exclusive",
        lambda t: _props(t).update(
            n={"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 1}
        ),
        f"{P}.properties.n.exclusiveMinimum",
    ),
    (
        "lengths",
        lambda t: _props(t)["city"].update(minLength=4, maxLength=2),
        f"{P}.properties.city.minLength",
    ),
    (
        "items",
        lambda t: _props(t).update(stops={"type": "array", "minItems": 3, "maxItems": 1}),
        f"{P}.properties.stops.minItems",
    ),
    (
        "nested-required",
        lambda t: _props(t).update(
            stops={
                "type": "array",
                "items": {"type": "object", "properties": {}, "required": ["city"]},
            }
        ),
        f"{P}.properties.stops.items.required",
    ),
    (
        "nested-enum",
        lambda t: _props(t).update(
            trip={"type": "object", "properties": {"mode": {"type": "string", "enum": [1]}}}
        ),
        f"{P}.properties.trip.properties.mode.enum[0]",
    ),
]


@pytest.mark.parametrize(("case", "breaks", "param"), CASES, ids=[c[0] for c in CASES])
def test_each_defect_names_its_path(
    case: str, breaks: Callable[[list[dict[str, Any]]], Any], param: str
) -> None:
    tools = [_tool()]
    changed = breaks(tools)
    catalog = tools if changed is None else changed
    with pytest.raises(CatalogError) as caught:
        validate_catalog(catalog)
    error = caught.value
    assert error.param == param
    assert isinstance(error, RefineryError)
    assert (error.status_code, error.code) == (422, "invalid_catalog")
    assert error.envelope()["error"]["param"] == param
    assert error.message


def test_messages_say_what_to_do() -> None:
    tools = [_tool(), _tool()]
    with pytest.raises(CatalogError, match="unique name"):
        validate_catalog(tools)
    tools = [_tool(n={"type": "integer", "minimum": 5, "maximum": 1})]
    with pytest.raises(CatalogError, match="lower minimum or raise maximum"):
        validate_catalog(tools)


def test_integer_enum_accepts_whole_numbers_but_not_booleans() -> None:
    ok = _tool(n={"type": "integer", "enum": [1, 4, 12]})
    assert validate_catalog([ok])
    bad = _tool(n={"type": "integer", "enum": [1, True]})
    with pytest.raises(CatalogError) as caught:
        validate_catalog([bad])
    assert caught.value.param == f"{P}.properties.n.enum[1]"
