"""Values said in pairs and currencies (``template.pairing``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

WORTH = _tool(
    "net_worth",
    "Get the net worth of a celebrity.",
    {
        "name": {"type": "string", "description": "Name of the celebrity."},
        "currency": {
            "type": "string",
            "description": "The currency in which the net worth will be returned.",
        },
    },
    ["name", "currency"],
)


def test_a_currency_said_by_name_goes_to_the_currency() -> None:
    calls = read(
        "Can you tell me the net worth of the famous singer Adele Adkins in Euros?", [WORTH]
    )
    assert calls == (Call("net_worth", {"name": "Adele Adkins", "currency": "EUR"}),)


HANDS = _tool(
    "hand_angle",
    "The angle between the hands of a clock.",
    {
        "hours": {"type": "integer", "description": "The hour on the clock face."},
        "minutes": {"type": "integer", "description": "The minutes on the clock face."},
    },
    ["hours", "minutes"],
)


def test_a_time_is_its_hour_and_minutes_for_a_tool_that_asks_them_apart() -> None:
    calls = read("What is the angle between the hands at 9:45 PM?", [HANDS])
    assert calls == (Call("hand_angle", {"hours": 9, "minutes": 45}),)
