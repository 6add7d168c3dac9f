"""Patch.1 verbs: each op's before → after from its docstring, each rejection, atomicity."""

from __future__ import annotations

import copy

import pytest

from services.verifier import patches as P
from services.verifier.errors import PatchRejected
from services.verifier.timeline import CUT, FrameRange, MusicPlacement

from .factories import clip, make_task, shot, timeline, track, transition

# a, b, c: 10 s (300 frames); short: 2 s (60 frames); m1 has a beat every 15 frames (0.5 s)
TASK = make_task(
    [clip("a"), clip("b"), clip("c"), clip("short", 2)],
    tracks=[track("m1", 60, beats=range(0, 1800, 15)), track("quiet", 60)],
)
DISSOLVE = transition("dissolve", 10)


def abc():
    return timeline(shot("a", 0, 30), shot("b", 30, 60, DISSOLVE), shot("c", 60, 90))


def apply(tl, *ops, task=TASK):
    return P.apply_patch(task, tl, list(ops))


def rejected(tl, *ops, task=TASK) -> PatchRejected:
    before = copy.deepcopy(tl)
    with pytest.raises(PatchRejected) as info:
        apply(tl, *ops, task=task)
    assert tl == before
    return info.value


def ids(tl) -> list[str]:
    return [s.clip_id for s in tl.shots]


def r(start: int, end: int) -> FrameRange:
    return FrameRange(start, end)


class TestInsert:
    def test_inserts_before_the_index_on_a_cut(self):
        out = apply(timeline(shot("a", 0, 30), shot("b", 0, 30)), P.Insert(1, "c", r(10, 40)))
        assert ids(out) == ["a", "c", "b"]
        assert out.shots[1] == shot("c", 10, 40, CUT)

    def test_at_the_end_appends(self):
        assert ids(apply(abc(), P.Insert(3, "a", r(100, 130)))) == ["a", "b", "c", "a"]

    def test_into_an_empty_timeline(self):
        assert ids(apply(timeline(), P.Insert(0, "a", r(0, 30)))) == ["a"]

    @pytest.mark.parametrize(
        ("op", "reason", "param"),
        [
            (P.Insert(4, "a", r(0, 30)), "shot_out_of_range", "patch.ops[0].at"),
            (P.Insert(-1, "a", r(0, 30)), "shot_out_of_range", "patch.ops[0].at"),
            (P.Insert(0, "nope", r(0, 30)), "unknown_clip", "patch.ops[0].clip_id"),
            (P.Insert(0, "a", r(30, 30)), "empty_range", "patch.ops[0].out_s"),
            (P.Insert(0, "a", r(40, 30)), "empty_range", "patch.ops[0].out_s"),
            (P.Insert(0, "a", r(-5, 30)), "empty_range", "patch.ops[0].out_s"),
            (P.Insert(0, "short", r(0, 61)), "range_outside_clip", "patch.ops[0].out_s"),
        ],
    )
    def test_rejections(self, op, reason, param):
        error = rejected(abc(), op)
        assert (error.op_index, error.reason, error.param) == (0, reason, param)
        assert error.code == "patch_rejected"
        assert error.context == {"op_index": 0, "reason": reason}

    def test_range_outside_clip_says_where_the_clip_ends(self):
        error = rejected(abc(), P.Insert(0, "short", r(0, 61)))
        assert "past the end of short (2.000 s)" in error.message


class TestRemove:
    def test_removes_the_shot(self):
        assert ids(apply(abc(), P.Remove(1))) == ["a", "c"]

    def test_removing_the_last_shot_leaves_an_empty_timeline(self):
        assert apply(timeline(shot("a", 0, 30)), P.Remove(0)).shots == ()

    @pytest.mark.parametrize("index", [3, -1])
    def test_out_of_range(self, index):
        error = rejected(abc(), P.Remove(index))
        assert (error.reason, error.param) == ("shot_out_of_range", "patch.ops[0].shot")
        assert "0–2" in error.message


