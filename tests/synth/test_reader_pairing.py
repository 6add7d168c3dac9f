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
