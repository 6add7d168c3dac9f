"""Every ledger kind: met, unmet with its score / violation, and a message saying what to change."""

from __future__ import annotations

import pytest

from services.verifier import ledger as L
from services.verifier.pool import Orientation, Selector
from services.verifier.timeline import MusicPlacement, TransitionType

from .factories import FPS, clip, evaluate, make_task, seq, shot, timeline, track, transition

MET = (True, 1.0, 0.0, None)


def tags(*names: str) -> Selector:
    return Selector(tags=frozenset(names))


def ids(*names: str) -> Selector:
    return Selector(clip_ids=frozenset(names))


def assert_unmet(outcome, *, score: float, violation: float, says: tuple[str, ...]):
    assert outcome.satisfied is False
    assert outcome.score == pytest.approx(score)
    assert outcome.violation == pytest.approx(violation)
    assert outcome.message is not None
    for fragment in says:
        assert fragment in outcome.message, outcome.message


POOL = [
    clip("a", 20, tags=["surf", "ocean"], caption="surfer rides a wave"),
    clip("b", 20, tags=["surf"], caption="board on the beach"),
    clip("c", 20, tags=["sunset"], caption="sun goes down over the sea"),
    clip("d", 20, tags=["city"], caption="traffic downtown"),
    clip("p", 20, tags=["surf"], orientation=Orientation.PORTRAIT),
    clip("q", 20, orientation=Orientation.PORTRAIT),
]
TASK = make_task(
    POOL, tracks=[track("m1", 60, beats=range(0, 1800, 15), downbeats=range(0, 1800, 60))]
)


def check(constraint, tl, task=TASK):
    return evaluate(constraint, task, tl)


class TestDuration:
    rule = L.Duration(id="L1", min=28 * FPS, max=32 * FPS)

    def test_met_inside_the_range_bounds_included(self):
        assert tuple(check(self.rule, seq(("a", 300), ("b", 300), ("c", 300)))) == MET
        assert check(self.rule, seq(("a", 540), ("b", 300))).satisfied  # exactly 28 s
        assert check(self.rule, seq(("a", 600), ("b", 360))).satisfied  # exactly 32 s

    def test_too_short_asks_to_add_the_gap(self):
        outcome = check(self.rule, seq(("a", 510), ("b", 300)))  # 27 s
        assert_unmet(
            outcome,
            score=0.5 * (1 - 30 / 960),
            violation=1.0,
            says=("27.0 s", "28.0–32.0 s", "add ≥ 1.0 s"),
        )

    def test_too_long_asks_to_remove_the_gap(self):
        outcome = check(self.rule, seq(("a", 600), ("b", 600)))  # 40 s
        assert_unmet(
            outcome, score=0.5 * (1 - 240 / 960), violation=8.0, says=("40.0 s", "remove ≥ 8.0 s")
        )

    def test_unmet_score_never_exceeds_half_and_bottoms_at_zero(self):
        far = check(L.Duration(id="L1", min=10, max=20), seq(("a", 600)))
        assert far.score == 0.0
        assert far.violation == pytest.approx(580 / FPS)

    def test_target_gives_credit_by_closeness_inside_the_range(self):
        rule = L.Duration(id="L1", min=840, max=960, target=900)
        assert check(rule, seq(("a", 600), ("b", 300))).score == 1.0
        at_edge = check(rule, seq(("a", 540), ("b", 300)))
        assert at_edge.satisfied and at_edge.score == pytest.approx(0.5)
        assert check(rule, seq(("a", 570), ("b", 300))).score == pytest.approx(0.75)

    def test_empty_timeline_is_all_gap(self):
        assert_unmet(
            check(self.rule, timeline()),
            score=0.5 * (1 - 840 / 960),
            violation=28.0,
            says=("add ≥ 28.0 s",),
        )


class TestShotLength:
    rule = L.ShotLength(id="L", min=30, max=90)

    def test_met_with_bounds_inclusive_and_on_an_empty_timeline(self):
        assert tuple(check(self.rule, seq(("a", 30), ("b", 90)))) == MET
        assert tuple(check(self.rule, timeline())) == MET

    def test_counts_the_shots_out_of_range_and_sums_the_excess(self):
        outcome = check(self.rule, seq(("a", 60), ("b", 20), ("c", 100)))
        assert_unmet(
            outcome,
            score=1 - 2 / 3,
            violation=20 / FPS,
            says=("shots 1, 2", "1.0–3.0 s", "shot 1 is 0.667 s", "trim or extend"),
        )

    def test_long_lists_are_abbreviated(self):
        outcome = check(self.rule, seq(*[("a", 10)] * 7))
        assert "(+2 more)" in outcome.message
        assert outcome.score == 0.0