class TestReplace:
    def test_replaces_the_media_and_keeps_the_incoming_transition(self):
        out = apply(abc(), P.Replace(1, "a", r(100, 150)))
        assert out.shots[1] == shot("a", 100, 150, DISSOLVE)
        assert ids(out) == ["a", "a", "c"]

    def test_rejections(self):
        assert rejected(abc(), P.Replace(3, "a", r(0, 30))).reason == "shot_out_of_range"
        assert rejected(abc(), P.Replace(0, "zz", r(0, 30))).reason == "unknown_clip"
        assert rejected(abc(), P.Replace(0, "short", r(30, 90))).reason == "range_outside_clip"


class TestTrim:
    def test_new_in_and_out_points_on_the_same_clip(self):
        tl = timeline(shot("a", 0, 120, DISSOLVE))
        assert apply(tl, P.Trim(0, r(30, 90))).shots == (shot("a", 30, 90, DISSOLVE),)

    def test_rejections(self):
        assert rejected(abc(), P.Trim(5, r(0, 30))).reason == "shot_out_of_range"
        assert rejected(abc(), P.Trim(0, r(200, 301))).reason == "range_outside_clip"
        assert rejected(abc(), P.Trim(0, r(20, 20))).reason == "empty_range"


class TestMove:
    def test_to_indexes_the_resulting_track(self):
        assert ids(apply(abc(), P.Move(0, 2))) == ["b", "c", "a"]
        assert ids(apply(abc(), P.Move(2, 0))) == ["c", "a", "b"]
        assert ids(apply(abc(), P.Move(1, 1))) == ["a", "b", "c"]

    def test_the_shot_takes_its_incoming_transition_along(self):
        out = apply(abc(), P.Move(1, 2))
        assert out.shots[2] == shot("b", 30, 60, DISSOLVE)

    def test_rejections(self):
        error = rejected(abc(), P.Move(3, 0))
        assert (error.reason, error.param) == ("shot_out_of_range", "patch.ops[0].from")
        error = rejected(abc(), P.Move(0, 3))
        assert (error.reason, error.param) == ("shot_out_of_range", "patch.ops[0].to")


class TestSwap:
    def test_swaps_media_and_transitions_stay_with_positions(self):
        out = apply(abc(), P.Swap(0, 1))
        assert out.shots[0] == shot("b", 30, 60, CUT)
        assert out.shots[1] == shot("a", 0, 30, DISSOLVE)
        assert ids(apply(abc(), P.Swap(0, 2))) == ["c", "b", "a"]

    def test_swapping_a_shot_with_itself_changes_nothing(self):
        assert apply(abc(), P.Swap(1, 1)) == abc()

    def test_rejections(self):
        assert rejected(abc(), P.Swap(0, 3)).param == "patch.ops[0].b"
        assert rejected(abc(), P.Swap(-1, 0)).param == "patch.ops[0].a"


class TestSetTransition:
    def test_sets_the_incoming_transition(self):
        out = apply(abc(), P.SetTransition(2, transition("wipe", 8)))
        assert out.shots[2] == shot("c", 60, 90, transition("wipe", 8))
        assert apply(abc(), P.SetTransition(1, CUT)).shots[1] == shot("b", 30, 60, CUT)

    @pytest.mark.parametrize(
        "bad", [transition("cut", 4), transition("dissolve", 0), transition("wipe", -2)]
    )
    def test_bad_transition(self, bad):
        error = rejected(abc(), P.SetTransition(1, bad))
        assert (error.reason, error.param) == ("bad_transition", "patch.ops[0].duration_s")

    def test_out_of_range(self):
        assert rejected(abc(), P.SetTransition(3, DISSOLVE)).reason == "shot_out_of_range"


