"""VES = E × (0.6·H + 0.2·S + 0.2·Q): components, weights, feasibility and the rubric."""

from __future__ import annotations

import pytest

from services.verifier import ledger as L
from services.verifier.pool import Selector
from services.verifier.score import WEIGHT_H, WEIGHT_Q, WEIGHT_S, Verifier
from services.verifier.timeline import MusicPlacement

from .factories import clip, make_task, seq, shot, timeline, track

POOL = [
    clip("x", 20, caption="surfer wave sunset", tags=["a", "b"]),  # relevance 1
    clip("y", 20, caption="surfer", tags=["b", "c"]),  # relevance 1/3
    clip("z", 20, caption="city", tags=["d"]),  # relevance 0
]
BRIEF = "surfer wave sunset"
MET_HARD = L.Duration(id="H1", min=100, max=200)
UNMET_HARD = L.MustInclude(id="H2", selector=Selector(tags=frozenset({"volcano"})))


def verify(tl, *, ledger=(), style="calm", tracks=(), pool=POOL):
    task = make_task(pool, ledger=ledger, brief=BRIEF, style=style, tracks=tracks)
    return Verifier(task).verify(tl)


def test_weights_are_the_published_ones():
    assert (WEIGHT_H, WEIGHT_S, WEIGHT_Q) == (0.6, 0.2, 0.2)


def test_worked_example():
    ledger = [
        MET_HARD,
        UNMET_HARD,
        L.NoReuse(id="S1", hard=False, weight=3.0),  # met: 1.0
        L.MustExclude(
            id="S2",
            hard=False,
            weight=1.0,  # shot 1 of 2: 0.5
            selector=Selector(clip_ids=frozenset({"y"})),
        ),
    ]
    report = verify(seq(("x", 60), ("y", 60)), ledger=ledger)
    c = report.components
    assert (c.E, c.H) == (1, 0.5)
    soft, rubric = c.S, c.Q
    assert soft == pytest.approx((3 * 1.0 + 1 * 0.5) / 4)
    # relevance 1, beats 0 (no music), pacing 60/90 (calm: 3–6 s), variety 1 − |{b}|/|{a,b,c}|
    assert (c.relevance, c.beats) == (1.0, 0.0)
    assert c.pacing == pytest.approx(2 / 3)
    assert c.variety == pytest.approx(2 / 3)
    assert rubric == pytest.approx((1 + 0 + 2 / 3 + 2 / 3) / 4)
    assert report.ves == pytest.approx(0.6 * 0.5 + 0.2 * 0.875 + 0.2 * 7 / 12, abs=1e-6)
    assert report.executable and not report.feasible
    assert [r.id for r in report.unmet_hard] == ["H2"]
    assert [r.id for r in report.constraints] == ["H1", "H2", "S1", "S2"]
    assert (report.duration, report.fps) == (120, 30)


def test_feasible_needs_every_hard_constraint_and_executability():
    ok = verify(seq(("x", 60), ("y", 60)), ledger=[MET_HARD])
    assert ok.executable and ok.feasible and ok.components.H == 1.0
    unmet = verify(seq(("x", 60), ("y", 60)), ledger=[MET_HARD, UNMET_HARD])
    assert unmet.executable and not unmet.feasible
    broken = verify(timeline(shot("x", 0, 60), shot("y", 590, 650)), ledger=[MET_HARD])
    assert broken.components.H == 1.0
    assert not broken.executable and not broken.feasible


def test_not_executable_scores_zero_whatever_the_ledger_says():
    report = verify(timeline(shot("x", 0, 60), shot("y", 590, 650)), ledger=[MET_HARD])
    assert report.components.E == 0
    assert report.ves == 0.0
    assert report.errors and report.errors[0].code == "range_outside_clip"


def test_empty_timeline_scores_zero_with_a_zero_rubric():
    report = verify(timeline())
    assert report.ves == 0.0
    c = report.components
    assert (c.relevance, c.beats, c.pacing, c.variety, c.Q) == (0.0, 0.0, 0.0, 0.0, 0.0)


def test_no_soft_constraints_means_full_soft_credit():
    report = verify(seq(("x", 60)), ledger=[UNMET_HARD])
    assert report.components.S == 1.0
    assert report.components.H == 0.0
    assert report.ves == pytest.approx(0.2 * 1.0 + 0.2 * report.components.Q, abs=1e-6)


