"""The search draft honours a ``transitions`` rule that allows no cuts ("dissolves only")."""

from __future__ import annotations

from services.planner.proposers.search import SearchProposer
from services.verifier import ledger as L
from services.verifier.score import Verifier
from services.verifier.timeline import TransitionType
from tests.verifier.factories import clip, make_task, track

DISSOLVES_ONLY = L.Transitions(id="T", allowed=frozenset({TransitionType.DISSOLVE}))


def _draft(clips, rules):
    task = make_task(clips, tracks=[track("m1", 120)], ledger=rules)
    return task, SearchProposer(relevance_backend="tfidf").draft(task, seed=0)


def test_a_dissolves_only_rule_joins_every_shot_with_a_dissolve_that_has_its_media():
    clips = [clip(f"c{i}", 6 + i % 3, tags=["beach"]) for i in range(10)]
    rules = [L.Duration(id="D", min=600, max=720), DISSOLVES_ONLY]
    task, draft = _draft(clips, rules)
    assert len(draft.shots) > 2
    assert draft.shots[0].transition_in.type is TransitionType.CUT  # nothing comes before
    assert {s.transition_in.type for s in draft.shots[1:]} == {TransitionType.DISSOLVE}
    report = Verifier(task).verify(draft)
    assert report.executable, report.errors
    assert all(c.satisfied for c in report.constraints), report.constraints


def test_clips_with_room_for_the_overlap_are_chosen_before_clips_that_have_none():
    # every shot is exactly 5 s: a 5 s clip has no frame to spare for a dissolve
    exact = [clip(f"x{i}", 5, tags=["forest"], caption="forest mist") for i in range(4)]
    roomy = [clip(f"r{i}", 6, tags=["forest"]) for i in range(4)]
    rules = [
        L.Duration(id="D", min=600, max=600),
        L.ShotLength(id="S", min=150, max=150),
        DISSOLVES_ONLY,
    ]
    task, draft = _draft(exact + roomy, rules)
    ids = [s.clip_id for s in draft.shots]
    assert len(ids) == 4 and all(i.startswith("r") for i in ids)  # the more relevant x* lack room
    assert Verifier(task).verify(draft).feasible


def test_cuts_stay_cuts_when_the_rule_allows_them():
    clips = [clip(f"c{i}", 8, tags=["beach"]) for i in range(6)]
    rule = L.Transitions(id="T", allowed=frozenset({TransitionType.CUT, TransitionType.DISSOLVE}))
    _, draft = _draft(clips, [L.Duration(id="D", min=600, max=720), rule])
    assert {s.transition_in.type for s in draft.shots} == {TransitionType.CUT}