class TestSetMusic:
    def test_places_the_track(self):
        out = apply(abc(), P.SetMusic("m1", 60))
        assert out.music == MusicPlacement("m1", 60, 0)
        assert out.shots == abc().shots

    def test_keeps_the_fade_unless_given(self):
        tl = timeline(shot("a", 0, 30), music=MusicPlacement("m1", 0, 12))
        assert apply(tl, P.SetMusic("quiet", 5)).music == MusicPlacement("quiet", 5, 12)
        assert apply(tl, P.SetMusic("quiet", 5, 3)).music == MusicPlacement("quiet", 5, 3)

    def test_rejections(self):
        error = rejected(abc(), P.SetMusic("m9", 0))
        assert (error.reason, error.param) == ("unknown_track", "patch.ops[0].track_id")
        error = rejected(abc(), P.SetMusic("m1", -1))
        assert (error.reason, error.param) == ("negative_offset", "patch.ops[0].offset_s")


class TestSnapToBeats:
    def test_docstring_example(self):
        # cuts at 61 and 123 frames (2.03 s, 4.1 s); beats every 15 frames; tolerance 3
        tl = timeline(
            shot("a", 0, 61), shot("b", 0, 62), shot("c", 0, 30), music=MusicPlacement("m1")
        )
        out = apply(tl, P.SnapToBeats(3))
        assert out.cut_positions() == [60, 120]
        assert [s.source for s in out.shots] == [r(0, 60), r(0, 60), r(0, 30)]

    def test_cuts_beyond_tolerance_stay(self):
        tl = timeline(shot("a", 0, 66), shot("b", 0, 30), music=MusicPlacement("m1"))
        assert apply(tl, P.SnapToBeats(3)) == tl

    def test_music_offset_is_respected(self):
        tl = timeline(shot("a", 0, 58), shot("b", 0, 30), music=MusicPlacement("m1", 4))
        assert apply(tl, P.SnapToBeats(3)).cut_positions() == [56]  # 56 + 4 = 60

    def test_a_cut_that_would_run_past_the_media_stays(self):
        tl = timeline(shot("short", 0, 58), shot("b", 0, 30), music=MusicPlacement("m1"))
        assert apply(tl, P.SnapToBeats(3)).cut_positions() == [60]
        tl = timeline(shot("short", 2, 59), shot("b", 0, 30), music=MusicPlacement("m1"))
        assert apply(tl, P.SnapToBeats(3)) == tl  # 60 would need frame 61 of a 60-frame clip

    def test_the_outgoing_handle_of_the_next_transition_is_kept(self):
        tl = timeline(
            shot("short", 0, 58),
            shot("b", 20, 50, transition("dissolve", 4)),
            music=MusicPlacement("m1"),
        )
        assert apply(tl, P.SnapToBeats(3)) == tl  # 60 + 2 frames of handle > 60

    def test_a_cut_that_would_squeeze_a_transition_stays(self):
        # shot 0 is 62 frames; the wipe into shot 1 needs its last 30 (d // 2) before the cut,
        # so with the fade from black over its first 32 frames it cannot lose 2 to reach 60
        tl = timeline(
            shot("a", 0, 62, transition("fade_black", 32)),
            shot("b", 40, 70, transition("wipe", 60)),
            music=MusicPlacement("m1"),
        )
        assert apply(tl, P.SnapToBeats(3)) == tl

    @pytest.mark.parametrize("music", [None, MusicPlacement("quiet")])
    def test_needs_music_with_beats(self, music):
        error = rejected(
            timeline(shot("a", 0, 61), shot("b", 0, 30), music=music), P.SnapToBeats(3)
        )
        assert (error.reason, error.param) == ("no_music", "patch.ops[0].op")


