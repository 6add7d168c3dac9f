"""Argument values: always valid against their schema, realistic by name, ranges in order."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from services.synth.calls import parameters, tool_name
from services.synth.catalog import builtin_catalog, pools
from services.synth.values import sample_arguments, sample_value

TOOLS = builtin_catalog()
BY_NAME = {tool_name(tool): tool for tool in TOOLS}
CHECKER = Draft202012Validator.FORMAT_CHECKER


def _valid(schema: dict[str, Any], value: Any) -> bool:
    return Draft202012Validator(schema, format_checker=CHECKER).is_valid(value)


@settings(max_examples=120, deadline=None)
@given(
    tool=st.sampled_from(TOOLS),
    seed=st.integers(0, 2**32),
    optional=st.integers(0, 6),
)
def test_every_builtin_call_validates(tool: dict[str, Any], seed: int, optional: int) -> None:
    arguments = sample_arguments(tool, random.Random(seed), optional=optional)
    schema = parameters(tool)
    assert _valid(schema, arguments), (tool_name(tool), arguments)
    assert set(schema["required"]) <= set(arguments)
    extra = len(schema["properties"]) - len(schema["required"])
    assert len(arguments) == len(schema["required"]) + min(optional, extra)


@st.composite
def numeric_schemas(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["integer", "number"]))
    low = draw(st.integers(-1000, 1000))
    high = low + draw(st.integers(25, 5000))  # room for a multiple of 10 inside
    schema: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if draw(st.booleans()):
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = high
    if draw(st.booleans()):
        schema["exclusiveMinimum"] = low + draw(st.sampled_from([0, 0.5, 1]))
    if draw(st.booleans()):
        schema["multipleOf"] = draw(
            st.sampled_from([1, 2, 5, 10] if kind == "integer" else [0.5, 0.25, 1])
        )
    return schema


@st.composite
def string_schemas(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    choice = draw(st.sampled_from(["plain", "format", "pattern", "length"]))
    if choice == "format":
        schema["format"] = draw(
            st.sampled_from(["date", "date-time", "time", "email", "uuid", "ipv4", "hostname"])
        )
    elif choice == "pattern":
        schema["pattern"] = draw(
            st.sampled_from(
                [
                    "^[A-Z]{3}$",
                    r"^\+[1-9]\d{7,14}$",
                    "^(red|green|blue)-[0-9]{2}$",
                    r"^[^x]{2}\.[a-f0-9]+$",
                    "^#[a-z0-9-]{2,30}$",
                    "abc",
                ]
            )
        )
    elif choice == "length":
        low = draw(st.integers(0, 30))
        schema.update(minLength=low, maxLength=low + draw(st.integers(0, 5)))
    return schema


@st.composite
def composite_schemas(draw: st.DrawFn) -> dict[str, Any]:
    leaf = st.one_of(
        numeric_schemas(),
        string_schemas(),
        st.just({"type": "boolean"}),
        st.just({"type": "integer", "enum": [1, 4, 12]}),
        st.just({"type": ["string", "null"]}),
    )
    items = draw(leaf)
    low = draw(st.integers(0, 3))
    array: dict[str, Any] = {"type": "array", "items": items, "minItems": low, "maxItems": low + 2}
    if draw(st.booleans()):
        array = {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c", "d"]},
            "uniqueItems": True,
            "minItems": 1,
            "maxItems": 3,
        }
    props = {
        "n": draw(leaf),
        "xs": array,
        "deep": {"type": "object", "properties": {"v": draw(leaf)}, "required": ["v"]},
    }
    required = draw(st.lists(st.sampled_from(list(props)), unique=True))
    return {"type": "object", "properties": props, "required": required}


@settings(max_examples=120, deadline=None)
@given(
    schema=st.one_of(numeric_schemas(), string_schemas(), composite_schemas()),
    seed=st.integers(0, 2**32),
    name=st.sampled_from(
        ["", "city", "amount", "latitude", "duration_minutes", "attendees", "from_currency", "time"]
    ),
)
def test_any_schema_value_validates(schema: dict[str, Any], seed: int, name: str) -> None:
    value = sample_value(schema, random.Random(seed), name=name)
    assert _valid(schema, value), (schema, value)


def test_names_pick_realistic_pools() -> None:
    rng = random.Random(3)
    text = {"type": "string"}
    assert sample_value(text, rng, name="pickup_city") in pools.STRINGS["city"]
    assert sample_value(text, rng, name="destination_country") in pools.STRINGS["country"]
    assert sample_value(text, rng, name="medication_name") in pools.STRINGS["medication"]
    iso = {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 code"}
    assert sample_value(iso, rng, name="from_currency") in pools.STRINGS["currency"]
    airport = {"type": "string", "pattern": "^[A-Z]{3}$", "description": "IATA airport code"}
    assert sample_value(airport, rng, name="origin") in pools.STRINGS["airport"]
    emails = {"type": "array", "items": {"type": "string", "format": "email"}}
    assert all("@" in value for value in sample_value(emails, rng, name="attendees"))
    assert re.fullmatch(
        r"\d{4}-\d{2}-\d{2}", sample_value({"type": "string", "format": "date"}, rng)
    )


def test_dates_fall_in_2026_and_2027() -> None:
    rng = random.Random(0)
    years = {sample_value({"type": "string", "format": "date"}, rng)[:4] for _ in range(300)}
    assert years == {"2026", "2027"}


def test_range_pairs_come_out_in_order() -> None:
    rng = random.Random(11)
    for _ in range(300):
        hotel = sample_arguments(BY_NAME["book_hotel"], rng)
        assert hotel["check_in"] < hotel["check_out"]
        event = sample_arguments(BY_NAME["create_calendar_event"], rng)
        assert event["start_time"] < event["end_time"]
        car = sample_arguments(BY_NAME["rent_car"], rng)
        assert car["pickup_date"] < car["return_date"]


def test_kept_values_stay_and_a_kept_end_moves_the_start() -> None:
    rng = random.Random(5)
    for _ in range(100):
        args = sample_arguments(
            BY_NAME["book_hotel"], rng, keep={"city": "Lisbon", "check_out": "2026-06-10"}
        )
        assert args["city"] == "Lisbon"
        assert args["check_out"] == "2026-06-10"
        assert args["check_in"] < "2026-06-10"


def test_songs_come_with_their_artist_also_nested() -> None:
    rng = random.Random(2)
    for _ in range(50):
        song = sample_arguments(BY_NAME["play_song"], rng)
        assert pools.SONG_ARTISTS[song["song_title"]] == song["artist"]
        playlist = sample_arguments(BY_NAME["create_playlist"], rng)
        for item in playlist["songs"]:
            assert pools.SONG_ARTISTS[item["song_title"]] == item["artist"]


def test_string_arguments_of_one_call_rarely_collide() -> None:
    rng = random.Random(9)
    collisions = 0
    for _ in range(300):
        args = sample_arguments(BY_NAME["calculate_distance"], rng)
        collisions += args["origin_city"] == args["destination_city"]
    assert collisions == 0


def test_optional_by_name_and_determinism() -> None:
    tool = BY_NAME["search_flights"]
    args = sample_arguments(
        tool, random.Random(1), optional=["cabin_class", "nonstop_only", "nope"]
    )
    assert set(args) == {"origin", "destination", "departure_date", "cabin_class", "nonstop_only"}
    assert sample_arguments(tool, random.Random(7), optional=3) == sample_arguments(
        tool, random.Random(7), optional=3
    )


def test_unsupported_pattern_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"pattern|regular expression"):
        sample_value({"type": "string", "pattern": "^(?=x)y$"}, random.Random(0))


@pytest.mark.parametrize("tool", TOOLS, ids=[tool_name(tool) for tool in TOOLS])
def test_each_builtin_function_validates_over_many_seeds(tool: dict[str, Any]) -> None:
    validator = Draft202012Validator(parameters(tool), format_checker=CHECKER)
    rng = random.Random(tool_name(tool))
    for optional in range(8):
        for _ in range(4):
            arguments = sample_arguments(tool, rng, optional=optional)
            assert not list(validator.iter_errors(arguments)), arguments


def test_min_and_max_pairs_come_out_in_order() -> None:
    rng = random.Random(4)
    tool = BY_NAME["search_products"]
    for _ in range(200):
        args = sample_arguments(tool, rng, optional=["min_price", "max_price"])
        assert args["min_price"] <= args["max_price"]


def test_an_object_with_declared_keys_is_never_drawn_empty() -> None:
    card = {
        "type": "object",
        "properties": {"rank": {"type": "string"}, "suit": {"type": "string"}},
    }
    rng = random.Random(0)
    drawn = [sample_value({"type": "array", "items": card}, rng, name="deck") for _ in range(50)]
    assert all(item and set(item) <= {"rank", "suit"} for deck in drawn for item in deck)