class TestMustInclude:
    def test_met_when_enough_shots_match_tags_or_ids(self):
        assert tuple(check(L.MustInclude(id="L", selector=tags("sunset")), seq(("c", 30)))) == MET
        rule = L.MustInclude(id="L", selector=ids("a", "b"), min_count=2)
        assert check(rule, seq(("a", 30), ("d", 30), ("b", 30))).satisfied

    def test_counts_shots_not_distinct_clips(self):
        rule = L.MustInclude(id="L", selector=tags("sunset"), min_count=2)
        assert check(rule, seq(("c", 30), ("c", 30))).satisfied

    def test_unmet_names_how_many_to_insert_and_which_clips_would_do(self):
        rule = L.MustInclude(id="L", selector=tags("surf"), min_count=4)
        outcome = check(rule, seq(("a", 30), ("d", 30)))
        assert_unmet(
            outcome,
            score=0.25,
            violation=3.0,
            says=("1 of 4", "tags surf", "insert 3 more", "e.g. a, b, p"),
        )

    def test_says_when_no_clip_in_the_pool_can_satisfy_it(self):
        outcome = check(L.MustInclude(id="L", selector=tags("volcano")), seq(("a", 30)))
        assert_unmet(outcome, score=0.0, violation=1.0, says=("no clip in the pool matches",))


class TestMustExclude:
    rule = L.MustExclude(id="L", selector=tags("city"))

    def test_met_when_no_shot_matches(self):
        assert tuple(check(self.rule, seq(("a", 30), ("c", 30)))) == MET
        assert tuple(check(self.rule, timeline())) == MET

    def test_lists_the_offending_shots(self):
        outcome = check(self.rule, seq(("a", 30), ("d", 30), ("b", 30), ("d", 30)))
        assert_unmet(
            outcome, score=0.5, violation=2.0, says=("shots 1, 3", "tags city", "remove or replace")
        )

    def test_selector_by_clip_id(self):
        outcome = check(L.MustExclude(id="L", selector=ids("a")), seq(("a", 30)))
        assert_unmet(outcome, score=0.0, violation=1.0, says=("clips a",))


class TestNoReuse:
    def test_met_when_every_clip_is_used_once(self):
        assert tuple(check(L.NoReuse(id="L"), seq(("a", 30), ("b", 30)))) == MET

    def test_repeats_over_max_uses_are_counted(self):
        tl = timeline(shot("a", 0, 30), shot("b", 0, 30), shot("a", 60, 90))
        assert_unmet(
            check(L.NoReuse(id="L"), tl),
            score=1 - 1 / 3,
            violation=1.0,
            says=("clip a is used 2 times (max 1)", "replace the repeats"),
        )

    def test_max_uses_allows_disjoint_reuse_even_when_ranges_meet(self):
        tl = timeline(shot("a", 0, 30), shot("a", 30, 60))
        assert tuple(check(L.NoReuse(id="L", max_uses=2), tl)) == MET

    def test_overlapping_source_ranges_break_it_even_within_max_uses(self):
        tl = timeline(shot("a", 0, 40), shot("b", 0, 30), shot("a", 39, 60))
        assert_unmet(
            check(L.NoReuse(id="L", max_uses=2), tl),
            score=1 - 1 / 3,
            violation=1.0,
            says=("shots 0 and 2 overlap in a's source",),
        )

    def test_excess_and_overlaps_add_up(self):
        tl = timeline(shot("a", 0, 40), shot("a", 20, 60), shot("a", 100, 130))
        # used 3 times (excess 2 over max 1) and shots 0/1 overlap
        assert_unmet(
            check(L.NoReuse(id="L"), tl),
            score=0.0,
            violation=3.0,
            says=("used 3 times", "shots 0 and 1 overlap"),
        )


