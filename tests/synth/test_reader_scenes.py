"""Scenes of one ask: a clause of only words leads up to the ask that says the values."""

from __future__ import annotations

from functools import partial

from services.synth.calls import Call
from services.synth.generators.template.reader import _calls, read
from services.synth.generators.template.scenes import _followed, _joined, _without_asides
from services.synth.generators.template.specs import _tool as spec_of
from tests.synth.test_reader_matching import _tool

EVENT = _tool(
    "get_event_date",
    "Retrieve the date of a historical event.",
    {
        "event": {"type": "string", "description": "The name of the historical event."},
        "location": {"type": "string", "description": "Location where the event happened."},
    },
    ["event"],
)


def test_a_clause_of_only_words_leads_up_to_the_ask_that_names_the_value() -> None:
    query = (
        "I'm curious about a historical event. Can you tell me the date of the "
        "'Battle of Waterloo'? I believe it took place in Belgium."
    )
    assert read(query, [EVENT]) == (
        Call("get_event_date", {"event": "Battle of Waterloo", "location": "Belgium"}),
    )


def test_two_named_asks_of_one_tool_stay_two_calls() -> None:
    query = (
        "What was the date of the Battle of Waterloo? Also, what was the date of the "
        "Treaty of Paris?"
    )
    calls = read(query, [EVENT])
    assert [c.arguments["event"] for c in calls] == ["Battle of Waterloo", "Treaty of Paris"]


def test_an_aside_is_dropped_only_when_a_clause_with_a_value_covers_it() -> None:
    aside = ("I'm curious about a historical event.", [Call("f", {"event": "historical"})])
    named = ("Tell me about 'Waterloo'.", [Call("f", {"event": "Waterloo", "year": 1815})])
    other = ("And the history of trade.", [Call("f", {"topic": "trade"})])
    assert _without_asides([aside, named]) == [Call("f", {"event": "Waterloo", "year": 1815})]
    assert _without_asides([aside, other]) == [*aside[1], *other[1]]  # no value said: kept


TAX = _tool(
    "income_tax",
    "Calculate the income tax owed for a filing status.",
    {
        "income": {"type": "number", "description": "The yearly income in dollars."},
        "status": {
            "type": "string",
            "description": "The filing status.",
            "enum": ["single", "married", "widowed"],
        },
    },
    ["income", "status"],
)


def test_asks_that_only_together_state_their_values_may_make_several_calls() -> None:
    spec = spec_of(TAX)
    texts = [
        "My yearly income is $50000.",
        "What tax would I owe for the single, married and widowed filing statuses?",
    ]
    calls = _joined(spec, texts, partial(_calls, spec, reference=None))
    assert calls is not None
    assert [c.arguments for c in calls] == [
        {"income": 50000, "status": "single"},
        {"income": 50000, "status": "married"},
        {"income": 50000, "status": "widowed"},
    ]


SAVINGS = _tool(
    "savings_value",
    "Value of savings after some years.",
    {
        "deposit": {"type": "number", "description": "The first deposit in dollars."},
        "years": {"type": "integer", "description": "How many years the savings are kept."},
        "monthly": {"type": "number", "description": "A monthly top-up in dollars."},
    },
    ["deposit", "years"],
)


def test_an_ask_that_only_adds_values_joins_the_call_before() -> None:
    spec = spec_of(SAVINGS)
    texts = [
        "What are my savings worth if I deposit $3000 and keep them for 8 years?",
        "I will also add a monthly top-up of $50.",
    ]
    calls = _followed(spec, texts, partial(_calls, spec, reference=None))
    assert calls is not None
    assert [c.arguments for c in calls] == [{"deposit": 3000, "years": 8, "monthly": 50}]


FORCE = _tool(
    "electric_force",
    "The force between two charges.",
    {
        "charge1": {"type": "integer", "description": "The first charge in coulombs."},
        "charge2": {"type": "integer", "description": "The second charge in coulombs."},
        "distance": {"type": "integer", "description": "The distance in meters."},
        "permittivity": {"type": "number", "description": "The permittivity of the medium."},
    },
    ["charge1", "charge2", "distance"],
)


def test_numbered_clauses_about_numbered_twins_are_values_not_scenes() -> None:
    calls = read(
        "In an experiment, you are given two charges. The first charge has a magnitude of 3"
        " coulombs and the second charge has a magnitude of 4 coulombs. These charges are"
        " placed at a distance of 2 meters. You perform the experiment twice. The first time,"
        " the permittivity is 0.5. The second time, the permittivity is 0.25. What is the"
        " force between the charges in both cases?",
        [FORCE],
    )
    assert [c.arguments for c in calls] == [
        {"charge1": 3, "charge2": 4, "distance": 2, "permittivity": p} for p in (0.5, 0.25)
    ]


INTEREST = _tool(
    "compound_interest",
    "Compound interest on a principal amount.",
    {
        "principal": {"type": "integer", "description": "The principal amount."},
        "rate": {"type": "number", "description": "The annual interest rate."},
        "time": {"type": "integer", "description": "The time invested, in years."},
        "n": {"type": "integer", "description": "Times interest is compounded per year."},
    },
    ["principal", "rate", "time"],
)


def test_a_closing_ask_that_lists_values_makes_one_call_each_over_the_scene() -> None:
    calls = read(
        "I invested $5000 as the principal amount. The bank offers an annual interest rate of"
        " 2.5%. I plan to keep the money there for 10 years. Also, it is compounded 4 times a"
        " year. Can you calculate the compound interest for the first 2 years, first 3 years"
        " and first 5 years?",
        [INTEREST],
    )
    assert [c.arguments for c in calls] == [
        {"principal": 5000, "rate": 0.025, "time": t, "n": 4} for t in (2, 3, 5)
    ]
