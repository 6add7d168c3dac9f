"""The reader's words that qualify a parameter's own noun (``template.kinds``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import PAINT, ROOMS, SAVINGS


def test_a_kind_parameter_takes_the_words_before_its_noun_before_any_name() -> None:
    calls = read("How much would Acme Heating save me with pellet fuel over 4 months?", [SAVINGS])
    assert calls == (Call("estimate_fuel_savings", {"fuel_type": "pellet", "months": 4}),)


def test_each_kind_said_once_is_one_call() -> None:
    calls = read("Savings with pellet fuel and with wood fuel over 6 months.", [SAVINGS])
    assert [c.arguments["fuel_type"] for c in calls] == ["pellet", "wood"]
    assert all(c.arguments["months"] == 6 for c in calls)


def test_an_optional_parameter_named_by_a_noun_takes_the_words_that_qualify_it() -> None:
    calls = read("Repaint the north wall with a green finish color.", [PAINT])
    assert calls == (Call("repaint_wall", {"wall": "north", "finish_color": "green"}),)


def test_the_tools_own_word_before_the_noun_is_no_kind_of_it() -> None:
    calls = read("Reserve a hotel room in Lisbon.", [ROOMS])
    assert calls == (Call("hotel_reserve", {"city": "Lisbon"}),)


MIXTURE = {
    "type": "function",
    "function": {
        "name": "paint_color_mixture",
        "description": "Which colors to mix for a certain color.",
        "parameters": {
            "type": "object",
            "properties": {
                "paint": {"type": "string", "description": "The kind of paint."},
                "color": {"type": "string", "description": "The color to produce."},
            },
            "required": ["paint", "color"],
        },
    },
}


def test_a_plain_word_right_after_a_parameters_noun_is_its_value() -> None:
    calls = read(
        "With oil paint, how do I mix the color magenta? Also, how do I get color navy by"
        " using acrylic paint?",
        [MIXTURE],
    )
    assert [c.arguments["color"] for c in calls] == ["magenta", "navy"]