class TestOrder:
    def test_first_and_last(self):
        rule = L.Order(id="L", first=tags("ocean"), last=tags("sunset"))
        assert tuple(check(rule, seq(("a", 30), ("d", 30), ("c", 30)))) == MET
        outcome = check(rule, seq(("d", 30), ("a", 30), ("c", 30)))
        assert_unmet(
            outcome, score=0.5, violation=1.0, says=("the opening shot must match tags ocean",)
        )
        both = check(rule, seq(("c", 30), ("a", 30)))
        assert_unmet(
            both,
            score=0.0,
            violation=2.0,
            says=("opening shot", "the closing shot must match tags sunset"),
        )

    def test_first_on_an_empty_timeline_fails(self):
        outcome = check(L.Order(id="L", first=tags("ocean")), timeline())
        assert_unmet(outcome, score=0.0, violation=1.0, says=("opening shot",))

    def test_before_after_met_when_every_before_precedes_every_after(self):
        rule = L.Order(id="L", before=tags("ocean"), after=tags("sunset"))
        assert tuple(check(rule, seq(("a", 30), ("d", 30), ("c", 30), ("c", 30)))) == MET
        # nothing on one side: nothing to order
        assert tuple(check(rule, seq(("c", 30), ("d", 30)))) == MET

    def test_before_after_scores_the_fraction_of_inverted_pairs(self):
        rule = L.Order(id="L", before=tags("ocean"), after=tags("sunset"))
        half = check(rule, seq(("a", 30), ("c", 30), ("a", 30)))  # 1 of 2 pairs inverted
        assert_unmet(
            half,
            score=0.5,
            violation=1.0,
            says=("1 shot pairs put tags sunset before tags ocean", "move them"),
        )
        full = check(rule, seq(("c", 30), ("a", 30), ("a", 30)))  # 2 of 2 inverted
        assert_unmet(full, score=0.0, violation=2.0, says=("2 shot pairs",))

    def test_first_and_before_after_share_the_score(self):
        rule = L.Order(id="L", first=tags("city"), before=tags("ocean"), after=tags("sunset"))
        outcome = check(rule, seq(("d", 30), ("c", 30), ("a", 30), ("a", 30)))
        # first holds; 2 of 2 pairs inverted: 1 - (0 + 1) / 2
        assert_unmet(outcome, score=0.5, violation=2.0, says=("2 shot pairs",))


class TestTransitions:
    rule = L.Transitions(
        id="L",
        allowed=frozenset({TransitionType.CUT, TransitionType.DISSOLVE}),
        max_count=1,
        min_duration=6,
        max_duration=15,
    )

    def test_met(self):
        tl = timeline(shot("a", 0, 60), shot("b", 30, 60, transition("dissolve", 10)))
        assert tuple(check(self.rule, tl)) == MET

    def test_disallowed_type(self):
        tl = timeline(shot("a", 0, 60), shot("b", 30, 60, transition("wipe", 10)))
        assert_unmet(
            check(self.rule, tl),
            score=0.5,
            violation=1.0,
            says=("transitions into shots 1 break the rules", "types cut, dissolve"),
        )

    def test_duration_bounds(self):
        too_long = timeline(shot("a", 0, 60), shot("b", 30, 60, transition("dissolve", 16)))
        assert_unmet(
            check(self.rule, too_long), score=0.5, violation=1.0, says=("durations 0.2–0.5 s",)
        )
        too_short = timeline(shot("a", 0, 60), shot("b", 30, 60, transition("dissolve", 5)))
        assert not check(self.rule, too_short).satisfied
        assert check(
            self.rule, timeline(shot("a", 0, 60), shot("b", 30, 60, transition("dissolve", 6)))
        ).satisfied

    def test_max_count_asks_to_set_the_extra_ones_to_cut(self):
        tl = timeline(
            shot("a", 0, 60),
            shot("b", 30, 60, transition("dissolve", 10)),
            shot("c", 30, 60, transition("dissolve", 10)),
        )
        assert_unmet(
            check(self.rule, tl),
            score=1 - 1 / 3,
            violation=1.0,
            says=("2 transitions; at most 1: set 1 to cut",),
        )

    def test_cuts_break_a_rule_that_does_not_allow_them(self):
        rule = L.Transitions(id="L", allowed=frozenset({TransitionType.DISSOLVE}))
        tl = timeline(
            shot("a", 0, 60), shot("b", 30, 60, transition("dissolve", 10)), shot("c", 0, 60)
        )
        outcome = check(rule, tl)
        assert not outcome.satisfied
        assert "shots 2" in outcome.message

    def test_the_opening_shot_has_no_transition_to_judge(self):
        # Only cuts between shots are transitions; the first shot's "cut in" is none, so a
        # dissolve-only rule is met by a timeline whose every join is a dissolve.
        rule = L.Transitions(id="L", allowed=frozenset({TransitionType.DISSOLVE}))
        tl = timeline(shot("a", 0, 60), shot("b", 30, 60, transition("dissolve", 10)))
        assert tuple(check(rule, tl)) == MET


