"""Executability: every error code, each at the boundary where it starts to apply."""

from __future__ import annotations

import pytest

from services.verifier.executability import check
from services.verifier.score import Verifier
from services.verifier.timeline import MusicPlacement

from .factories import clip, make_task, shot, timeline, track, transition

# a: 100 frames, b: 100 frames, m1: 300 frames
TASK = make_task([clip("a", 100 / 30), clip("b", 100 / 30)], tracks=[track("m1", 10)])


def codes(tl, task=TASK) -> list[tuple[str, int | None]]:
    return [(e.code, e.shot) for e in check(task, tl)]


def assert_verdict(tl, expected: list[tuple[str, int | None]], task=TASK) -> None:
    """``check`` lists exactly these errors, and the verifier's E agrees."""
    assert codes(tl, task) == expected
    report = Verifier(task).verify(tl)
    assert report.executable is (not expected)
    assert [(e.code, e.shot) for e in report.errors] == expected


def test_a_plain_timeline_is_executable():
    assert_verdict(timeline(shot("a", 0, 100), shot("b", 0, 100)), [])


def test_empty_timeline():
    assert_verdict(timeline(), [("empty_timeline", None)])
    assert "insert" in check(TASK, timeline())[0].message


def test_fps_mismatch():
    assert_verdict(timeline(shot("a", 0, 50), fps=25), [("fps_mismatch", None)])


def test_unknown_clip():
    assert_verdict(timeline(shot("a", 0, 50), shot("zz", 0, 50)), [("unknown_clip", 1)])


@pytest.mark.parametrize(
    ("start", "end", "ok"), [(0, 100, True), (99, 100, True), (0, 101, False), (-1, 50, False)]
)
def test_range_outside_clip(start, end, ok):
    expected = [] if ok else [("range_outside_clip", 0)]
    assert_verdict(timeline(shot("a", start, end)), expected)


def test_range_outside_clip_message_gives_both_ranges():
    (error,) = check(TASK, timeline(shot("a", 10, 130)))
    assert "runs 0–3.333 s" in error.message and "0.333–4.333 s" in error.message


def test_empty_shot():
    assert ("empty_shot", 0) in codes(timeline(shot("a", 40, 40)))
    assert ("empty_shot", 1) in codes(timeline(shot("a", 0, 10), shot("b", 50, 20)))


class TestHandles:
    """A transition of d frames into shot i reads d//2 frames of i before its in point and
    d - d//2 frames of i-1 after its out point."""

    @pytest.mark.parametrize(("d", "min_in"), [(10, 5), (11, 5), (1, 0), (2, 1)])
    def test_incoming_side(self, d, min_in):
        def tl(in_point):
            return timeline(
                shot("a", 0, 50), shot("b", in_point, in_point + 40, transition("dissolve", d))
            )

        assert_verdict(tl(min_in), [])
        if min_in > 0:
            assert_verdict(tl(min_in - 1), [("missing_handles", 1)])

    @pytest.mark.parametrize(("d", "max_out"), [(10, 95), (11, 94), (1, 99), (2, 99)])
    def test_outgoing_side(self, d, max_out):
        def tl(out_point):
            return timeline(
                shot("a", out_point - 40, out_point), shot("b", 20, 60, transition("wipe", d))
            )

        assert_verdict(tl(max_out), [])
        assert_verdict(tl(max_out + 1), [("missing_handles", 1)])

    def test_both_sides_missing_are_two_errors_on_the_incoming_shot(self):
        tl = timeline(shot("a", 60, 100), shot("b", 0, 40, transition("dissolve", 10)))
        assert_verdict(tl, [("missing_handles", 1), ("missing_handles", 1)])

    def test_messages_name_the_clip_and_the_amount(self):
        tl = timeline(shot("a", 60, 100), shot("b", 0, 40, transition("dissolve", 15)))
        before, after = (e.message for e in check(TASK, tl))
        assert before == "dissolve needs 0.233 s of b before 0.0 s"
        assert after == "dissolve needs 0.267 s of a after 3.333 s"

    def test_fade_black_between_shots_needs_handles_too(self):
        tl = timeline(shot("a", 0, 100), shot("b", 20, 60, transition("fade_black", 10)))
        assert_verdict(tl, [("missing_handles", 1)])

    def test_the_first_shot_may_fade_from_black_without_handles(self):
        assert_verdict(timeline(shot("a", 0, 50, transition("fade_black", 20))), [])

    @pytest.mark.parametrize("kind", ["dissolve", "wipe"])
    def test_no_outgoing_shot(self, kind):
        tl = timeline(shot("a", 20, 50, transition(kind, 10)), shot("b", 0, 40))
        assert_verdict(tl, [("no_outgoing_shot", 0)])
        assert "use cut or fade_black" in check(TASK, tl)[0].message


class TestTransitionTooLong:
    def test_incoming_and_outgoing_halves_may_exactly_fill_a_shot(self):
        # shot 1 is 10 frames: incoming d=11 covers 6 after its cut, outgoing d=9 covers 4
        tl = timeline(
            shot("a", 0, 50),
            shot("b", 30, 40, transition("dissolve", 11)),
            shot("a", 60, 90, transition("dissolve", 9)),
        )
        assert_verdict(tl, [])

    def test_one_frame_more_is_too_long(self):
        tl = timeline(
            shot("a", 0, 50),
            shot("b", 30, 40, transition("dissolve", 11)),
            shot("a", 60, 90, transition("dissolve", 10)),
        )
        assert_verdict(tl, [("transition_too_long", 1)])
        assert "shorten them" in check(TASK, tl)[0].message

    def test_a_fade_in_longer_than_the_first_shot(self):
        assert_verdict(
            timeline(shot("a", 0, 10, transition("fade_black", 11))), [("transition_too_long", 0)]
        )
        assert_verdict(timeline(shot("a", 0, 10, transition("fade_black", 10))), [])


class TestMusic:
    def test_track_fits_exactly(self):
        tl = timeline(shot("a", 0, 100), shot("b", 0, 100), music=MusicPlacement("m1", 100))
        assert_verdict(tl, [])

    def test_unknown_track(self):
        tl = timeline(shot("a", 0, 100), music=MusicPlacement("m9"))
        assert_verdict(tl, [("unknown_track", None)])

    @pytest.mark.parametrize("offset", [101, -1])
    def test_music_outside_track(self, offset):
        tl = timeline(shot("a", 0, 100), shot("b", 0, 100), music=MusicPlacement("m1", offset))
        assert_verdict(tl, [("music_outside_track", None)])

    def test_fade_too_long(self):
        assert_verdict(timeline(shot("a", 0, 100), music=MusicPlacement("m1", 0, 100)), [])
        assert_verdict(
            timeline(shot("a", 0, 100), music=MusicPlacement("m1", 0, 101)),
            [("fade_too_long", None)],
        )


def test_independent_errors_are_all_reported_in_shot_order():
    tl = timeline(
        shot("zz", 0, 10),
        shot("a", 0, 200),
        shot("b", 0, 50, transition("wipe", 4)),
        music=MusicPlacement("m1", 250),
        fps=30,
    )
    assert codes(tl) == [
        ("unknown_clip", 0),
        ("range_outside_clip", 1),
        ("missing_handles", 2),
        ("missing_handles", 2),
        ("music_outside_track", None),
    ]
