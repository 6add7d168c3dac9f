"""Wire models: Task.1 / Timeline.1 / Patch.1 / Report.1 parse strictly and convert to frames."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol.verifier import PatchIn, ReportOut, TaskIn, TimelineIn, TimelineOut
from services.verifier import ledger as L
from services.verifier import patches as P
from services.verifier.errors import PatchRejected, UnknownReference, VerifierError
from services.verifier.pool import Orientation, Selector
from services.verifier.score import Verifier
from services.verifier.timeline import (
    FrameRange,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
)

DESIGN_TASK = {
    "schema": "Task.1",
    "id": "t-001",
    "fps": 30,
    "brief": {
        "text": "30s upbeat reel of a surf trip, open on the ocean, end on the sunset",
        "aspect": "9:16",
        "style": "energetic",
    },
    "clips": [
        {
            "id": "c01",
            "uri": "media/c01.mp4",
            "duration_s": 8.4,
            "caption": "surfer rides a wave, wide shot",
            "tags": ["surf", "ocean", "wide"],
            "orientation": "portrait",
            "quality": 0.8,
        }
    ],
    "music": [
        {
            "id": "m01",
            "uri": "media/m01.wav",
            "duration_s": 95.0,
            "bpm": 120,
            "beats_s": [0.5, 1.0],
            "downbeats_s": [0.5, 2.5],
            "mood": "upbeat",
        }
    ],
    "ledger": [
        {"id": "L1", "kind": "duration", "hard": True, "min_s": 28, "max_s": 32},
        {"id": "L2", "kind": "must_include", "hard": True, "tags": ["sunset"], "min_count": 1},
        {
            "id": "L3",
            "kind": "beat_alignment",
            "hard": False,
            "tolerance_s": 0.1,
            "min_fraction": 0.8,
            "weight": 2,
        },
    ],
}

DESIGN_TIMELINE = {
    "schema": "Timeline.1",
    "fps": 30,
    "shots": [
        {"clip_id": "c01", "in_s": 1.0, "out_s": 3.5, "transition_in": {"type": "cut"}},
        {
            "clip_id": "c07",
            "in_s": 0.5,
            "out_s": 2.5,
            "transition_in": {"type": "dissolve", "duration_s": 0.5},
        },
    ],
    "music": {"track_id": "m01", "offset_s": 0.0, "fade_out_s": 0.5},
}


def task_json(**changes):
    data = copy.deepcopy(DESIGN_TASK)
    data["clips"].append({"id": "c07", "duration_s": 6.0, "tags": ["sunset"]})
    data.update(changes)
    return data


def parse_task(**changes):
    return TaskIn.model_validate(task_json(**changes)).to_task()


def timeline_json(*shots, **changes):
    data = {"schema": "Timeline.1", "fps": 30, "shots": list(shots)}
    data.update(changes)
    return data


def frames_of(*shots, task=None):
    task = task or parse_task()
    return TimelineIn.model_validate(timeline_json(*shots)).to_timeline(task)


class TestTaskIn:
    def test_the_design_example_parses_into_frames(self):
        task = TaskIn.model_validate(DESIGN_TASK).to_task()
        assert (task.id, task.fps) == ("t-001", 30)
        assert (task.brief.aspect, task.brief.style) == ("9:16", "energetic")
        c01 = task.clips["c01"]
        assert (c01.duration, c01.orientation, c01.quality) == (252, Orientation.PORTRAIT, 0.8)
        assert c01.tags == frozenset({"surf", "ocean", "wide"})
        m01 = task.tracks["m01"]
        assert (m01.duration, m01.beats, m01.downbeats) == (2850, (15, 30), (15, 75))
        duration, include, beats = task.ledger
        assert duration == L.Duration(id="L1", hard=True, min=840, max=960)
        assert include == L.MustInclude(id="L2", selector=Selector(tags=frozenset({"sunset"})))
        assert beats == L.BeatAlignment(
            id="L3", hard=False, weight=2.0, tolerance=3, min_fraction=0.8
        )

    def test_every_kind_parses(self):
        ledger = [
            {"id": "a", "kind": "duration", "min_s": 1, "max_s": 2, "target_s": 1.5},
            {"id": "b", "kind": "shot_length", "min_s": 0.5, "max_s": 3},
            {"id": "c", "kind": "must_include", "clip_ids": ["c01"], "min_count": 2},
            {"id": "d", "kind": "must_exclude", "tags": ["city"]},
            {"id": "e", "kind": "no_reuse", "max_uses": 2},
            {
                "id": "f",
                "kind": "order",
                "first": {"tags": ["ocean"]},
                "before": {"tags": ["surf"]},
                "after": {"clip_ids": ["c07"]},
            },
            {
                "id": "g",
                "kind": "transitions",
                "allowed": ["cut", "dissolve"],
                "max_count": 3,
                "min_duration_s": 0.2,
                "max_duration_s": 1.0,
            },
            {"id": "h", "kind": "music", "track_id": "m01"},
            {"id": "i", "kind": "beat_alignment", "tolerance_s": 0.05, "min_fraction": 0.5},
            {"id": "j", "kind": "end_on_downbeat", "tolerance_s": 0.2},
            {"id": "k", "kind": "orientation", "value": "square"},
            {"id": "l", "kind": "max_consecutive_tag", "tag": "surf", "max_run": 2},
            {"id": "m", "kind": "coverage", "topics": ["surf", "sunset"], "min_fraction": 0.5},
        ]
        task = parse_task(ledger=ledger)
        assert [c.kind for c in task.ledger] == [
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
        ]
        assert task.ledger[0] == L.Duration(id="a", min=30, max=60, target=45)
        assert task.ledger[6] == L.Transitions(
            id="g",
            allowed=frozenset({TransitionType.CUT, TransitionType.DISSOLVE}),
            max_count=3,
            min_duration=6,
            max_duration=30,
        )
        assert task.ledger[8].tolerance == 2  # 1.5 frames -> 2 (half to even)

    @pytest.mark.parametrize(
        "entry",
        [
            {"id": "x", "kind": "tempo", "bpm": 120},  # unknown kind
            {"id": "x", "kind": "duration", "min_s": 1, "max_s": 2, "min_seconds": 1},  # unknown
            {"id": "x", "kind": "no_reuse", "tags": ["a"]},  # a parameter of another kind
            {"id": "x", "kind": "duration", "min_s": 3, "max_s": 2},  # inverted
            {"id": "x", "kind": "duration", "min_s": 1, "max_s": 2, "target_s": 3},
            {"id": "x", "kind": "must_include"},  # empty selector
            {"id": "x", "kind": "order", "before": {"tags": ["a"]}},  # before without after
            {"id": "x", "kind": "music", "track_id": "m99"},  # unknown track
            {"id": "x", "kind": "duration", "min_s": 1, "max_s": 2, "weight": 0},
            {"id": "x", "kind": "coverage", "topics": []},
            {"id": "x", "kind": "beat_alignment", "min_fraction": 1.5},
        ],
    )
    def test_bad_ledger_entries_are_validation_errors(self, entry):
        with pytest.raises(ValidationError):
            TaskIn.model_validate(task_json(ledger=[entry]))

    @pytest.mark.parametrize(
        "change",
        [
            {"schema": "Task.2"},
            {"clips": []},
            {"fps": 0},
            {"colour": "red"},
            {"clips": [{"id": "a", "duration_s": 1}, {"id": "a", "duration_s": 2}]},
            {"clips": [{"id": "a", "duration_s": 0}]},
            {"clips": [{"id": "a", "duration_s": -1}]},
            {"clips": [{"id": "a", "duration_s": math.inf}]},
            {"clips": [{"id": "a", "duration_s": math.nan}]},
            {"music": [{"id": "m", "duration_s": 10, "beats_s": [1.0, -0.5]}]},
        ],
    )
    def test_bad_tasks_are_validation_errors(self, change):
        with pytest.raises(ValidationError):
            TaskIn.model_validate(task_json(**change))

    def test_beats_are_sorted_frames(self):
        task = parse_task(music=[{"id": "m", "duration_s": 10, "beats_s": [1.0, 0.5, 0.05]}])
        assert task.tracks["m"].beats == (2, 15, 30)


class TestTimelineIn:
    def test_the_design_example_converts_to_frames(self):
        tl = TimelineIn.model_validate(DESIGN_TIMELINE).to_timeline(parse_task())
        assert tl.fps == 30
        assert [(s.clip_id, s.source, s.transition_in) for s in tl.shots] == [
            ("c01", FrameRange(30, 105), Transition()),
            ("c07", FrameRange(15, 75), Transition(TransitionType.DISSOLVE, 15)),
        ]
        assert tl.music == MusicPlacement("m01", 0, 15)

    @pytest.mark.parametrize(
        ("in_s", "out_s", "frames"),
        [
            (0.05, 1.0, (2, 30)),  # 1.5 -> 2
            (0.15, 1.0, (4, 30)),  # 4.5 -> 4
            (1 / 12, 1.0, (2, 30)),  # 2.5 -> 2
            (0.0833333, 1.0, (2, 30)),  # 2.499999 -> 2
            (0.0833334, 1.0, (3, 30)),  # 2.500002 -> 3
            (0.0, 0.35, (0, 10)),  # 10.5 -> 10
            (0.0, 0.45, (0, 14)),  # 13.5 -> 14
        ],
    )
    def test_seconds_round_half_to_even_at_the_boundary(self, in_s, out_s, frames):
        (shot,) = frames_of({"clip_id": "c01", "in_s": in_s, "out_s": out_s}).shots
        assert (shot.source.start, shot.source.end) == frames

    def test_unknown_clip_names_the_field(self):
        with pytest.raises(UnknownReference) as info:
            frames_of(
                {"clip_id": "c01", "in_s": 0, "out_s": 1},
                {"clip_id": "nope", "in_s": 0, "out_s": 1},
            )
        assert info.value.param == "timeline.shots[1].clip_id"
        assert info.value.code == "unknown_reference"
        assert info.value.status_code == 422

    def test_unknown_track_names_the_field(self):
        data = timeline_json({"clip_id": "c01", "in_s": 0, "out_s": 1}, music={"track_id": "m99"})
        with pytest.raises(UnknownReference) as info:
            TimelineIn.model_validate(data).to_timeline(parse_task())
        assert info.value.param == "timeline.music.track_id"

    def test_the_field_prefix_can_be_chosen(self):
        data = timeline_json({"clip_id": "x", "in_s": 0, "out_s": 1})
        with pytest.raises(UnknownReference) as info:
            TimelineIn.model_validate(data).to_timeline(parse_task(), field="base")
        assert info.value.param == "base.shots[0].clip_id"

    def test_fps_mismatch(self):
        data = timeline_json({"clip_id": "c01", "in_s": 0, "out_s": 1}, fps=25)
        with pytest.raises(VerifierError) as info:
            TimelineIn.model_validate(data).to_timeline(parse_task())
        assert (info.value.code, info.value.param) == ("fps_mismatch", "timeline.fps")

    def test_a_shot_shorter_than_a_frame_is_rejected_at_the_boundary(self):
        with pytest.raises(VerifierError) as info:
            frames_of({"clip_id": "c01", "in_s": 1.0, "out_s": 1.01})
        assert (info.value.code, info.value.param) == ("empty_shot", "timeline.shots[0].out_s")

    def test_a_transition_shorter_than_a_frame_is_rejected_at_the_boundary(self):
        shots = (
            {"clip_id": "c01", "in_s": 0, "out_s": 2},
            {
                "clip_id": "c07",
                "in_s": 1,
                "out_s": 2,
                "transition_in": {"type": "dissolve", "duration_s": 0.01},
            },
        )
        with pytest.raises(VerifierError) as info:
            frames_of(*shots)
        assert info.value.param == "timeline.shots[1].transition_in.duration_s"
        assert info.value.code == "empty_transition"

    def test_a_sub_frame_transition_in_a_patch_is_rejected_by_the_op(self):
        op = {"op": "set_transition", "shot": 0, "type": "dissolve", "duration_s": 0.01}
        ops = PatchIn.model_validate({"ops": [op]}).to_ops(30)
        timeline = frames_of({"clip_id": "c01", "in_s": 0, "out_s": 1})
        with pytest.raises(PatchRejected) as info:
            P.apply_patch(parse_task(), timeline, ops)
        assert info.value.reason == "bad_transition"

    @pytest.mark.parametrize(
        "shot",
        [
            {"clip_id": "c01", "in_s": math.nan, "out_s": 1},
            {"clip_id": "c01", "in_s": 0, "out_s": math.inf},
            {"clip_id": "c01", "in_s": -0.5, "out_s": 1},
            {"clip_id": "c01", "in_s": 2, "out_s": 1},
            {"clip_id": "c01", "in_s": 1, "out_s": 1},
            {"clip_id": "", "in_s": 0, "out_s": 1},
            {"clip_id": "c01", "in_s": 0, "out_s": 1, "speed": 2},
            {"clip_id": "c01", "in_s": 0, "out_s": 1, "transition_in": {"type": "dissolve"}},
            {
                "clip_id": "c01",
                "in_s": 0,
                "out_s": 1,
                "transition_in": {"type": "cut", "duration_s": 0.5},
            },
            {
                "clip_id": "c01",
                "in_s": 0,
                "out_s": 1,
                "transition_in": {"type": "iris", "duration_s": 0.5},
            },
        ],
    )
    def test_bad_shots_are_validation_errors(self, shot):
        with pytest.raises(ValidationError):
            TimelineIn.model_validate(timeline_json(shot))

    @pytest.mark.parametrize(
        "change",
        [
            {"schema": "Timeline.2"},
            {"music": {"track_id": "m01", "offset_s": -1}},
            {"music": {"track_id": "m01", "offset_s": math.nan}},
            {"fps": -30},
        ],
    )
    def test_bad_timelines_are_validation_errors(self, change):
        with pytest.raises(ValidationError):
            TimelineIn.model_validate(
                timeline_json({"clip_id": "c01", "in_s": 0, "out_s": 1}, **change)
            )

    def test_round_trip_through_the_domain(self):
        task = parse_task()
        wire = TimelineIn.model_validate(DESIGN_TIMELINE)
        domain = wire.to_timeline(task)
        out = TimelineOut.from_domain(domain)
        assert out.model_dump(by_alias=True) == wire.model_dump(by_alias=True)
        assert out.model_dump(by_alias=True)["schema"] == "Timeline.1"
        again = TimelineIn.model_validate_json(out.model_dump_json(by_alias=True))
        assert again.to_timeline(task) == domain

    @settings(max_examples=100, deadline=None)
    @given(
        st.lists(
            st.tuples(st.integers(0, 200), st.integers(1, 50), st.integers(0, 20)),
            min_size=1,
            max_size=5,
        ),
        st.sampled_from([24, 25, 30, 60]),
    )
    def test_frames_survive_the_wire(self, specs, fps):
        task = parse_task(fps=fps)
        shots = []
        for start, length, fade in specs:
            into = Transition(TransitionType.FADE_BLACK, fade) if fade else Transition()
            shots.append((start, start + length, into))
        domain = Timeline(
            fps=fps,
            shots=tuple(Shot("c01", FrameRange(a, b), t) for a, b, t in shots),
            music=MusicPlacement("m01", 7, 3),
        )
        wire = TimelineIn.model_validate_json(
            TimelineOut.from_domain(domain).model_dump_json(by_alias=True)
        )
        assert wire.to_timeline(task) == domain


class TestPatchIn:
    def test_every_op_converts_to_frames(self):
        patch = PatchIn.model_validate(
            {
                "schema": "Patch.1",
                "ops": [
                    {"op": "insert", "at": 1, "clip_id": "c01", "in_s": 0.5, "out_s": 1.05},
                    {"op": "remove", "shot": 0},
                    {"op": "replace", "shot": 0, "clip_id": "c07", "in_s": 0, "out_s": 2},
                    {"op": "trim", "shot": 1, "in_s": 0.15, "out_s": 1},
                    {"op": "move", "from": 0, "to": 1},
                    {"op": "swap", "a": 0, "b": 1},
                    {"op": "set_transition", "shot": 1, "type": "wipe", "duration_s": 0.25},
                    {"op": "set_music", "track_id": "m01", "offset_s": 1.5},
                    {"op": "snap_to_beats"},
                    {"op": "fit_duration", "target_s": 30},
                ],
            }
        )
        assert patch.to_ops(30) == [
            P.Insert(1, "c01", FrameRange(15, 32)),  # 31.5 -> 32
            P.Remove(0),
            P.Replace(0, "c07", FrameRange(0, 60)),
            P.Trim(1, FrameRange(4, 30)),  # 4.5 -> 4
            P.Move(0, 1),
            P.Swap(0, 1),
            P.SetTransition(1, Transition(TransitionType.WIPE, 8)),  # 7.5 -> 8
            P.SetMusic("m01", 45, None),
            P.SnapToBeats(3),
            P.FitDuration(900),
        ]

    @pytest.mark.parametrize(
        "data",
        [
            {"schema": "Patch.2", "ops": [{"op": "remove", "shot": 0}]},
            {"schema": "Patch.1", "ops": []},
            {"schema": "Patch.1", "ops": [{"op": "delete", "shot": 0}]},
            {"schema": "Patch.1", "ops": [{"op": "remove", "shot": -1}]},
            {"schema": "Patch.1", "ops": [{"op": "remove", "shot": 0, "why": "x"}]},
            {"schema": "Patch.1", "ops": [{"op": "trim", "shot": 0, "in_s": math.nan, "out_s": 1}]},
            {"schema": "Patch.1", "ops": [{"op": "fit_duration", "target_s": 0}]},
            {"schema": "Patch.1", "ops": [{"op": "set_music", "track_id": "m", "offset_s": -2}]},
        ],
    )
    def test_bad_patches_are_validation_errors(self, data):
        with pytest.raises(ValidationError):
            PatchIn.model_validate(data)


class TestReportOut:
    def test_carries_seconds_frames_and_every_part(self):
        task = parse_task(
            ledger=[
                {"id": "L1", "kind": "duration", "min_s": 28, "max_s": 32},
                {"id": "L2", "kind": "no_reuse", "hard": False, "weight": 2},
            ]
        )
        tl = frames_of(
            {"clip_id": "c01", "in_s": 0, "out_s": 2.5}, {"clip_id": "c07", "in_s": 0, "out_s": 1.5}
        )
        report = Verifier(task).verify(tl)
        out = ReportOut.from_domain(report)
        data = out.model_dump(by_alias=True)
        assert data["schema"] == "Report.1"
        assert (data["duration_s"], data["duration_frames"], data["fps"]) == (4.0, 120, 30)
        assert data["executable"] is True and data["feasible"] is False
        assert data["ves"] == round(report.ves, 4)
        assert set(data["components"]["rubric"]) == {"relevance", "beats", "pacing", "variety"}
        assert data["components"]["H"] == 0.0 and data["components"]["S"] == 1.0
        l1 = data["constraints"][0]
        assert (l1["id"], l1["kind"], l1["hard"], l1["satisfied"]) == (
            "L1",
            "duration",
            True,
            False,
        )
        assert l1["violation"] == 24.0 and "add ≥ 24.0 s" in l1["message"]
        assert data["errors"] == []

    def test_lists_execution_errors(self):
        task = parse_task()
        tl = frames_of({"clip_id": "c07", "in_s": 0, "out_s": 7})  # c07 is 6 s
        data = ReportOut.from_domain(Verifier(task).verify(tl)).model_dump()
        assert data["executable"] is False and data["ves"] == 0.0
        assert [(e["code"], e["shot"]) for e in data["errors"]] == [("range_outside_clip", 0)]