class TestMusic:
    rule = L.Music(id="L", track_id="m1")

    def test_met_when_the_track_covers_the_timeline(self):
        tl = timeline(shot("a", 0, 300), music=MusicPlacement("m1", 1500))
        assert tuple(check(self.rule, tl)) == MET

    def test_no_music(self):
        assert_unmet(
            check(self.rule, seq(("a", 30))),
            score=0.0,
            violation=1.0,
            says=("no music placed", "set_music m1"),
        )

    def test_other_track(self):
        task = make_task(POOL, tracks=[track("m1"), track("m2")])
        tl = timeline(shot("a", 0, 30), music=MusicPlacement("m2"))
        assert_unmet(
            check(self.rule, tl, task),
            score=0.0,
            violation=1.0,
            says=("music m2 is placed; needs m1",),
        )

    def test_partial_cover_asks_to_lower_the_offset(self):
        tl = timeline(shot("a", 0, 300), music=MusicPlacement("m1", 1700))  # 100 of 300 frames
        assert_unmet(
            check(self.rule, tl),
            score=1 / 3,
            violation=200 / FPS,
            says=("covers 3.333 of 10.0 s", "lower its offset by ≥ 6.667 s"),
        )


class TestBeatAlignment:
    rule = L.BeatAlignment(id="L", tolerance=3, min_fraction=0.8)  # beats every 15 frames

    def test_met_within_tolerance_both_sides(self):
        tl = timeline(
            shot("a", 0, 63), shot("b", 0, 54), shot("c", 0, 30), music=MusicPlacement("m1")
        )  # cuts at 63 (60+3) and 117 (120-3)
        assert tuple(check(self.rule, tl)) == MET

    def test_no_cuts_is_met(self):
        assert tuple(check(self.rule, seq(("a", 40)))) == MET

    def test_fraction_below_minimum(self):
        tl = timeline(
            shot("a", 0, 60), shot("b", 0, 67), shot("c", 0, 30), music=MusicPlacement("m1")
        )  # cuts at 60 (on) and 127 (7 off)
        assert_unmet(
            check(self.rule, tl),
            score=0.5 / 0.8,
            violation=0.3,
            says=("1 of 2 cuts (50%)", "0.1 s", "needs 80%", "snap_to_beats"),
        )

    def test_offset_shifts_the_cuts_onto_the_track(self):
        tl = timeline(shot("a", 0, 67), shot("b", 0, 30), music=MusicPlacement("m1", 8))
        assert check(self.rule, tl).satisfied  # 67 + 8 = 75 is a beat
        tl = timeline(shot("a", 0, 67), shot("b", 0, 30), music=MusicPlacement("m1", 0))
        assert not check(self.rule, tl).satisfied

    def test_without_music_asks_to_place_it(self):
        assert_unmet(
            check(self.rule, seq(("a", 60), ("b", 60))),
            score=0.0,
            violation=0.8,
            says=("place music first",),
        )


class TestEndOnDownbeat:
    rule = L.EndOnDownbeat(id="L", tolerance=3)  # downbeats every 60 frames

    def test_met(self):
        assert (
            tuple(check(self.rule, timeline(shot("a", 0, 122), music=MusicPlacement("m1")))) == MET
        )
        assert check(self.rule, timeline(shot("a", 0, 100), music=MusicPlacement("m1", 20)))[0]

    def test_gap_beyond_tolerance(self):
        outcome = check(self.rule, timeline(shot("a", 0, 130), music=MusicPlacement("m1")))
        assert_unmet(
            outcome,
            score=1 - 7 / 30,
            violation=7 / 30,
            says=("0.333 s from the nearest downbeat", "change the length by ≥ 0.233 s"),
        )

    def test_no_music(self):
        assert_unmet(
            check(self.rule, seq(("a", 120))), score=0.0, violation=1.0, says=("set_music",)
        )


