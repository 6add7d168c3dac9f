"""Plain phrases shaped as values (``template.concepts``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.concepts import phrase_span
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

ORIGIN = _tool(
    "idea_origin",
    "Who first proposed an idea.",
    {"idea": {"type": "string", "description": "The idea."}},
    ["idea"],
)


def test_a_named_idea_keeps_its_head() -> None:
    for query in (
        "Who first proposed the principle of least action?",
        "Who first proposed the wording of the principle of least action?",
    ):
        calls = read(query, [ORIGIN])
        assert calls == (Call("idea_origin", {"idea": "principle of least action"}),)


def test_a_trailing_participle_is_no_part_of_a_phrase() -> None:
    text = "the year of universal gravitation published by Newton"
    start = text.index("universal")
    assert text[
        slice(*phrase_span(text, start, start + len("universal gravitation published")))
    ] == ("universal gravitation")


TRAITS = _tool(
    "traits_of",
    "Personality traits of people by hobby.",
    {"hobby": {"type": "string", "description": "The hobby."}},
    ["hobby"],
)


def test_who_a_phrase_is_about_is_no_value_what_they_do_is() -> None:
    for query, hobby in (
        ("Find the traits of people who like gardening.", "gardening"),
        ("Find the traits of folks who write about birdwatching.", "birdwatching"),
    ):
        assert read(query, [TRAITS]) == (Call("traits_of", {"hobby": hobby}),)


def test_a_verb_before_its_object_is_no_part_of_a_phrase() -> None:
    text = "I'm thinking of renting a van from Hertz"
    start = text.index("renting")
    span = phrase_span(text, start, start + len("renting a van"))
    assert text[span[0] : span[1]] == "van"


def test_a_trailing_participle_not_spelled_with_ed_is_no_part_of_a_phrase() -> None:
    text = "Find the price of a vase made of glass"
    start = text.index("vase")
    span = phrase_span(text, start, start + len("vase made"))
    assert text[span[0] : span[1]] == "vase"
    set_text = "Load the training data set"
    start = set_text.index("training")
    span = phrase_span(set_text, start, len(set_text))
    assert set_text[span[0] : span[1]] == "training data set"  # "set" is no participle here