def test_no_hard_constraints_means_full_hard_credit():
    report = verify(seq(("x", 60)), ledger=[L.NoReuse(id="S", hard=False)])
    assert report.components.H == 1.0
    assert report.feasible


@pytest.mark.parametrize(
    ("met_weight", "unmet_weight", "expected"),
    [(1.0, 1.0, 0.5), (3.0, 1.0, 0.75), (1.0, 3.0, 0.25)],
)
def test_soft_score_is_weighted_by_constraint_weight(met_weight, unmet_weight, expected):
    ledger = [
        L.NoReuse(id="met", hard=False, weight=met_weight),
        L.MustInclude(
            id="unmet",
            hard=False,
            weight=unmet_weight,
            selector=Selector(tags=frozenset({"volcano"})),
        ),
    ]
    soft = verify(seq(("x", 60)), ledger=ledger).components.S
    assert soft == pytest.approx(expected)


def test_soft_partial_credit_follows_the_outcome_score():
    rule = L.MustInclude(
        id="S", hard=False, selector=Selector(clip_ids=frozenset({"x"})), min_count=4
    )
    assert verify(seq(("x", 60), ("x", 60), ("z", 60)), ledger=[rule]).components.S == 0.5


def test_a_soft_failure_does_not_block_feasibility():
    rule = L.MustInclude(id="S", hard=False, selector=Selector(tags=frozenset({"volcano"})))
    report = verify(seq(("x", 60)), ledger=[rule])
    assert report.feasible and report.components.S == 0.0


class TestRubric:
    def test_relevance_is_relative_to_the_best_the_pool_allows(self):
        # best two clips: x (1) and y (1/3); choosing y and z gives (1/3) / (4/3)
        assert verify(seq(("y", 60), ("z", 60))).components.relevance == pytest.approx(0.25)
        assert verify(seq(("x", 60), ("y", 60))).components.relevance == 1.0

    def test_relevance_is_full_when_nothing_in_the_pool_is_relevant(self):
        pool = [clip("p", caption="city"), clip("q", caption="traffic")]
        assert verify(seq(("p", 60)), pool=pool).components.relevance == 1.0

    @pytest.mark.parametrize(
        ("style", "length", "expected"),
        [
            ("calm", 60, 60 / 90),  # below 3 s
            ("calm", 120, 1.0),  # inside 3–6 s
            ("calm", 270, 1 - (270 - 180) / 180),  # above 6 s
            ("energetic", 30, 1.0),  # 1–2.5 s
            ("energetic", 150, 0.0),  # 5 s: twice the top of the band
            ("whatever", 90, 1.0),  # default band 2–4 s
        ],
    )
    def test_pacing_against_the_style_band(self, style, length, expected):
        report = verify(seq(("x", length)), style=style)
        assert report.components.pacing == pytest.approx(expected)

    def test_variety_is_zero_for_the_same_clip_twice_and_one_for_disjoint_tags(self):
        assert verify(seq(("x", 60), ("x", 60))).components.variety == 0.0
        assert verify(seq(("x", 60), ("z", 60))).components.variety == 1.0
        assert verify(seq(("x", 60))).components.variety == 1.0

    def test_beats_use_the_ledger_tolerance_when_there_is_one(self):
        tracks = [track("m1", 60, beats=range(0, 1800, 30))]
        tl = timeline(shot("x", 0, 65), shot("y", 0, 60), music=MusicPlacement("m1"))
        assert verify(tl, tracks=tracks).components.beats == 0.0  # default 0.1 s = 3 frames
        rule = L.BeatAlignment(id="B", hard=False, tolerance=5, min_fraction=0.5)
        assert verify(tl, tracks=tracks, ledger=[rule]).components.beats == 1.0

    def test_a_single_shot_has_no_cuts_to_misalign(self):
        assert verify(seq(("x", 60))).components.beats == 1.0


def test_verify_is_repeatable_on_one_verifier():
    task = make_task(POOL, brief=BRIEF, ledger=[MET_HARD, UNMET_HARD])
    verifier = Verifier(task)
    a = verifier.verify(seq(("x", 60), ("y", 60)))
    verifier.verify(seq(("z", 60)))
    b = verifier.verify(seq(("x", 60), ("y", 60)))
    assert (a.ves, a.components, a.constraints) == (b.ves, b.components, b.constraints)
