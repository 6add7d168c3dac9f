"""A function's description said as the action a person asks for."""

from __future__ import annotations

import re

from services.synth.generators.template import TemplateGenerator
from services.synth.generators.template.gist import described_action
from services.synth.generators.template.realiser import action
from services.synth.sampling import Sampler


def test_the_verb_takes_its_base_form_and_the_clause_stops_before_a_value() -> None:
    said = described_action("Calculates the circumference of a circle with a given radius.")
    assert said == "calculate the circumference of a circle"
    assert described_action("Retrieve the weather for a specified location") == (
        "retrieve the weather"
    )
    assert described_action("Fetches flights between two airports") == "fetch flights"
    assert described_action("This function returns the list of parks.") == "get the list of parks"


def test_a_parameter_name_is_never_said_and_a_noun_phrase_is_no_action() -> None:
    assert described_action("Find restaurants near an address", frozenset({"address"})) == (
        "find restaurants near a location"
    )
    assert described_action("Find the area of a circle", frozenset({"circle"})) == ("find the area")
    assert described_action("The area of a circle.") is None
    assert described_action("") is None


def test_a_tool_without_a_verb_in_its_description_is_said_by_its_name() -> None:
    tool = {"function": {"name": "book_hotel", "description": "Hotel rooms.", "parameters": {}}}
    assert action(tool) == "book a hotel"
    tool["function"]["description"] = "Reserve a room in a hotel for some nights."
    assert action(tool) == "reserve a room in a hotel for some nights"
    assert action(tool, 1) == "book a room in a hotel for some nights"


def _tool(name: str, description: str, properties: dict) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": [*properties]},
        },
    }


FRESH = [
    _tool(
        "geometry.circle_area",
        "Calculate the area of a circle given its radius.",
        {
            "radius": {"type": "number", "description": "The radius of the circle."},
            "units": {"type": "string", "enum": ["cm", "m"], "description": "Units of length."},
        },
    ),
    _tool(
        "kitchen.reserve_slot",
        "Reserves a cooking slot in the shared kitchen.",
        {
            "day": {"type": "string", "format": "date", "description": "Day of the slot."},
            "oven": {"type": "boolean", "description": "Whether the oven is needed."},
            "dish": {"type": "string", "enum": ["soup", "salad"], "description": "Dish."},
        },
    ),
]


def test_a_fresh_catalog_reads_without_garbled_fallbacks() -> None:
    sampler = Sampler(FRESH, seed=3, mix={"simple": 1, "parallel": 1, "multiple": 1})
    generator = TemplateGenerator()
    garbled = re.compile(r"going with|\band not\b|geometry the|kitchen the|\bplease\)", re.I)
    for seed in range(40):
        query = generator.query(sampler.sample(), seed=seed)
        assert not garbled.search(query), query
        assert re.search(r"area of a circle|cooking slot", query), query
