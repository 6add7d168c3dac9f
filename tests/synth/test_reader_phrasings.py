"""Values said by the phrasing around them (``template.phrasings``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

SOUP = _tool(
    "soup_recipe",
    "Find a soup recipe.",
    {
        "main_vegetable": {"type": "string", "description": "The vegetable the soup is built on."},
        "servings": {"type": "integer", "description": "How many people it serves."},
    },
    ["main_vegetable"],
)


def test_a_word_said_as_the_parameters_name_is_its_value() -> None:
    (call,) = read("Find a soup that uses leek as the main vegetable, for 4 servings.", [SOUP])
    assert call.arguments == {"main_vegetable": "leek", "servings": 4}


HEATING = _tool(
    "heating_cost",
    "Yearly cost of heating a house.",
    {
        "area": {"type": "integer", "description": "The floor area in square meters."},
        "heating_source": {"type": "string", "description": "What the heating runs on."},
    },
    ["area", "heating_source"],
)


def test_a_word_before_a_hyphen_and_the_parameters_name_is_its_value() -> None:
    (call,) = read("What does it cost to keep a 120 m2 oil-heated house warm?", [HEATING])
    assert call.arguments == {"area": 120, "heating_source": "oil"}


BRIDGE = _tool(
    "bridge.get_details",
    "Retrieve details of a bridge by its name and city.",
    {
        "name": {"type": "string", "description": "The name of the bridge."},
        "city": {"type": "string", "description": "The city of the bridge."},
        "detail": {"type": "string", "description": "The specific detail wanted about it."},
    },
    ["name", "city"],
)


def test_the_fact_a_question_asks_of_something_is_the_which_fact_parameters_value() -> None:
    (call,) = read(
        "Find the main span of the bridge named 'Golden Gate' in San Francisco.", [BRIDGE]
    )
    assert call.arguments == {
        "name": "Golden Gate",
        "city": "San Francisco",
        "detail": "main span",
    }
    (call,) = read("Find the details of the bridge named 'Golden Gate' in San Francisco.", [BRIDGE])
    assert call.arguments == {"name": "Golden Gate", "city": "San Francisco"}


CONVERT = _tool(
    "unit_conversion",
    "Convert a value from one unit to another.",
    {
        "value": {"type": "number", "description": "The value to be converted."},
        "from_unit": {"type": "string", "description": "The unit to convert from."},
        "to_unit": {"type": "string", "description": "The unit to convert to."},
    },
    ["value", "from_unit", "to_unit"],
)


def test_a_conversion_goes_from_the_unit_a_number_is_said_in_to_the_other() -> None:
    calls = read("I have 15 kilometers that I would like to convert into miles.", [CONVERT])
    assert calls == (
        Call("unit_conversion", {"value": 15.0, "from_unit": "kilometers", "to_unit": "miles"}),
    )
    calls = read("I want to convert 3 meters. How many feet is it?", [CONVERT])
    assert calls[0].arguments == {"value": 3.0, "from_unit": "meters", "to_unit": "feet"}


TEMPERAMENT = _tool(
    "temperament_analyse",
    "Analyse a temperament.",
    {
        "calm_vs_lively": {"type": "string", "description": "Between calm and lively."},
        "early_vs_late": {"type": "string", "description": "Between early and late."},
    },
    ["calm_vs_lively", "early_vs_late"],
)


def test_a_choice_between_two_is_the_one_preferred_over_the_other() -> None:
    calls = read(
        "Analyse my temperament: I am more lively than calm, and I prefer late over early.",
        [TEMPERAMENT],
    )
    assert calls == (
        Call("temperament_analyse", {"calm_vs_lively": "lively", "early_vs_late": "late"}),
    )


LIFE = _tool(
    "game_of_life_play",
    "Runs rounds of the game of life from a board.",
    {
        "rounds": {"type": "integer", "description": "Number of rounds to play."},
        "start_board": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "Starting board, empty for a random start.",
        },
    },
    ["rounds", "start_board"],
)


def test_an_array_said_empty_by_its_noun_is_the_empty_list() -> None:
    calls = read("Play the game of life for 4 rounds starting from an empty board.", [LIFE])
    assert calls == (Call("game_of_life_play", {"rounds": 4, "start_board": []}),)


MOTION = _tool(
    "calculate_displacement",
    "Displacement of an object from its initial velocity, time and acceleration.",
    {
        "initial_velocity": {"type": "integer", "description": "The initial velocity in m/s."},
        "time": {"type": "integer", "description": "The time in seconds."},
        "acceleration": {"type": "number", "description": "The acceleration in m/s^2."},
    },
    ["initial_velocity", "time"],
)


def test_a_quantity_said_to_be_absent_by_its_name_is_zero() -> None:
    (call,) = read(
        "A car with an initial velocity of 25 m/s travels for 8 seconds without any"
        " acceleration. What is its displacement?",
        [MOTION],
    )
    assert call.arguments == {"initial_velocity": 25, "time": 8, "acceleration": 0.0}


DERIVATIVE = _tool(
    "calculus.derivative",
    "Compute the derivative of a function at a specific value.",
    {
        "function": {"type": "string", "description": "The function."},
        "value": {"type": "integer", "description": "The value to compute it at."},
        "function_variable": {"type": "string", "description": "The variable, e.g. x."},
    },
    ["function", "value"],
)


def test_a_quote_said_to_be_the_parameters_name_is_its_value() -> None:
    (call,) = read(
        "The derivative of the function '5y^3 - 4y + 2' at the value of 3 where 'y' is the"
        " function variable.",
        [DERIVATIVE],
    )
    assert call.arguments == {"function": "5y^3 - 4y + 2", "value": 3, "function_variable": "y"}
