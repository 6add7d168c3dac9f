"""The reader's cutting of a request into asks (``template.routing``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

SUITS = _tool(
    "lawsuit_search",
    "Search lawsuits involving a person or company.",
    {
        "entity": {"type": "string", "description": "The person or company."},
        "county": {"type": "string", "description": "The county."},
    },
    ["entity"],
)


def test_a_titles_period_ends_no_sentence() -> None:
    calls = read("Find lawsuits involving Dr. Jane Roe in the county of Marin.", [SUITS])
    assert calls == (Call("lawsuit_search", {"entity": "Dr. Jane Roe", "county": "Marin"}),)
