"""The reader's matching of said words to parameters (``template.matching``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read


def _tool(name: str, description: str, props: dict, required: list[str]) -> dict:
    parameters = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


PAINT = _tool(
    "repaint_wall",
    "Repaint a wall of a house.",
    {
        "wall": {"type": "string", "description": "Which wall, e.g. north"},
        "finish_color": {"type": "string", "description": "The finish color. Default 'white'."},
    },
    ["wall"],
)
ROOMS = _tool(
    "hotel_reserve",
    "Reserve a hotel room.",
    {
        "city": {"type": "string", "description": "The city."},
        "room_type": {"type": "string", "description": "The type of room."},
    },
    ["city"],
)


def test_an_optional_parameter_named_by_a_noun_takes_the_words_that_qualify_it() -> None:
    calls = read("Repaint the north wall with a green finish color.", [PAINT])
    assert calls == (Call("repaint_wall", {"wall": "north", "finish_color": "green"}),)


def test_the_tools_own_word_before_the_noun_is_no_kind_of_it() -> None:
    calls = read("Reserve a hotel room in Lisbon.", [ROOMS])
    assert calls == (Call("hotel_reserve", {"city": "Lisbon"}),)
