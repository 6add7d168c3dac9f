"""OTIO export: the written file reads back with the timeline's ranges, handles and beats."""

from __future__ import annotations

import json
from pathlib import Path

import opentimelineio as otio
import pytest

from services.planner.export import NotExecutable, otio_bytes, otio_json, to_otio, write_otio
from services.verifier.pool import Brief, Clip
from services.verifier.task import Task
from services.verifier.timeline import FrameRange, MusicPlacement, Shot, Timeline, TransitionType
from tests.planner.export_factories import small_task, three_shots

CUT, DISSOLVE, WIPE, FADE = (
    TransitionType.CUT,
    TransitionType.DISSOLVE,
    TransitionType.WIPE,
    TransitionType.FADE_BLACK,
)


@pytest.fixture(params=[30, 25])
def exported(request, tmp_path):
    task = small_task(request.param)
    timeline = three_shots(task, [(CUT, 0), (DISSOLVE, 10), (WIPE, 7)])
    path = write_otio(task, timeline, tmp_path / "out" / "reel.otio")
    return task, timeline, otio.adapters.read_from_file(str(path))


def test_duration_equals_timeline_length(exported):
    task, timeline, read = exported
    assert read.duration() == otio.opentime.RationalTime(timeline.length, task.fps)
    assert read.duration().to_seconds() == pytest.approx(timeline.length / task.fps)


def test_every_clip_carries_its_shot_range_and_media(exported):
    task, timeline, read = exported
    video = read.video_tracks()[0]
    clips = video.find_clips()
    assert len(clips) == len(timeline.shots)
    for clip, shot in zip(clips, timeline.shots, strict=True):
        source = task.clips[shot.clip_id]
        assert clip.source_range.start_time.value == shot.source.start
        assert clip.source_range.duration.value == shot.length
        assert clip.source_range.start_time.rate == task.fps
        assert clip.media_reference.target_url == (Path.cwd() / source.uri).as_uri()
        assert clip.media_reference.available_range.duration.value == source.duration
        assert clip.metadata["refinery"]["clip_id"] == shot.clip_id


def test_transitions_sit_between_clips_with_centred_offsets(exported):
    _, timeline, read = exported
    video = read.video_tracks()[0]
    assert [type(item).__name__ for item in video] == [
        "Clip", "Transition", "Clip", "Transition", "Clip",
    ]  # fmt: skip
    for item, shot in zip(video[1::2], timeline.shots[1:], strict=True):
        transition = shot.transition_in
        assert item.in_offset.value == transition.before_cut
        assert item.out_offset.value == transition.after_cut
        assert item.in_offset.value + item.out_offset.value == transition.duration


def test_transition_types_and_handles(tmp_path):
    task = small_task(30)
    timeline = three_shots(task, [(CUT, 0), (DISSOLVE, 10), (WIPE, 7)])
    read = otio.adapters.read_from_string(otio_json(task, timeline), "otio_json")
    transitions = [i for i in read.video_tracks()[0] if isinstance(i, otio.schema.Transition)]
    assert [t.transition_type for t in transitions] == [
        otio.schema.TransitionTypes.SMPTE_Dissolve,
        otio.schema.TransitionTypes.Custom,
    ]
    assert [(t.in_offset.value, t.out_offset.value) for t in transitions] == [(5, 5), (3, 4)]
    assert transitions[1].metadata["refinery"]["type"] == "wipe"
    clip1 = read.video_tracks()[0].find_clips()[1]
    head, tail = read.video_tracks()[0].handles_of_child(clip1)
    assert (head.value, tail.value) == (5, 4)  # before the dissolve's cut, after the wipe's


def test_first_shot_fade_black_is_a_fade_from_an_empty_gap():
    task = small_task(25)
    timeline = three_shots(task, [(FADE, 8), (CUT, 0), (FADE, 6)])
    read = otio.adapters.read_from_string(otio_json(task, timeline), "otio_json")
    video = read.video_tracks()[0]
    assert [type(i).__name__ for i in video][:3] == ["Gap", "Transition", "Clip"]
    assert video[0].duration().value == 0
    first, second = (i for i in video if isinstance(i, otio.schema.Transition))
    assert (first.in_offset.value, first.out_offset.value) == (0, 8)
    assert first.metadata["refinery"]["type"] == "fade_black"
    assert (second.in_offset.value, second.out_offset.value) == (3, 3)
    assert read.duration().value == timeline.length