class TestFitDuration:
    def test_docstring_example_stretches_proportionally(self):
        tl = timeline(shot("a", 0, 120), shot("b", 0, 60))
        out = apply(tl, P.FitDuration(270))
        assert [s.length for s in out.shots] == [180, 90]
        assert [s.source.start for s in out.shots] == [0, 0]

    def test_shrinks_proportionally(self):
        out = apply(timeline(shot("a", 0, 120), shot("b", 0, 60)), P.FitDuration(90))
        assert [s.length for s in out.shots] == [60, 30]

    def test_hits_the_target_exactly_when_shares_do_not_divide(self):
        out = apply(
            timeline(shot("a", 0, 100), shot("b", 0, 100), shot("c", 0, 100)), P.FitDuration(301)
        )
        assert out.length == 301

    def test_spills_into_shots_that_still_have_media(self):
        tl = timeline(shot("short", 0, 50), shot("b", 0, 50))
        out = apply(tl, P.FitDuration(200))
        assert [s.length for s in out.shots] == [60, 140]

    def test_keeps_the_handle_of_the_next_transition(self):
        tl = timeline(shot("short", 0, 50), shot("b", 20, 50, transition("dissolve", 6)))
        out = apply(tl, P.FitDuration(300))
        assert out.shots[0].source.end == 57  # 60 − 3 frames after the cut

    def test_shrinking_keeps_the_frames_transitions_play_over(self):
        # the dissolve plays over the last 5 frames of shot 0 and the first 5 of shot 1; the
        # wipe over the last 20 of shot 1 and the first 20 of shot 2
        tl = timeline(
            shot("a", 0, 60),
            shot("b", 100, 160, transition("dissolve", 10)),
            shot("c", 100, 160, transition("wipe", 40)),
        )
        out = apply(tl, P.FitDuration(5 + 25 + 20))
        assert [s.length for s in out.shots] == [5, 25, 20]
        assert rejected(tl, P.FitDuration(49)).reason == "cannot_fit"

    def test_cannot_stretch_past_the_media(self):
        error = rejected(timeline(shot("short", 0, 30)), P.FitDuration(61))
        assert (error.reason, error.param) == ("cannot_fit", "patch.ops[0].target_s")
        assert "0.033 s short" in error.message

    def test_cannot_shrink_below_a_frame_per_shot(self):
        cuts = timeline(shot("a", 0, 30), shot("b", 0, 30), shot("c", 0, 30))
        assert rejected(cuts, P.FitDuration(2)).reason == "cannot_fit"
        assert apply(cuts, P.FitDuration(3)).length == 3

    def test_bad_target_and_empty_timeline(self):
        assert rejected(abc(), P.FitDuration(0)).reason == "bad_target"
        assert rejected(timeline(), P.FitDuration(30)).reason == "empty_timeline"

    def test_already_at_target_changes_nothing(self):
        assert apply(abc(), P.FitDuration(90)) == abc()


class TestApplyPatch:
    def test_ops_apply_in_order(self):
        out = apply(abc(), P.Remove(0), P.Insert(0, "c", r(0, 30)), P.Swap(0, 2))
        assert ids(out) == ["c", "b", "c"]

    def test_third_op_failing_rejects_the_whole_patch_and_touches_nothing(self):
        tl = abc()
        snapshot = copy.deepcopy(tl)
        with pytest.raises(PatchRejected) as info:
            apply(tl, P.Remove(0), P.Insert(0, "c", r(0, 30)), P.Remove(7), P.Swap(0, 1))
        error = info.value
        assert (error.op_index, error.reason) == (2, "shot_out_of_range")
        assert error.param == "patch.ops[2].shot"
        assert error.message.startswith("op 2: ")
        assert error.envelope()["error"]["op_index"] == 2
        assert tl == snapshot

    def test_later_ops_see_earlier_ones(self):
        # index 3 exists only after the insert
        out = apply(abc(), P.Insert(3, "a", r(0, 30)), P.Remove(3))
        assert out == abc()

    def test_success_returns_a_new_timeline_and_leaves_the_input(self):
        tl = abc()
        snapshot = copy.deepcopy(tl)
        out = apply(tl, P.Trim(0, r(5, 25)), P.SetMusic("m1", 0))
        assert out != tl
        assert tl == snapshot

    def test_an_empty_patch_returns_the_timeline(self):
        assert apply(abc()) == abc()
