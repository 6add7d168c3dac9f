"""Words meet the pool's tags by stem, compound and synonym; numbers and lengths as written."""

from __future__ import annotations

import pytest

from services.planner.ingest.brief.lexicon import Vocabulary, number, stem, words
from services.planner.ingest.brief.times import find_spans, seconds
from tests.planner.ingest.pools import SURF, WEDDING


@pytest.mark.parametrize(
    ("spoken", "tag"),
    [
        ("surfing", "surfer"),
        ("surfers", "surfer"),
        ("close-ups", "closeup"),
        ("tip-off", "tipoff"),
        ("speeches", "speech"),
        ("parties", "party"),
        ("mountains", "mountain"),
        ("piñatas", "pinata"),
        ("running", "run"),
    ],
)
def test_inflections_share_a_stem(spoken: str, tag: str) -> None:
    assert stem(spoken) == stem(tag)


def test_unrelated_words_keep_apart() -> None:
    assert stem("venue") != stem("vows")
    assert stem("cake") != stem("car")


def _vocabulary(clips: list[dict]) -> Vocabulary:
    return Vocabulary.build((c["id"], c["caption"], c["tags"]) for c in clips)


def test_words_map_onto_tags_by_stem_compound_and_synonym() -> None:
    vocabulary = _vocabulary(WEDDING)
    for phrase, tags in [
        ("the close-ups", ("closeup",)),
        ("the living room", ("livingroom",)),
        ("slow-motion", ("slowmo",)),
        ("the speeches", ("speech", "toast")),
    ]:
        found = vocabulary.match(words(phrase))
        assert len(found) == 1 and found[0].tags == tags, phrase
    surf = _vocabulary(SURF)
    assert surf.match(words("surfing"))[0].tags == ("surfer",)
    assert surf.match(words("the mountains"))[0].tags == ("mountain",)


def test_a_word_no_tag_holds_selects_the_clips_whose_caption_says_it() -> None:
    found = _vocabulary(SURF).match(words("the tacos"))
    assert found[0].clips == frozenset({"s3"}) and found[0].tags == ()


def test_words_naming_nothing_match_nothing() -> None:
    assert _vocabulary(WEDDING).match(words("the instagram teaser")) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("12", 12), ("1.5", 1.5), ("twelve", 12), ("twenty-five", 25), ("a", 1), ("purple", None)],
)
def test_numbers_as_digits_and_words(text: str, value: float | None) -> None:
    assert number(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("15s", 15),
        ("30 secs", 30),
        ("a minute", 60),
        ("half a minute", 30),
        ("a minute and a half", 90),
        ("two minutes", 120),
        ("thirty-second", 30),
        ("half a second", 0.5),
        ("a second and a half", 1.5),
    ],
)
def test_lengths_as_people_write_them(text: str, value: float) -> None:
    assert seconds(text) == value


@pytest.mark.parametrize(
    ("text", "kind", "value", "low"),
    [
        ("30 seconds", "exact", 30, None),
        ("about a minute", "approx", 60, None),
        ("20 to 25 seconds", "range", 25, 20),
        ("between 45 and 60 seconds", "range", 60, 45),
        ("60-90 seconds", "range", 90, 60),
        ("under 20 seconds", "max", 20, None),
        ("20 seconds tops", "max", 20, None),
        ("no more than 40 seconds", "max", 40, None),
        ("no shot longer than 5 seconds", "max", 5, None),
        ("no shorter than 3 seconds", "min", 3, None),
        ("at least 4 seconds", "min", 4, None),
    ],
)
def test_what_a_length_bounds(text: str, kind: str, value: float, low: float | None) -> None:
    (span,) = find_spans(text)
    assert (span.kind, span.value, span.low) == (kind, value, low)


def test_times_of_day_and_ordinals_are_no_lengths() -> None:
    assert find_spans("up at 5am for Maya's 6th birthday") == []