def test_music_clip_range_fade_and_beat_markers(exported):
    task, timeline, read = exported
    audio = read.audio_tracks()[0]
    (music,) = audio.find_clips()
    placement = timeline.music
    track = task.tracks["m1"]
    assert music.source_range.start_time.value == placement.offset
    assert music.source_range.duration.value == timeline.length
    assert music.metadata["refinery"]["fade_out_frames"] == placement.fade_out
    end = placement.offset + timeline.length
    beats = [b for b in track.beats if placement.offset <= b < end]
    downbeats = [b for b in track.downbeats if placement.offset <= b < end]
    assert 0 < len(beats) < len(track.beats)  # the range cuts some beats off
    named = {"beat": [], "downbeat": []}
    for marker in music.markers:
        named[marker.name].append(marker.marked_range.start_time.value)
    assert named == {"beat": beats, "downbeat": downbeats}
    assert {m.color for m in music.markers} == {"GREEN", "RED"}


def test_task_metadata_and_extra_metadata():
    task = small_task(30)
    timeline = three_shots(task, [(CUT, 0), (CUT, 0), (DISSOLVE, 6)])
    data = json.loads(otio_bytes(task, timeline, metadata={"ves": 0.71}))
    refinery = data["metadata"]["refinery"]
    assert refinery["task_id"] == task.id
    assert refinery["fps"] == 30
    assert refinery["length_frames"] == timeline.length == 90
    assert refinery["cuts_frames"] == [30, 60]
    assert refinery["ves"] == 0.71
    assert refinery["music"] == {"track_id": "m1", "offset_frames": 10, "fade_out_frames": 15}


def test_without_music_the_audio_track_is_empty():
    task = small_task(30)
    timeline = three_shots(task, [(CUT, 0)] * 3, music=False)
    exported = to_otio(task, timeline, name="silent")
    assert exported.name == "silent"
    assert len(exported.audio_tracks()) == 1 and not exported.audio_tracks()[0].find_clips()
    assert exported.duration().value == timeline.length


def test_unknown_clip_or_track_is_a_typed_error():
    task = small_task(30)
    good = three_shots(task, [(CUT, 0)] * 3)
    bad_clip = good.with_shots([*good.shots[:2], Shot("nope", good.shots[2].source)])
    with pytest.raises(NotExecutable) as caught:
        to_otio(task, bad_clip)
    assert caught.value.param == "shots[2].clip_id" and caught.value.status_code == 422
    bad_track = Timeline(fps=30, shots=good.shots, music=MusicPlacement("m9"))
    with pytest.raises(NotExecutable, match="m9"):
        to_otio(task, bad_track)


def test_a_clip_start_offsets_source_and_available_ranges():
    """Shots found inside a longer file: OTIO ranges are in the file's frames."""
    task = Task.build(
        id="starts", fps=30, brief=Brief("two shots of one file"),
        clips=[Clip("a", 60, "reel.mp4", start=90), Clip("b", 45, "reel.mp4")],
    )  # fmt: skip
    shots = (Shot("a", FrameRange(10, 40)), Shot("b", FrameRange(0, 20)))
    timeline = Timeline(fps=30, shots=shots)
    text = otio_json(task, timeline)
    back = otio.adapters.read_from_string(text, adapter_name="otio_json")
    first, second = back.tracks[0]
    assert first.source_range == otio.opentime.TimeRange(
        otio.opentime.RationalTime(100, 30), otio.opentime.RationalTime(30, 30)
    )
    assert first.media_reference.available_range.start_time.value == 90
    assert first.media_reference.available_range.duration.value == 60
    assert first.metadata["refinery"]["clip_start_frames"] == 90
    assert second.source_range.start_time.value == 0
    assert first.media_reference.target_url == second.media_reference.target_url
    assert first.media_reference.target_url == Path("reel.mp4").resolve().as_uri()
