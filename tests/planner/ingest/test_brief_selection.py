"""Clauses that pick clips: order, inclusion, exclusion, coverage, lists and "then"."""

from __future__ import annotations

import pytest

from tests.planner.ingest.helpers import compiled, stated, unparsed, words_of
from tests.planner.ingest.pools import SURF


def _order(result, key: str) -> list[dict]:
    return [e[key] for e in stated(result, "order") if key in e]


@pytest.mark.parametrize(
    "text",
    ["open on the venue", "start with the venue", "begin on the venue", "the venue first"],
)
def test_opening_shot(text: str) -> None:
    assert _order(compiled(text), "first") == [{"tags": ["venue"]}]


@pytest.mark.parametrize(
    "text",
    [
        "end on the kiss",
        "finish on the kiss",
        "land on the kiss",
        "the kiss last",
        "the kiss to close it out",
        "close with the kiss",
        "the kiss at the end",
    ],
)
def test_closing_shot(text: str) -> None:
    assert _order(compiled(text), "last") == [{"tags": ["kiss"]}]


@pytest.mark.parametrize(
    ("text", "before", "after"),
    [
        ("the vows before the rings", "vows", "rings"),
        ("the cake should come after the kiss", "kiss", "cake"),
    ],
)
def test_before_after(text: str, before: str, after: str) -> None:
    (entry,) = stated(compiled(text), "order")
    assert entry["before"] == {"tags": [before]} and entry["after"] == {"tags": [after]}


def test_it_refers_to_the_clips_named_last() -> None:
    result = compiled("the cake has to be in there and it should come before the dance")
    (order,) = stated(result, "order")
    assert order["before"] == {"tags": ["cake"]} and order["after"] == {"tags": ["dance"]}


def test_a_then_list_orders_and_includes_but_not_after_an_opener() -> None:
    result = compiled("start with the venue, then the vows, then the first dance")
    assert _order(result, "first") == [{"tags": ["venue"]}]
    includes = [e["tags"] for e in stated(result, "must_include")]
    assert includes == [["vows"], ["dance"]]
    (sequence,) = [e for e in stated(result, "order") if "before" in e]
    assert sequence["before"] == {"tags": ["vows"]} and sequence["after"] == {"tags": ["dance"]}


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("include the cake", [["cake"]]),
        ("show the vows and the rings", [["vows"], ["rings"]]),
        ("the vows and the rings", [["vows"], ["rings"]]),
        ("the confetti has to be in it", [["confetti"]]),
        ("the cake somewhere in the middle", [["cake"]]),
        ("45 seconds of the dancing", [["dance"]]),
    ],
)
def test_inclusion(text: str, tags: list[list[str]]) -> None:
    assert [e["tags"] for e in stated(compiled(text), "must_include")] == tags


def test_at_least_n_of_a_subject() -> None:
    result = compiled("at least two dance shots")
    (entry,) = stated(result, "must_include")
    assert entry["tags"] == ["dance"] and entry["min_count"] == 2
    assert result.conflicts == []  # the pool has two dance clips


def test_a_count_above_the_clips_the_pool_has_is_lowered_to_them_and_named() -> None:
    result = compiled("at least four dance shots, open on the venue")
    (entry,) = stated(result, "must_include")
    assert entry["tags"] == ["dance"] and entry["min_count"] == 2  # w8 and w9
    (conflict,) = result.conflicts
    assert conflict["message"].startswith("4 shots are asked for but only 2 clips match")
    assert conflict["spans"][0]["text"] == "at least four dance shots"
    notes = [p.get("note") for p in result.provenance if p["constraint_id"] == entry["id"]]
    assert notes == [conflict["message"]]


def test_a_phrase_names_the_clips_that_are_all_of_it() -> None:
    result = compiled("open on the groom's close-up")
    assert _order(result, "first") == [{"tags": ["groom"]}]  # the one clip both groom and close-up


def test_a_word_only_captions_hold_selects_clip_ids() -> None:
    (entry,) = stated(compiled("show the tacos", SURF), "must_include")
    assert entry["clip_ids"] == ["s3"]


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("no speeches", [["speech", "toast"]]),
        ("nothing of the cake", [["cake"]]),
        ("leave out the cake and the confetti", [["cake"], ["confetti"]]),
        ("keep the guests out of it", [["guests"]]),
        ("don't show the cake", [["cake"]]),
    ],
)
def test_exclusion(text: str, tags: list[list[str]]) -> None:
    result = compiled(text)
    assert [e["tags"] for e in stated(result, "must_exclude")] == tags
    assert unparsed(result) == []


def test_a_list_item_gets_its_own_words() -> None:
    result = compiled("leave out the cake and the confetti")
    cake, confetti = stated(result, "must_exclude")
    assert words_of(result, cake) == ["leave out the cake"]
    assert words_of(result, confetti) == ["the confetti"]


def test_coverage_lists_the_pools_words() -> None:
    result = compiled("cover the vows, the living room and the party")
    (entry,) = stated(result, "coverage")
    assert entry["topics"] == ["vows", "livingroom", "party"] and entry["min_fraction"] == 1.0


def test_coverage_leaves_an_unknown_topic_unparsed() -> None:
    result = compiled("cover the vows, the fireworks and the party")
    (entry,) = stated(result, "coverage")
    assert entry["topics"] == ["vows", "party"]
    assert unparsed(result) == ["the fireworks"]


@pytest.mark.parametrize(
    ("text", "tag"),
    [("the surfing", "surfer"), ("the mountains", "mountain"), ("the close-ups", "closeup")],
)
def test_inflections_and_synonyms_reach_the_pools_tags(text: str, tag: str) -> None:
    (entry,) = stated(compiled(f"show {text}", SURF), "must_include")
    assert tag in entry["tags"]


def test_slow_motion_is_slowmo() -> None:
    (entry,) = stated(compiled("include the slow-motion dance"), "must_include")
    assert entry["tags"] == ["slowmo"]  # the one dance in slow motion, by the tag that is it
