"""Stage 3 of the template generator reads natural queries forward, from schemas alone."""

from __future__ import annotations

import datetime as dt

from services.synth.calls import Call, GroundTruth
from services.synth.catalog import builtin_catalog
from services.synth.checker import check_calls
from services.synth.generators.template import TemplateGenerator
from services.synth.generators.template.mentions import find_mentions, relative_dates
from services.synth.generators.template.reader import read


def _tool(name: str, description: str, props: dict, required: list[str]) -> dict:
    parameters = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


WEATHER = _tool(
    "get_weather",
    "Current weather for a city.",
    {
        "city": {"type": "string", "description": "The city, e.g. Oslo"},
        "date": {"type": "string", "format": "date", "description": "The day"},
    },
    ["city"],
)
TRIANGLE = _tool(
    "calculate_triangle_area",
    "Calculate the area of a triangle given its base and height.",
    {
        "base": {"type": "integer", "description": "The base of the triangle."},
        "height": {"type": "integer", "description": "The height of the triangle."},
        "unit": {"type": "string", "description": "The unit of measure."},
    },
    ["base", "height"],
)
FLIGHT = _tool(
    "search_flights",
    "Search flights between two airports.",
    {
        "origin": {"type": "string", "description": "IATA code of the departure airport"},
        "destination": {"type": "string", "description": "IATA code of the arrival airport"},
        "cabin": {"type": "string", "enum": ["economy", "business"], "description": "Cabin"},
        "nonstop": {"type": "boolean", "description": "Only direct flights without stops"},
        "max_price": {"type": "number", "description": "Highest fare in USD"},
    },
    ["origin", "destination"],
)
DIET = _tool(
    "find_restaurants",
    "Find places to eat in a city.",
    {
        "location": {"type": "string", "description": "City where to look"},
        "diet": {"type": "string", "description": "Dietary need, e.g. vegan, halal"},
    },
    ["location"],
)


def test_values_by_type_and_description_words_without_labels() -> None:
    calls = read(
        "Find the area of a triangle with a base of 10 units and height of 5 units.", [TRIANGLE]
    )
    assert calls == (Call("calculate_triangle_area", {"base": 10, "height": 5}),)
    calls = read(
        "Flights with JFK as the departure airport to LHR, business, up to $900.", [FLIGHT]
    )
    assert calls[0].arguments == {
        "origin": "JFK", "destination": "LHR", "cabin": "business", "max_price": 900.0
    }  # fmt: skip


def test_flags_examples_from_descriptions_and_negation() -> None:
    calls = read("Any vegan places to eat in Mexico City?", [DIET, WEATHER])
    assert calls == (Call("find_restaurants", {"location": "Mexico City", "diet": "vegan"}),)
    direct = read("Flights from JFK to LHR, direct only without stops please", [FLIGHT])
    assert direct[0].arguments["nonstop"] is True
    skip = read("Flights from JFK to LHR, no need for direct flights", [FLIGHT])
    assert skip[0].arguments.get("nonstop") is False


def test_several_calls_in_one_sentence_and_number_words() -> None:
    calls = read("What's the weather in Oslo and Bergen on March 3, 2027?", [WEATHER])
    assert calls == (
        Call("get_weather", {"city": "Oslo", "date": "2027-03-03"}),
        Call("get_weather", {"city": "Bergen", "date": "2027-03-03"}),
    )
    area = read("The area of a triangle with a base of twelve and a height of 7?", [TRIANGLE])
    assert area[0].arguments == {"base": 12, "height": 7}


def test_relative_dates_against_a_reference() -> None:
    thursday = dt.date(2026, 3, 12)
    spans = relative_dates("tomorrow, next Friday or in 3 days", thursday)
    assert [iso for _, _, iso in spans] == ["2026-03-13", "2026-03-13", "2026-03-15"]
    calls = read("Weather in Oslo next Friday", [WEATHER], reference=thursday)
    assert calls[0].arguments == {"city": "Oslo", "date": "2026-03-13"}
    kinds = [m.kind for m in find_mentions("at 9:30 on 2026-03-14 for $40 and 5%")]
    assert kinds == ["time", "date", "number", "percent"]


def test_labelled_fields_and_objects() -> None:
    address = _tool(
        "ship",
        "Ship a parcel.",
        {
            "to": {
                "type": "object",
                "description": "Where to deliver",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
            "express": {"type": "boolean", "description": "Next-day delivery"},
        },
        ["to"],
    )
    query = 'Ship it — where to deliver: (street "1 Main St", city "Oslo"); next-day delivery: no.'
    assert read(query, [address]) == (
        Call("ship", {"to": {"street": "1 Main St", "city": "Oslo"}, "express": False}),
    )


def test_no_call_when_no_tool_fits() -> None:
    assert read("Tell me a joke about penguins", [TRIANGLE, FLIGHT]) == ()


def test_the_generator_reads_its_own_natural_queries_without_the_truth() -> None:
    from services.synth.sampling import Sampler

    sampler = Sampler(builtin_catalog(), seed=5, mix={"simple": 1, "multiple": 1})
    generator = TemplateGenerator()
    solved = 0
    for seed in range(40):
        truth: GroundTruth = sampler.sample()
        query = generator.query(truth, seed=seed)
        solved += check_calls(generator.calls(query, truth.tools, seed=seed), truth).ok
    assert solved >= 20  # one-shot, no refinement: most natural queries read back exactly
