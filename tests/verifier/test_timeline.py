"""Time as values: half-open frame ranges, centred transitions, lengths and conversions."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.verifier.timeline import (
    CUT,
    FrameRange,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
    to_frames,
    to_seconds,
)

ranges = st.tuples(st.integers(-50, 50), st.integers(0, 30)).map(
    lambda t: FrameRange(t[0], t[0] + t[1])
)


class TestFrameRange:
    def test_duration_is_end_minus_start(self):
        assert FrameRange(10, 25).duration == 15

    def test_contains_is_inclusive_of_equal_bounds(self):
        outer = FrameRange(0, 10)
        assert outer.contains(FrameRange(0, 10))
        assert outer.contains(FrameRange(3, 7))
        assert not outer.contains(FrameRange(5, 11))
        assert not outer.contains(FrameRange(-1, 4))

    def test_half_open_ranges_that_touch_do_not_overlap_but_meet(self):
        a, b = FrameRange(0, 5), FrameRange(5, 9)
        assert not a.overlaps(b)
        assert not b.overlaps(a)
        assert a.meets(b)
        assert not b.meets(a)

    def test_one_shared_frame_overlaps(self):
        assert FrameRange(0, 6).overlaps(FrameRange(5, 9))
        assert not FrameRange(0, 6).meets(FrameRange(5, 9))

    @given(ranges.filter(lambda r: r.duration > 0), ranges.filter(lambda r: r.duration > 0))
    def test_overlaps_agrees_with_shared_frames(self, a, b):
        shared = set(range(a.start, a.end)) & set(range(b.start, b.end))
        assert a.overlaps(b) is bool(shared)
        assert b.overlaps(a) is bool(shared)

    @given(ranges, ranges)
    def test_contains_agrees_with_frame_sets_for_non_empty_ranges(self, a, b):
        if b.duration > 0:
            inner = set(range(b.start, b.end))
            assert a.contains(b) is (inner <= set(range(a.start, a.end)))

    def test_is_immutable(self):
        with pytest.raises(AttributeError):  # FrozenInstanceError or slots
            FrameRange(0, 1).start = 3  # type: ignore[misc]


class TestTransition:
    @pytest.mark.parametrize(
        ("duration", "before", "after"),
        [(0, 0, 0), (1, 0, 1), (2, 1, 1), (5, 2, 3), (15, 7, 8), (16, 8, 8)],
    )
    def test_centred_split_gives_the_odd_frame_after_the_cut(self, duration, before, after):
        t = Transition(TransitionType.DISSOLVE, duration)
        assert (t.before_cut, t.after_cut) == (before, after)

    @given(st.integers(0, 10_000))
    def test_halves_sum_to_the_duration(self, d):
        t = Transition(TransitionType.WIPE, d)
        assert t.before_cut + t.after_cut == d
        assert 0 <= t.after_cut - t.before_cut <= 1

    def test_default_is_a_zero_length_cut(self):
        assert Transition() == CUT
        assert (CUT.type, CUT.duration) == (TransitionType.CUT, 0)


class TestTimeline:
    def make(self) -> Timeline:
        return Timeline(
            fps=30,
            shots=(
                Shot("a", FrameRange(10, 40)),
                Shot("b", FrameRange(0, 45), Transition(TransitionType.DISSOLVE, 10)),
                Shot("c", FrameRange(100, 115)),
            ),
            music=MusicPlacement("m1", 12, 6),
        )

    def test_length_is_the_sum_of_the_shots_transitions_take_no_time(self):
        assert self.make().length == 30 + 45 + 15

    def test_cuts_are_the_boundaries_between_shots(self):
        assert self.make().cut_positions() == [30, 75]

    def test_empty_and_single_shot_timelines_have_no_cuts(self):
        assert Timeline(fps=30).cut_positions() == []
        assert Timeline(fps=30).length == 0
        assert Timeline(fps=30, shots=(Shot("a", FrameRange(0, 9)),)).cut_positions() == []

    def test_shot_length(self):
        assert Shot("a", FrameRange(7, 19)).length == 12

    def test_with_shots_keeps_fps_and_music_and_leaves_the_original(self):
        tl = self.make()
        new = tl.with_shots([tl.shots[2]])
        assert new.shots == (tl.shots[2],)
        assert (new.fps, new.music) == (tl.fps, tl.music)
        assert len(tl.shots) == 3


class TestConversions:
    @pytest.mark.parametrize(
        ("seconds", "fps", "frames"),
        [
            (0.05, 30, 2),  # 1.5 frames -> 2 (even)
            (0.15, 30, 4),  # 4.5 frames -> 4 (even)
            (0.25, 30, 8),  # 7.5 -> 8
            (1 / 12, 30, 2),  # 2.5 frames -> 2
            (0.0833, 30, 2),  # 2.499 -> 2
            (0.08334, 30, 3),  # 2.5002 -> 3
            (0.02, 25, 0),  # 0.5 -> 0
            (0.06, 25, 2),  # 1.5 -> 2
            (2.18, 25, 54),  # 54.5 -> 54, though 2.18 * 25 == 54.50000000000001 in floats
            (2.3, 25, 58),  # 57.5 -> 58, though 2.3 * 25 == 57.49999999999999 in floats
            (1.0, 30, 30),
            (0, 24, 0),
        ],
    )
    def test_to_frames_rounds_half_to_even(self, seconds, fps, frames):
        assert to_frames(seconds, fps) == frames

    @settings(max_examples=300, deadline=None)
    @given(st.integers(0, 100_000), st.sampled_from([20, 24, 25, 30, 40, 48, 50, 60, 100, 120]))
    def test_exact_half_frames_written_as_decimals_round_to_even(self, k, fps):
        # (k + 0.5) frames is (2k + 1) / (2 fps) seconds; keep it when that is a finite decimal,
        # which is what a JSON number on the wire can say exactly.
        exact = Fraction(2 * k + 1, 2 * fps)
        rest = exact.denominator
        for p in (2, 5):
            while rest % p == 0:
                rest //= p
        if rest != 1:
            return
        seconds = Decimal(exact.numerator) / Decimal(exact.denominator)  # terminates: exact
        assert to_frames(float(seconds), fps) == (k if k % 2 == 0 else k + 1)

    @given(st.integers(0, 10_000_000), st.integers(1, 240))
    def test_frames_survive_a_trip_through_wire_seconds(self, frames, fps):
        assert to_frames(to_seconds(frames, fps), fps) == frames

    def test_to_seconds_rounds_to_a_microsecond(self):
        assert to_seconds(1, 30) == 0.033333
        assert to_seconds(45, 30) == 1.5
