"""The synth wire's bounds: hostile or absurd requests are a 4xx naming the field, never a
500 and never a queued job that fails later."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.synth.app import build_app
from services.synth.config import SynthSettings


def _tool(parameters: dict[str, Any], name: str = "deep") -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": "Nested.", "parameters": parameters},
    }


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


@pytest.fixture
def synth(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    settings = SynthSettings(
        data_dir=tmp_path / "data", database_url=database_url, log_level="WARNING"
    )
    with TestClient(build_app(settings)) as client:
        yield client


def _refused(answer: Any, param: str, status: int = 422) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["param"] == param, error
    return error


def test_a_catalog_nested_200_deep_is_a_422(synth: TestClient) -> None:
    deep = _tool(_nested(200))
    stored = synth.post("/v1/catalogs", json={"name": "deep", "tools": [deep]})
    error = _refused(stored, "tools[0].function.parameters")
    assert error["code"] == "schema_too_deep"
    inline = synth.post("/v1/synthesize", json={"catalog": [deep], "n": 1})
    assert _refused(inline, "catalog[0].function.parameters")["code"] == "schema_too_deep"
    nested_list: list[Any] = []
    for _ in range(300):
        nested_list = [nested_list]
    beside = {**deep, "function": {**deep["function"], "parameters": {"type": "object"}}}
    beside["x-extra"] = nested_list
    assert synth.post("/v1/catalogs", json={"name": "b", "tools": [beside]}).status_code == 422


def test_sixteen_levels_of_properties_are_fine(synth: TestClient) -> None:
    answer = synth.post("/v1/catalogs", json={"name": "ok", "tools": [_tool(_nested(16))]})
    assert answer.status_code == 201, answer.text
    deeper = synth.post("/v1/catalogs", json={"name": "no", "tools": [_tool(_nested(17))]})
    assert deeper.status_code == 422


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"mix": {"simple": 1e308, "parallel": 1e308}}, "mix.simple"),
        ({"mix": {"simple": -1}}, "mix.simple"),
        ({"mix": {"simple": True}}, "mix.simple"),
        ({"mix": {"simple": 0, "parallel": 0}}, "mix"),
        ({"n": False}, "n"),
        ({"n": True}, "n"),
        ({"n": 2.5}, "n"),
        ({"feedback": 1}, "feedback"),
        ({"n": 10**12}, "n"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**32}, "seed"),
        ({"seed": False}, "seed"),
        ({"max_refine_rounds": True}, "max_refine_rounds"),
        ({"max_refine_rounds": 10**9}, "max_refine_rounds"),
        ({"catalog": "x" * 101}, "catalog"),
        ({"generator": "g" * 51}, "generator"),
        ({"reader": "r" * 301}, "reader"),
        ({"reader": ""}, "reader"),
        ({"reader": 3}, "reader"),
    ],
)
def test_synthesize_bounds(synth: TestClient, body: dict[str, Any], param: str) -> None:
    _refused(synth.post("/v1/synthesize", json={"n": 1, **body}), param)
    assert synth.get("/v1/records").content == b""  # nothing was queued or written


def test_catalog_list_lengths_are_bounded(synth: TestClient) -> None:
    tools = [_tool({"type": "object"}, name=f"t{i}") for i in range(10_001)]
    _refused(synth.post("/v1/catalogs", json={"name": "big", "tools": tools}), "tools")
    _refused(synth.post("/v1/synthesize", json={"catalog": tools}), "catalog")
    _refused(synth.post("/v1/catalogs", json={"name": "none", "tools": []}), "tools")


def test_an_int_is_still_a_valid_weight(synth: TestClient) -> None:
    answer = synth.post("/v1/synthesize", json={"n": 1, "mix": {"simple": 1, "parallel": 2}})
    assert answer.status_code == 202, answer.text


def test_a_cursor_beyond_any_row_id_is_a_422(synth: TestClient) -> None:
    for path in ("/v1/records", "/v1/jobs/j/examples"):
        answer = synth.get(path, params={"after": 2**64})
        _refused(answer, "after")
    assert synth.get("/v1/records", params={"after": 2**63 - 1}).status_code == 200


@pytest.mark.parametrize(
    ("schema", "param"),
    [
        ({"type": "array", "minItems": 10**9}, "a.minItems"),
        ({"type": "string", "minLength": 10**9}, "a.minLength"),
        ({"type": "number", "minimum": float("-inf")}, None),
    ],
)
def test_catalog_values_that_cannot_be_drawn_are_refused(
    synth: TestClient, schema: dict[str, Any], param: str | None
) -> None:
    tool = _tool({"type": "object", "properties": {"a": schema}})
    body = json.dumps({"name": "huge", "tools": [tool]})  # Infinity: what Python's JSON writes
    answer = synth.post("/v1/catalogs", content=body, headers={"Content-Type": "application/json"})
    where = "tools[0].function" + (f".parameters.properties.{param}" if param else "")
    _refused(answer, where)
