"""What could be a value, and the words around it (``template.mentions``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.mentions import find_mentions
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

WALL = _tool(
    "paint_needed",
    "Gallons of paint for a wall.",
    {
        "length": {"type": "integer", "description": "The length of the wall in feet."},
        "height": {"type": "integer", "description": "The height of the wall in feet."},
    },
    ["length", "height"],
)


def test_what_a_unit_measures_after_in_describes_the_number() -> None:
    eight = find_mentions("a wall 12 feet in length and 8 feet in height")[2]
    assert eight.after == ("feet", "in", "height")
    assert "length" not in eight.before


def test_words_before_a_join_describe_the_value_before_it() -> None:
    calls = read("Paint a wall that is 12 feet in length and 8 feet in height.", [WALL])
    assert calls == (Call("paint_needed", {"length": 12, "height": 8}),)


PARTIES = _tool(
    "find_parties",
    "Find law cases by a party and a city.",
    {
        "party_name": {"type": "string", "description": "The name of the party."},
        "city": {"type": "string", "description": "The city where the case was tried."},
    },
    ["party_name", "city"],
)


def test_what_a_name_is_said_to_be_describes_it() -> None:
    query = "Get cases where Harvard University was a party and happened in Boston."
    assert read(query, [PARTIES]) == (
        Call("find_parties", {"party_name": "Harvard University", "city": "Boston"}),
    )


def test_a_label_before_a_number_is_no_name() -> None:
    said = find_mentions("Look up Order No. 5521 and Flight Number 330 and Case No 28473.")
    assert [(m.kind, m.value) for m in said] == [
        ("number", 5521.0),
        ("number", 330.0),
        ("number", 28473.0),
    ]


def test_a_number_after_of_is_no_part_of_a_name() -> None:
    said = find_mentions("Show the claim with claim ID of 8812 and its status.")
    assert [(m.kind, m.value) for m in said if m.kind != "phrase"] == [("number", 8812.0)]
    said = find_mentions("Show the claim with claim Code of 8812 and its status.")
    assert [(m.kind, m.value) for m in said if m.kind != "phrase"] == [
        ("name", "Code"),
        ("number", 8812.0),
    ]
    claim = _tool(
        "claims.check",
        "Check an insurance claim by its ID.",
        {"claim_id": {"type": "integer", "description": "The claim's number."}},
        ["claim_id"],
    )
    assert read("Show the claim with claim ID of 8812.", [claim]) == (
        Call("claims.check", {"claim_id": 8812}),
    )


def test_a_note_with_its_sharp_is_one_name() -> None:
    said = find_mentions("Play it in F# minor, not in G.")
    assert [(m.kind, m.value) for m in said if m.kind != "phrase"] == [
        ("name", "F#"),
        ("name", "G"),
    ]


RANKING = _tool(
    "sport_ranking",
    "Get the world ranking of a player.",
    {
        "sport": {"type": "string", "description": "The sport."},
        "player_name": {"type": "string", "description": "The player's name."},
    },
    ["sport", "player_name"],
)


def test_a_name_after_a_noun_and_a_comma_is_what_the_noun_names() -> None:
    (call,) = read("Find the world ranking of a Squash player, Nour El Sherbini.", [RANKING])
    assert call.arguments == {"sport": "Squash", "player_name": "Nour El Sherbini"}


def test_two_parties_joined_by_vs_and_said_as_a_case_are_one_name() -> None:
    said = find_mentions("Get the Smith vs Jones civil case and the Lakers vs Bulls game.")
    assert [m.value for m in said if m.kind == "name"] == ["Smith vs Jones", "Lakers", "Bulls"]


def test_the_mentions_of_a_text_read_again_are_a_fresh_list() -> None:
    first = find_mentions("Book 2 rooms in Oslo.")
    first.clear()
    assert [m.value for m in find_mentions("Book 2 rooms in Oslo.")] == [2.0, "Oslo"]


PAYOUT = _tool(
    "dividend_per_share",
    "The dividend per share of a company.",
    {
        "total_payout": {"type": "integer", "description": "The total dividends paid in USD"},
        "outstanding_shares": {"type": "integer", "description": "The outstanding shares"},
    },
    ["total_payout", "outstanding_shares"],
)


def test_an_amount_and_a_plain_number_are_no_list() -> None:
    shares = find_mentions("a payout of $2,000,000 and 400,000 outstanding shares")[1]
    assert "payout" not in shares.before
    calls = read(
        "What is the dividend per share with a total payout of $2,000,000 and 400,000 "
        "outstanding shares?",
        [PAYOUT],
    )
    assert calls == (
        Call("dividend_per_share", {"total_payout": 2000000, "outstanding_shares": 400000}),
    )


def test_text_in_backticks_is_quoted() -> None:
    said = find_mentions("I have a dataset `sales_df` to train on")
    assert [(m.kind, m.value) for m in said if m.kind == "quoted"] == [("quoted", "sales_df")]


ALIGN = _tool(
    "analyze_sequence",
    "Compare a DNA sequence with a reference sequence.",
    {
        "sequence": {"type": "string", "description": "The DNA sequence to analyze."},
        "reference_sequence": {"type": "string", "description": "The reference sequence."},
    },
    ["sequence", "reference_sequence"],
)


def test_what_follows_using_is_what_a_value_is_used_with_not_what_it_is() -> None:
    assert find_mentions('the sequence "ACGT" using the reference')[0].after == ("using",)
    calls = read(
        'Analyze the DNA sequence "AGCTA" and "AGGCTA" using the reference sequence "AGCTA".',
        [ALIGN],
    )
    assert [c.arguments for c in calls] == [
        {"sequence": "AGCTA", "reference_sequence": "AGCTA"},
        {"sequence": "AGGCTA", "reference_sequence": "AGCTA"},
    ]


def test_a_brand_and_its_model_code_are_one_name() -> None:
    said = find_mentions("the price of a Yamaha P125 piano and a Galaxy S21 in Berlin")
    assert [m.text for m in said if m.kind == "name"] == ["Yamaha P125", "Galaxy S21", "Berlin"]
    said = find_mentions("the analysis of the building with Id B1004")
    assert [m.text for m in said if m.kind == "code"] == ["B1004"]


def test_an_id_label_before_a_number_is_no_name() -> None:
    said = find_mentions("update a customer with user ID 12345 in the database")
    assert [(m.kind, m.text) for m in said if m.kind != "phrase"] == [("number", "12345")]
