"""Every entry points at its words; nothing is dropped silently; contradictions are named."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.verifier import TaskIn
from services.planner.ingest.brief.compiler import orientation_of_aspect
from tests.planner.ingest.helpers import compiled, stated, unparsed, words_of
from tests.planner.ingest.pools import ONE_TRACK, SURF, TWO_TRACKS, WEDDING

BRIEF = "30 seconds, open on the venue, the vows and the rings, end on the kiss, soft dissolves"


def test_every_span_holds_the_words_it_quotes() -> None:
    result = compiled(BRIEF)
    for row in result.provenance:
        if row["source"] == "brief":
            assert BRIEF[row["start"] : row["end"]] == row["text"]
    by_kind = {e["kind"]: words_of(result, e) for e in result.ledger}
    assert by_kind["duration"] == ["30 seconds"]
    assert by_kind["transitions"] == ["soft dissolves"]
    first, last = (e for e in result.ledger if e["kind"] == "order")
    assert words_of(result, first) == ["open on the venue"]
    assert words_of(result, last) == ["end on the kiss"]
    vows, rings = stated(result, "must_include")
    assert words_of(result, vows) == ["the vows"] and words_of(result, rings) == ["the rings"]
    assert unparsed(result) == []


def test_every_entry_has_provenance_and_the_ledger_is_valid_task1() -> None:
    result = compiled(BRIEF)
    ids = {p["constraint_id"] for p in result.provenance}
    assert ids == {e["id"] for e in result.ledger}
    task = {"id": "t", "brief": {"text": BRIEF}, "clips": WEDDING, "music": ONE_TRACK}
    assert len(TaskIn.model_validate({**task, "ledger": result.ledger}).ledger) == len(ids)


def test_words_that_map_to_nothing_come_back_as_spans() -> None:
    text = "teaser for instagram, 15s, make it feel like summer, show the fireworks"
    result = compiled(text)
    assert unparsed(result) == ["teaser for instagram", "feel like summer", "show the fireworks"]
    for span in result.unparsed:
        assert text[span["start"] : span["end"]] == span["text"]
    assert stated(result, "must_include") == []


def test_defaults_are_marked_and_point_at_no_words() -> None:
    result = compiled("30 seconds")
    defaults = {p["constraint_id"]: p for p in result.provenance if p["source"] == "default"}
    kinds = {e["kind"]: e for e in result.ledger if e["id"] in defaults}
    assert kinds["music"]["track_id"] == "m1" and kinds["music"]["hard"] is True
    assert kinds["no_reuse"]["hard"] is False
    for row in defaults.values():
        assert row["start"] is None and row["end"] is None and row["text"] is None
        assert row["note"]


def test_no_default_track_when_the_pool_has_two_or_the_brief_names_one() -> None:
    assert [
        e for e in compiled("30 seconds", music=TWO_TRACKS).ledger if e["kind"] == "music"
    ] == []
    result = compiled("30 seconds, don't reuse clips")
    assert [
        p["source"]
        for p in result.provenance
        if p["constraint_id"] in {e["id"] for e in result.ledger if e["kind"] == "no_reuse"}
    ] == ["brief"]


def test_an_aspect_given_becomes_a_soft_orientation_unless_the_words_say_one() -> None:
    result = compiled("30 seconds", SURF, aspect="9:16")
    (entry,) = [e for e in result.ledger if e["kind"] == "orientation"]
    assert entry["value"] == "portrait" and entry["hard"] is False
    (row,) = [p for p in result.provenance if p["constraint_id"] == entry["id"]]
    assert row["source"] == "aspect" and row["start"] is None
    worded = compiled("30 seconds, landscape", SURF, aspect="9:16")
    (entry,) = [e for e in worded.ledger if e["kind"] == "orientation"]
    assert entry["value"] == "landscape" and entry["hard"] is True
    assert orientation_of_aspect("1:1") == "square"


def test_contradicting_lengths_are_named_and_the_later_kept() -> None:
    text = "30 seconds, actually under 20 seconds"
    result = compiled(text)
    (entry,) = stated(result, "duration")
    assert entry["max_s"] == 20
    (conflict,) = result.conflicts
    assert [s["text"] for s in conflict["spans"]] == ["30 seconds", "under 20 seconds"]
    assert "total length" in conflict["message"]
    assert unparsed(result) == []


def test_two_openers_are_named_and_the_later_kept() -> None:
    result = compiled("open on the venue, or rather start with the couple")
    first = [e for e in stated(result, "order") if "first" in e]
    assert first == [{**first[0], "first": {"tags": ["couple"]}}]
    assert "opening shot" in result.conflicts[0]["message"]


def test_wanted_and_refused_clips_are_named() -> None:
    result = compiled("include the cake, no cake")
    assert stated(result, "must_include") == []
    assert len(stated(result, "must_exclude")) == 1
    assert "asked for and refused" in result.conflicts[0]["message"]


def test_only_cuts_against_dissolves_is_named() -> None:
    result = compiled("hard cuts only, soft dissolves")
    (entry,) = stated(result, "transitions")
    assert entry["allowed"] == ["cut", "dissolve"]  # the later wish
    assert "only cut" in result.conflicts[0]["message"]


def test_a_shape_the_pool_lacks_is_named() -> None:
    result = compiled("square please", WEDDING)
    assert "no clip in the pool is square" in result.conflicts[0]["message"]


def test_repeats_merge_and_keep_the_stronger_count() -> None:
    result = compiled("the dancing somewhere, at least two dance shots")
    (entry,) = stated(result, "must_include")
    assert entry["min_count"] == 2 and len(words_of(result, entry)) == 2


def test_nonsense_does_not_crash() -> None:
    for text in ("!!!", "and and and", "then", "no", "before after", "cover", "…", "0 seconds"):
        result = compiled(text)
        assert isinstance(result.unparsed, list)


_PIECES = [
    "30 seconds",
    "open on the venue",
    "end on the kiss",
    "no cake",
    "the vows and the rings",
    "hard cuts only",
    "soft dissolves",
    "at least two dance shots",
    "never two close-ups in a row",
    "cut on the beat",
    "land on a downbeat",
    "vertical",
    "under 20 seconds",
    "it before the cake",
    "then the rings",
    "cover the vows, the cake and the party",
    "make it pop",
    "no clip twice",
    "shots under 2 seconds each",
    "to the upbeat track",
    "include the fireworks",
    "…",
    "and",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8),
    st.sampled_from([", ", ". ", " and ", " - ", "; ", " "]),
    st.text(max_size=12),
)
def test_any_brief_compiles_to_a_valid_ledger_with_true_spans(pieces, joint, noise) -> None:
    text = joint.join(pieces) + noise
    result = compiled(text)
    task = {"id": "t", "brief": {"text": text or "x"}, "clips": WEDDING, "music": ONE_TRACK}
    TaskIn.model_validate({**task, "ledger": result.ledger})
    for row in result.provenance + result.unparsed:
        if row.get("start") is not None:
            assert text[row["start"] : row["end"]] == row["text"]
    assert {p["constraint_id"] for p in result.provenance} == {e["id"] for e in result.ledger}
