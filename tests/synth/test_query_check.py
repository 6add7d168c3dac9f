"""Stage 2's check: every needed value is in the query, in any surface form, and no clash."""

from __future__ import annotations

from services.synth.calls import Call, GroundTruth
from services.synth.query_check import check_query

FLIGHTS = {
    "type": "function",
    "function": {
        "name": "search_flights",
        "description": "Flights.",
        "parameters": {
            "type": "object",
            "required": ["origin", "departure_date"],
            "properties": {
                "origin": {"type": "string"},
                "departure_date": {"type": "string", "format": "date"},
                "passengers": {"type": "integer"},
                "cabin_class": {"type": "string", "enum": ["economy", "business", "first"]},
                "nonstop_only": {"type": "boolean"},
                "stops": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
}
CALL = Call(
    "search_flights",
    {
        "origin": "JFK",
        "departure_date": "2026-03-14",
        "passengers": 3,
        "cabin_class": "business",
        "nonstop_only": True,
    },
)
TRUTH = GroundTruth("simple", (FLIGHTS,), (CALL,))


def _codes(query: str, truth: GroundTruth = TRUTH) -> list[tuple[str, str | None]]:
    return [(i.code, i.param) for i in check_query(query, truth).issues]


def test_values_in_any_surface_form_pass() -> None:
    for query in (
        "Search flights from JFK on March 14, 2026 for three passengers in business, nonstop only.",
        "Find flights: origin jfk, departure 14 March 2026, 3 passengers, business, nonstop only.",
        "Flights from JFK on 03/14/2026, 3 people, business class, nonstop only please.",
    ):
        assert check_query(query, TRUTH).ok, query


def test_a_missing_value_is_named() -> None:
    query = "Search flights from JFK for 3 passengers in business, nonstop only."
    assert _codes(query) == [("value_not_stated", "departure_date")]
    issue = check_query(query, TRUTH).issues[0]
    assert issue.call == 0 and "2026-03-14" in issue.message


def test_contradictions_are_flagged() -> None:
    other_date = (
        "Search flights from JFK on 2026-03-14 or 2026-03-15, 3 passengers, business, nonstop only."
    )
    assert ("contradiction", None) in _codes(other_date)
    other_enum = (
        "Search flights from JFK on 2026-03-14, 3 passengers, the cabin class first "
        "and business, nonstop only."
    )
    assert ("contradiction", "cabin_class") in _codes(other_enum)
    other_number = (
        "Search flights from JFK on 2026-03-14, 3 or 4 passengers, business, nonstop only."
    )
    assert ("contradiction", None) in _codes(other_number)


def test_a_number_word_fused_to_a_word_is_no_number() -> None:
    query = "Search one-off flights from JFK on 2026-03-14, 3 passengers, business, nonstop only."
    assert check_query(query, TRUTH).ok
    assert ("contradiction", None) in _codes(query.replace("one-off", "one"))


def test_arrays_and_irrelevance_intents() -> None:
    truth = GroundTruth(
        "simple",
        (FLIGHTS,),
        (
            Call(
                "search_flights",
                {"origin": "JFK", "departure_date": "2026-03-14", "stops": ["Reykjavik", "Oslo"]},
            ),
        ),
    )
    assert check_query("Flights from JFK on 2026-03-14 via Reykjavik and Oslo.", truth).ok
    assert _codes("Flights from JFK on 2026-03-14 via Reykjavik.", truth) == [
        ("value_not_stated", "stops")
    ]
    intent = GroundTruth(
        "irrelevance",
        (),
        (),
        {
            "intent": {
                "name": CALL.name,
                "arguments": {"origin": "JFK", "departure_date": "2026-03-14"},
            },
            "intent_tool": FLIGHTS,
        },
    )
    assert check_query("Any flights out of JFK on March 14, 2026?", intent).ok
    assert not check_query("Any flights out of JFK?", intent).ok
    assert _codes("   ") == [("empty_query", None)]


PINNED = GroundTruth("simple", (FLIGHTS,), (CALL,), {"reference_date": "2026-03-12"})


def test_a_relative_date_states_the_date_against_the_reference() -> None:
    for when in ("the day after tomorrow", "in 2 days", "next Saturday"):
        query = f"Search flights from JFK {when} for 3 passengers in business, nonstop only."
        assert check_query(query, PINNED).ok, query
    wrong = "Search flights from JFK tomorrow for 3 passengers in business, nonstop only."
    assert ("value_not_stated", "departure_date") in _codes(wrong, PINNED)
    assert ("contradiction", None) in _codes(wrong, PINNED)
    later = "Search flights from JFK in 4 days for 3 passengers in business, nonstop only."
    assert ("contradiction", None) in _codes(later, PINNED)


def test_without_a_reference_a_relative_date_states_nothing() -> None:
    query = "Search flights from JFK in 2 days for 3 passengers in business, nonstop only."
    assert ("value_not_stated", "departure_date") in _codes(query)


def test_a_relative_date_inside_a_value_is_that_value_not_a_clash() -> None:
    sms = {
        "type": "function",
        "function": {
            "name": "send_sms",
            "description": "Send an SMS.",
            "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
        },
    }
    call = Call("send_sms", {"message": "Reminder: the report is due tomorrow."})
    truth = GroundTruth("simple", (sms,), (call,), {"reference_date": "2026-03-12"})
    assert check_query('Text "Reminder: the report is due tomorrow."', truth).ok
