"""The task in frames: selectors and the pool built by Task.build."""

from __future__ import annotations

from services.verifier.pool import Brief, Selector
from services.verifier.task import Task

from .factories import clip, track


def test_selector_matches_listed_ids_or_any_tag():
    surf = clip("a", tags=["surf", "ocean"])
    city = clip("b", tags=["city"])
    assert Selector(tags=frozenset({"ocean", "volcano"})).matches(surf)
    assert not Selector(tags=frozenset({"ocean"})).matches(city)
    assert Selector(clip_ids=frozenset({"b"})).matches(city)
    assert Selector(clip_ids=frozenset({"b"}), tags=frozenset({"surf"})).matches(surf)


def test_an_empty_selector_matches_nothing():
    assert not Selector().matches(clip("a", tags=["surf"]))
    assert Selector().describe() == "nothing"


def test_selector_describes_itself_in_sorted_order():
    selector = Selector(clip_ids=frozenset({"c2", "c1"}), tags=frozenset({"sunset", "beach"}))
    assert selector.describe() == "clips c1, c2 or tags beach, sunset"


def test_build_keys_clips_and_tracks_by_id_in_order():
    task = Task.build(
        id="t",
        fps=25,
        brief=Brief("x"),
        clips=[clip("b"), clip("a")],
        tracks=[track("m2"), track("m1")],
    )
    assert list(task.clips) == ["b", "a"]
    assert list(task.tracks) == ["m2", "m1"]
    assert task.clips["a"].id == "a"
    assert task.ledger == ()


def test_brief_defaults():
    brief = Brief("a reel")
    assert (brief.aspect, brief.style) == ("16:9", "neutral")
