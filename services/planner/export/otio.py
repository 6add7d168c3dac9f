"""Timeline.1 → OpenTimelineIO: one video track of shots, one audio track of music.

Shots become clips whose ``source_range`` is the shot's range at the task fps, in frames of
the media file (offset by the clip's ``start``: a shot found inside a longer file), and
whose media reference's ``available_range`` is the clip's stretch of that file; every
transition other than a cut becomes an ``otio.schema.Transition`` between the two clips
with ``in_offset = d // 2`` (before the cut: the incoming clip's head handle) and
``out_offset = d - d // 2`` (after the cut: the outgoing clip's tail handle). A first-shot
``fade_black`` is a transition from a zero-length gap (black). The music is a clip over
``[offset, offset + length)`` of its track, with a marker on every beat and downbeat there.

Every ``target_url`` is absolute (:func:`services.planner.export.urls.media_url`): a
``file://`` URL under ``media_root``, or under ``media_url_base`` when editors see the media
root elsewhere (a shared drive).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import opentimelineio as otio

from services.planner.export.errors import NotExecutable
from services.planner.export.urls import media_url
from services.verifier.pool import MusicTrack
from services.verifier.task import Task
from services.verifier.timeline import Timeline, TransitionType, to_seconds

__all__ = ["otio_bytes", "otio_json", "to_otio", "write_otio"]

_RT = otio.opentime.RationalTime
_TR = otio.opentime.TimeRange
_OTIO_TYPE = {TransitionType.DISSOLVE: otio.schema.TransitionTypes.SMPTE_Dissolve}
_Url = Callable[[str, str], str]
"""A media URI and the request field it came from → its absolute URL."""
_MARKERS = (("beat", otio.schema.MarkerColor.GREEN), ("downbeat", otio.schema.MarkerColor.RED))


def to_otio(
    task: Task,
    timeline: Timeline,
    *,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    media_root: Path | str = ".",
    media_url_base: str | None = None,
) -> otio.schema.Timeline:
    """The OTIO timeline of ``timeline``; ``metadata`` (e.g. a VES report) joins
    ``metadata["refinery"]``. Media URIs resolve under ``media_root`` and are written as
    absolute URLs (under ``media_url_base`` when given)."""

    def url(uri: str, param: str) -> str:
        return media_url(uri, media_root, base=media_url_base, param=param)

    video = _video_track(task, timeline, url)
    audio = _audio_track(task, timeline, url)
    return otio.schema.Timeline(
        name=name or task.id,
        tracks=[video, audio],
        metadata={"refinery": _info(task, timeline, metadata)},
    )


def _video_track(task: Task, timeline: Timeline, url: _Url) -> otio.schema.Track:
    """V1: every shot as a clip of its file, with the transitions between them."""
    fps = task.fps

    def rt(frames: int) -> otio.opentime.RationalTime:
        return _RT(frames, fps)

    def span(start: int, duration: int) -> otio.opentime.TimeRange:
        return _TR(rt(start), rt(duration))

    video = otio.schema.Track(name="V1", kind=otio.schema.TrackKind.Video)
    for i, shot in enumerate(timeline.shots):
        clip = task.clips.get(shot.clip_id)
        if clip is None:
            raise NotExecutable(
                f"clip {shot.clip_id} is not in the pool", param=f"shots[{i}].clip_id"
            )
        transition = shot.transition_in
        if transition.type is not TransitionType.CUT and transition.duration:
            if i == 0:  # nothing to leave: fade in from a zero-length gap (black)
                video.append(otio.schema.Gap(source_range=span(0, 0)))
            video.append(_transition(transition.type, transition.duration, i, rt))
        video.append(
            otio.schema.Clip(
                name=f"{i:03d} {clip.id}",
                media_reference=otio.schema.ExternalReference(
                    target_url=url(clip.uri, _param(task.clips, "clips", clip.id)),
                    available_range=span(clip.start, clip.duration),
                ),
                source_range=span(clip.start + shot.source.start, shot.length),
                metadata={
                    "refinery": {
                        "shot": i,
                        "clip_id": clip.id,
                        "clip_start_frames": clip.start,
                        "caption": clip.caption,
                        "tags": sorted(clip.tags),
                        "transition_in": {"type": transition.type.value,
                                          "duration_frames": transition.duration},
                    }
                },
            )
        )  # fmt: skip
    return video


def _audio_track(task: Task, timeline: Timeline, url: _Url) -> otio.schema.Track:
    """A1: the music, when the timeline places a track."""
    audio = otio.schema.Track(name="A1", kind=otio.schema.TrackKind.Audio)
    music = timeline.music
    if music is not None:
        track = task.tracks.get(music.track_id)
        if track is None:
            raise NotExecutable(
                f"music track {music.track_id} is not in the task", param="music.track_id"
            )
        target = url(track.uri, _param(task.tracks, "music", track.id))
        audio.append(
            _music_clip(track, target, music.offset, timeline.length, music.fade_out, task.fps)
        )
    return audio


def _info(task: Task, timeline: Timeline, metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """The timeline's ``metadata["refinery"]``: the task, the cut and the ledger in brief."""
    fps, music = task.fps, timeline.music
    return {
        "schema": "Timeline.1",
        "task_id": task.id,
        "fps": fps,
        "length_frames": timeline.length,
        "duration_s": to_seconds(timeline.length, fps),
        "cuts_frames": timeline.cut_positions(),
        "brief": {"text": task.brief.text, "aspect": task.brief.aspect,
                  "style": task.brief.style},
        "music": None if music is None else {
            "track_id": music.track_id,
            "offset_frames": music.offset,
            "fade_out_frames": music.fade_out,
        },
        "ledger": [
            {"id": c.id, "kind": c.kind, "hard": c.hard, "weight": c.weight} for c in task.ledger
        ],
        **(metadata or {}),
    }  # fmt: skip


