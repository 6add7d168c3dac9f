"""Stage 2 of the template generator: seeded, varied, complete, and explicit when told."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from services.synth.calls import Call, GroundTruth, Issue
from services.synth.generators.template import TemplateGenerator
from services.synth.generators.template.phrases import verb_phrase
from services.synth.generators.template.realiser import explicit_targets, realise
from services.synth.naturalness import leaked_labels
from services.synth.query_check import check_query

HOTEL = {
    "type": "function",
    "function": {
        "name": "book_hotel",
        "description": "Book a hotel room.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City"},
                "check_in": {"type": "string", "format": "date", "description": "Arrival"},
                "guests": {"type": "integer", "description": "Number of guests"},
                "room_type": {"type": "string", "enum": ["standard", "suite"]},
                "breakfast": {"type": "boolean", "description": "Include breakfast"},
            },
            "required": ["city", "check_in", "guests"],
        },
    },
}
CALL = Call(
    "book_hotel",
    {
        "city": "Lisbon",
        "check_in": "2026-03-14",
        "guests": 3,
        "room_type": "suite",
        "breakfast": True,
    },
)
TRUTH = GroundTruth("simple", (HOTEL,), (CALL,))


def test_same_seed_same_query_and_seeds_vary_the_wording() -> None:
    first = [realise(TRUTH, issues=(), previous=None, seed=s) for s in range(30)]
    again = [realise(TRUTH, issues=(), previous=None, seed=s) for s in range(30)]
    assert first == again
    assert len(set(first)) >= 25
    assert any("March 14, 2026" in q or "14 March 2026" in q for q in first)
    assert any(q.endswith("?") for q in first) and any(q.endswith(".") for q in first)


def test_values_are_said_without_parameter_names() -> None:
    for seed in range(50):
        query = realise(TRUTH, issues=(), previous=None, seed=seed)
        assert not leaked_labels(query, TRUTH), query
        assert "room type" not in query and "check in" not in query.lower()


def test_optional_parameters_are_said_only_when_the_truth_sets_them() -> None:
    bare = GroundTruth("simple", (HOTEL,), (Call("book_hotel", {**CALL.arguments}),))
    lean = Call("book_hotel", {k: CALL.arguments[k] for k in ("city", "check_in", "guests")})
    for seed in range(20):
        query = realise(
            GroundTruth("simple", (HOTEL,), (lean,)), issues=(), previous=None, seed=seed
        )
        assert "suite" not in query and "breakfast" not in query.lower()
        assert "suite" in realise(bare, issues=(), previous=None, seed=seed)


def test_parallel_calls_that_differ_in_one_value_share_a_sentence() -> None:
    oslo = Call("book_hotel", {"city": "Oslo", "check_in": "2026-03-14", "guests": 2})
    bergen = oslo._replace(arguments={**oslo.arguments, "city": "Bergen"})
    truth = GroundTruth("parallel", (HOTEL,), (oslo, bergen))
    for seed in range(20):
        query = realise(truth, issues=(), previous=None, seed=seed)
        assert check_query(query, truth).ok, query
        assert query.count("hotel") == 1 and "Bergen" in query, query


def test_every_query_states_every_value() -> None:
    for seed in range(50):
        query = realise(TRUTH, issues=(), previous=None, seed=seed)
        assert check_query(query, TRUTH).ok, query


def test_refinement_restates_the_named_call_explicitly() -> None:
    truth = GroundTruth(
        "parallel",
        (HOTEL,),
        (CALL, CALL._replace(arguments={"city": "Porto", "check_in": "2026-04-01", "guests": 2})),
    )
    first = realise(truth, issues=(), previous=None, seed=7)
    issue = Issue("misread", "city was misread", 1, "city")
    second = realise(truth, issues=[issue], previous=first, seed=7)
    assert "arrival: 2026-04-01" in second and '"Porto"' in second
    # the restated call stays restated when a later round names the other call
    third = realise(truth, issues=[Issue("misread", "x", 0, "guests")], previous=second, seed=7)
    assert "arrival: 2026-04-01" in third and "arrival: 2026-03-14" in third


def test_explicit_targets() -> None:
    assert explicit_targets([Issue("a", "m", 1)], 3) == {1}
    assert explicit_targets([Issue("a", "m", None)], 3) == {0, 1, 2}
    assert explicit_targets([Issue("a", "m", 9)], 3) == {0, 1, 2}


def test_irrelevance_asks_for_the_intent() -> None:
    truth = GroundTruth(
        "irrelevance",
        (),
        (),
        {"intent": {"name": CALL.name, "arguments": CALL.arguments}, "intent_tool": HOTEL},
    )
    query = TemplateGenerator().query(truth, previous=None, issues=(), seed=1)
    assert "Lisbon" in query and check_query(query, truth).ok


def test_verb_phrases() -> None:
    assert verb_phrase("book_hotel") == "book a hotel"
    assert verb_phrase("search_flights") == "search flights"
    assert verb_phrase("get_weather_forecast") == "get the weather forecast"
    assert verb_phrase("post_to_slack_channel") == "post to slack channel"
    assert verb_phrase("book_hotel", 1) == "reserve a hotel"


DOOR = {
    "type": "function",
    "function": {
        "name": "lock_door",
        "description": "Lock or unlock a door of the house.",
        "parameters": {
            "type": "object",
            "properties": {
                "door": {"type": "string", "enum": ["front", "back"], "description": "Which door"},
                "room": {
                    "type": "string",
                    "enum": ["living_room", "hall"],
                    "description": "Where the door is",
                },
            },
            "required": ["door", "room"],
        },
    },
}


def test_function_name_words_and_enum_values_do_not_echo_parameter_names() -> None:
    call = Call("lock_door", {"door": "back", "room": "living_room"})
    truth = GroundTruth("simple", (DOOR,), (call,))
    for seed in range(40):
        query = realise(truth, issues=(), previous=None, seed=seed)
        assert not leaked_labels(query, truth), query


def test_verb_phrase_avoids_names_it_is_told_to() -> None:
    assert verb_phrase("schedule_whatsapp_message", avoid=frozenset({"message"})) == (
        "schedule a whatsapp text"
    )
    assert "channel" not in verb_phrase("post_to_slack_channel", avoid=frozenset({"channel"}))
    assert verb_phrase("lock_door", avoid=frozenset({"lock", "door"})) == "secure the entrance"


def test_a_date_near_the_reference_is_sometimes_said_relative_to_it() -> None:
    pinned = replace(TRUTH, features={"reference_date": "2026-03-10"})  # a Tuesday
    query = realise(pinned, issues=(), previous=None, seed=3)
    assert "next Saturday" in query and "2026" not in query
    (call,) = TemplateGenerator().calls(query, pinned.tools, reference=date(2026, 3, 10))
    assert call.arguments["check_in"] == "2026-03-14"
    assert check_query(query, pinned).ok
    wrong = replace(pinned, features={"reference_date": "2026-03-11"})  # next Saturday: 14th
    assert check_query(query.replace("next Saturday", "tomorrow"), wrong).issues
    assert realise(TRUTH, issues=(), previous=None, seed=3).count("2026") == 1  # no reference
