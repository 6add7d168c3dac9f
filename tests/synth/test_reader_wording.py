"""The reader's wording of units and kinds (``template.wording``)."""

from __future__ import annotations

from services.synth.generators.template.reader import read
from services.synth.generators.template.wording import qualifiers
from tests.synth.test_reader_matching import _tool

FIELD = _tool(
    "field_strength",
    "Electric field strength near a point charge.",
    {
        "charge": {"type": "integer", "description": "The charge in Coulombs."},
        "distance": {"type": "number", "description": "The distance from it in meters."},
    },
    ["charge", "distance"],
)
TRIP = _tool(
    "trip_time",
    "How long a trip takes.",
    {
        "distance": {"type": "integer", "description": "How far to go."},
        "duration": {"type": "integer", "description": "How long the stop is."},
    },
    ["distance"],
)


def test_a_number_in_a_unit_of_another_dimension_is_never_the_value() -> None:
    calls = read("The field strength at 2 meters and 3 meters from the same charge?", [FIELD])
    assert [c.arguments for c in calls] == [{"distance": 2.0}, {"distance": 3.0}]


def test_lengths_and_times_are_dimensions_of_their_own() -> None:
    calls = read("The trip: 3 hours of stops, then 40 miles.", [TRIP])
    assert calls[0].arguments["distance"] == 40


DENSITY = _tool(
    "density",
    "The density of a substance.",
    {
        "mass": {"type": "number", "description": "The mass in kilograms."},
        "volume": {"type": "number", "description": "The volume in cubic meters."},
        "unit": {"type": "string", "description": "The unit of the result."},
    },
    ["mass", "volume"],
)


def test_a_unit_of_units_is_one_value() -> None:
    calls = read("The density of 10 kg of it in 2 cubic meters, in g/cm³.", [DENSITY])
    assert calls[0].arguments["unit"] == "g/cm³"


HOLDING = _tool(
    "future_value",
    "Future value of an investment.",
    {
        "amount": {"type": "integer", "description": "The amount invested."},
        "payments_per_year": {"type": "integer", "description": "How many payments per year."},
        "horizon": {"type": "integer", "description": "How long the money is held."},
    },
    ["amount", "horizon"],
)


def test_a_span_of_years_is_no_count_per_year() -> None:
    (call,) = read("What is the future value of $4000 invested and held for 12 years?", [HOLDING])
    assert call.arguments == {"amount": 4000, "horizon": 12}


def test_a_word_that_bounds_a_noun_says_no_kind_of_it() -> None:
    said = qualifiers("the required minimum herd size for wild bison herds", frozenset({"herd"}))
    assert [m.text for m in said] == ["wild bison"]