def _param(pool: Mapping[str, Any], field: str, key: str) -> str:
    """The task field a URI came from, as the request names it (``clips[2].uri``)."""
    return f"{field}[{list(pool).index(key)}].uri"


def _transition(kind: TransitionType, duration: int, shot: int, rt) -> otio.schema.Transition:
    before, after = duration // 2, duration - duration // 2
    if shot == 0:  # a fade in from black starts at the cut: all of it lies after
        before, after = 0, duration
    return otio.schema.Transition(
        name=kind.value,
        transition_type=_OTIO_TYPE.get(kind, otio.schema.TransitionTypes.Custom),
        in_offset=rt(before),
        out_offset=rt(after),
        metadata={"refinery": {"type": kind.value, "duration_frames": duration, "shot": shot}},
    )


def _music_clip(
    track: MusicTrack, target_url: str, offset: int, length: int, fade_out: int, fps: int
) -> otio.schema.Clip:
    source = _TR(_RT(offset, fps), _RT(length, fps))
    clip = otio.schema.Clip(
        name=track.id,
        media_reference=otio.schema.ExternalReference(
            target_url=target_url, available_range=_TR(_RT(0, fps), _RT(track.duration, fps))
        ),
        source_range=source,
        metadata={
            "refinery": {
                "track_id": track.id,
                "bpm": track.bpm,
                "mood": track.mood,
                "fade_out_frames": fade_out,
                "fade_out_s": to_seconds(fade_out, fps),
            }
        },
    )
    end = offset + length
    for (name, color), frames in zip(_MARKERS, (track.beats, track.downbeats), strict=True):
        for frame in frames:
            if offset <= frame < end:
                clip.markers.append(
                    otio.schema.Marker(
                        name=name,
                        marked_range=_TR(_RT(frame, fps), _RT(0, fps)),
                        color=color,
                    )
                )
    return clip


def otio_json(
    task: Task,
    timeline: Timeline,
    *,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    indent: int = 2,
    **media: Any,
) -> str:
    """The ``.otio`` JSON text of :func:`to_otio` (``media``: its ``media_root``,
    ``media_url_base``)."""
    exported = to_otio(task, timeline, name=name, metadata=metadata, **media)
    return otio.adapters.write_to_string(exported, adapter_name="otio_json", indent=indent)


def otio_bytes(
    task: Task,
    timeline: Timeline,
    *,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    **media: Any,
) -> bytes:
    """:func:`otio_json` as UTF-8 bytes (an HTTP response body, a blob)."""
    return otio_json(task, timeline, name=name, metadata=metadata, **media).encode("utf-8")


def write_otio(
    task: Task,
    timeline: Timeline,
    path: Path | str,
    *,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    **media: Any,
) -> Path:
    """Write the ``.otio`` file of ``timeline`` to ``path`` (whole or not at all)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(otio_bytes(task, timeline, name=name, metadata=metadata, **media))
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path