class TestOrientation:
    rule = L.OrientationRule(id="L", value=Orientation.PORTRAIT)

    def test_met(self):
        assert tuple(check(self.rule, seq(("p", 30), ("q", 30)))) == MET

    def test_lists_shots_of_the_wrong_orientation(self):
        assert_unmet(
            check(self.rule, seq(("p", 30), ("a", 30))),
            score=0.5,
            violation=1.0,
            says=("shots 1 are not portrait", "replace them with portrait clips"),
        )

    def test_a_clip_missing_from_the_pool_counts_as_the_wrong_orientation(self):
        rule = L.OrientationRule(id="L", value=Orientation.LANDSCAPE)
        assert_unmet(
            check(rule, seq(("a", 30), ("ghost", 30))),
            score=0.5,
            violation=1.0,
            says=("shots 1 are not landscape",),
        )


class TestMaxConsecutiveTag:
    rule = L.MaxConsecutiveTag(id="L", tag="surf", max_run=2)

    def test_runs_no_longer_than_max_are_met_however_many_in_total(self):
        tl = seq(("a", 30), ("b", 30), ("c", 30), ("p", 30), ("a", 30))
        assert tuple(check(self.rule, tl)) == MET

    def test_longest_run_over_max(self):
        tl = seq(("c", 30), ("a", 30), ("b", 30), ("p", 30), ("d", 30))
        assert_unmet(
            check(self.rule, tl),
            score=1 - 1 / 5,
            violation=1.0,
            says=("3 adjacent shots tagged 'surf' (shots 1–3)", "break the run"),
        )


class TestCoverage:
    rule = L.Coverage(id="L", topics=("surfer wave", "sunset"), min_fraction=1.0)

    def test_met_by_captions_and_tags_with_plurals_normalised(self):
        assert tuple(check(self.rule, seq(("a", 30), ("c", 30)))) == MET
        plural = L.Coverage(id="L", topics=("surfers riding waves",), min_fraction=1.0)
        task = make_task([clip("x", caption="a surfer riding big waves")])
        assert tuple(check(plural, seq(("x", 30)), task)) == MET

    def test_a_tag_covers_its_topic_in_singular_or_plural(self):
        task = make_task([clip("x", tags=["sunsets"]), clip("y", tags=["Wave"])])
        rule = L.Coverage(id="L", topics=("sunset", "waves"), min_fraction=1.0)
        assert tuple(check(rule, seq(("x", 30), ("y", 30)), task)) == MET

    def test_missing_topics_are_named(self):
        assert_unmet(
            check(self.rule, seq(("a", 30), ("d", 30))),
            score=0.5,
            violation=0.5,
            says=("covers 1 of 2 topics (50%)", "needs 100%", "add shots about sunset"),
        )

    def test_min_fraction_allows_gaps(self):
        rule = L.Coverage(id="L", topics=("surfer wave", "sunset"), min_fraction=0.5)
        assert check(rule, seq(("a", 30))).satisfied


HARD_AND_SOFT = [
    (L.Duration, {"min": 840, "max": 960}),
    (L.MustInclude, {"selector": Selector(tags=frozenset({"sunset"}))}),
    (L.NoReuse, {}),
]


@pytest.mark.parametrize(("cls", "params"), HARD_AND_SOFT)
def test_hardness_does_not_change_the_verdict(cls, params):
    tl = timeline(shot("a", 0, 30), shot("a", 10, 40))
    hard = check(cls(id="L", hard=True, **params), tl)
    soft = check(cls(id="L", hard=False, weight=3.0, **params), tl)
    assert hard == soft
    assert hard.satisfied is False


def test_every_kind_is_registered_under_its_wire_name():
    assert set(L.KINDS) == {
        "duration",
        "shot_length",
        "must_include",
        "must_exclude",
        "no_reuse",
        "order",
        "transitions",
        "music",
        "beat_alignment",
        "end_on_downbeat",
        "orientation",
        "max_consecutive_tag",
        "coverage",
    }
    assert all(cls.kind == kind for kind, cls in L.KINDS.items())
