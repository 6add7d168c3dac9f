"""Clause families that need no clip: length, shape, reuse, runs, transitions, beats, music."""

from __future__ import annotations

import pytest

from tests.planner.ingest.helpers import compiled, stated, unparsed, words_of
from tests.planner.ingest.pools import SURF, TWO_TRACKS


@pytest.mark.parametrize(
    ("text", "low", "high", "target"),
    [
        ("30 seconds", 28, 32, 30),
        ("a 30-second reel", 28, 32, 30),
        ("15s", 14, 16, 15),
        ("about a minute", 51, 69, 60),
        ("half a minute", 28, 32, 30),
        ("20 to 25 seconds", 20, 25, None),
        ("between 45 and 60 seconds", 45, 60, None),
        ("twenty seconds tops", 12, 20, None),
        ("no more than 40 seconds", 24, 40, None),
    ],
)
def test_length_of_the_edit(text: str, low: float, high: float, target: float | None) -> None:
    (entry,) = stated(compiled(text), "duration")
    assert (entry["min_s"], entry["max_s"], entry.get("target_s")) == (low, high, target)
    assert entry["hard"] is True


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("shots between 2 and 5 seconds", 2, 5),
        ("under 2 seconds each", 0, 2),
        ("no shot longer than 5 seconds", 0, 5),
        ("every shot at least 4 seconds long", 4, 6),
        ("1 to 3 seconds a shot", 1, 3),
    ],
)
def test_length_of_every_shot(text: str, low: float, high: float) -> None:
    result = compiled(text)
    (entry,) = stated(result, "shot_length")
    assert (entry["min_s"], entry["max_s"]) == (low, high)
    assert stated(result, "duration") == []


def test_a_30_second_cut_is_the_whole_edit_not_its_shots() -> None:
    result = compiled("a 20 second cut for the couple")
    assert stated(result, "shot_length") == []
    assert stated(result, "duration")[0]["target_s"] == 20


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("vertical", "portrait"),
        ("portrait only", "portrait"),
        ("landscape version", "landscape"),
        ("a square one", "square"),
        ("9:16 please", "portrait"),
    ],
)
def test_shape(text: str, value: str) -> None:
    (entry,) = stated(compiled(text, SURF), "orientation")
    assert entry["value"] == value and entry["hard"] is True


@pytest.mark.parametrize(
    "text",
    [
        "no clip twice",
        "don't use any clip twice",
        "don't reuse clips",
        "no clip used more than once",
        "don't use the same clip twice",
    ],
)
def test_reuse(text: str) -> None:
    result = compiled(text)
    (entry,) = stated(result, "no_reuse")
    assert entry["hard"] is True and entry["max_uses"] == 1
    assert unparsed(result) == []


@pytest.mark.parametrize(
    ("text", "tag", "run"),
    [
        ("never two close-ups in a row", "closeup", 1),
        ("at most two dance shots in a row", "dance", 2),
        ("no more than 3 vows shots back to back", "vows", 3),
        ("never three dance clips back-to-back", "dance", 2),
    ],
)
def test_runs(text: str, tag: str, run: int) -> None:
    (entry,) = stated(compiled(text), "max_consecutive_tag")
    assert (entry["tag"], entry["max_run"]) == (tag, run)


def test_a_run_of_a_subject_the_pool_lacks_is_unparsed_not_guessed() -> None:
    result = compiled("never two drummer shots in a row")
    assert stated(result, "max_consecutive_tag") == []
    assert unparsed(result) == ["never two drummer shots in a row"]  # nothing came of it


@pytest.mark.parametrize(
    ("text", "params"),
    [
        ("hard cuts only", {"allowed": ["cut"]}),
        ("soft dissolves", {"allowed": ["cut", "dissolve"]}),
        ("crossfades only", {"allowed": ["dissolve"]}),
        ("slow dissolves, no cuts", {"allowed": ["dissolve"]}),
        ("no fades to black", {"allowed": ["cut", "dissolve", "wipe"]}),
        ("at most two transitions", {"max_count": 2}),
        (
            "at most one fade to black, otherwise straight cuts",
            {"allowed": ["cut", "fade_black"], "max_count": 1},
        ),
        (
            "dissolves no longer than half a second",
            {"allowed": ["cut", "dissolve"], "max_duration_s": 0.5},
        ),
        ("wipes are fine", {"allowed": ["cut", "wipe"]}),
    ],
)
def test_transitions(text: str, params: dict) -> None:
    (entry,) = stated(compiled(text), "transitions")
    assert {k: v for k, v in entry.items() if k in params} == params
    assert set(entry) - set(params) <= {"id", "kind", "hard"}


def test_transition_clauses_merge_into_one_constraint_pointing_at_both() -> None:
    result = compiled("dissolves no shorter than 0.4 seconds, at most 3 transitions")
    (entry,) = stated(result, "transitions")
    assert entry["min_duration_s"] == 0.4 and entry["max_count"] == 3
    assert words_of(result, entry) == [
        "dissolves no shorter than 0.4 seconds",
        "at most 3 transitions",
    ]


@pytest.mark.parametrize(
    ("text", "fraction"),
    [("cut on the beat", 0.8), ("keep the cuts on the beat", 0.8), ("every cut on the beat", 1.0)],
)
def test_beats(text: str, fraction: float) -> None:
    (entry,) = stated(compiled(text), "beat_alignment")
    assert entry["min_fraction"] == fraction and entry["tolerance_s"] == 0.1


@pytest.mark.parametrize(
    "text", ["end on a downbeat", "land on the downbeat", "right on a downbeat"]
)
def test_downbeat(text: str) -> None:
    result = compiled(text)
    assert len(stated(result, "end_on_downbeat")) == 1
    assert stated(result, "order") == []


@pytest.mark.parametrize(
    ("text", "track"),
    [
        ("to the upbeat track", "m-fast"),
        ("use the romantic song", "m-slow"),
        ("m-slow", "m-slow"),
        ("set it to the upbeat music", "m-fast"),
    ],
)
def test_music_by_mood_or_id(text: str, track: str) -> None:
    result = compiled(text, music=TWO_TRACKS)
    (entry,) = stated(result, "music")
    assert entry["track_id"] == track
    assert unparsed(result) == []


def test_a_mood_no_track_has_names_no_track() -> None:
    result = compiled("to the jazzy track", music=TWO_TRACKS)
    assert [e for e in result.ledger if e["kind"] == "music"] == []
