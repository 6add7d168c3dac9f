"""Is a timeline executable: could a renderer build it from the media it names?"""

from __future__ import annotations

from operator import attrgetter, le
from typing import NamedTuple

from services.verifier.task import Task
from services.verifier.timeline import Timeline, TransitionType
from services.verifier.view import TimelineView


class ExecError(NamedTuple):
    code: str
    message: str
    shot: int | None = None


def _s(frames: int, fps: int) -> float:
    return round(frames / fps, 3)


def check(task: Task, timeline: Timeline) -> list[ExecError]:
    """Every reason the timeline cannot be rendered; empty when it is executable.

    This runs on every verification, so the common case (cuts, clips in range) stays lean.
    """
    fps = task.fps
    errors: list[ExecError] = []
    if timeline.fps != fps:
        errors.append(
            ExecError("fps_mismatch", f"timeline is at {timeline.fps} fps; task at {fps}")
        )
    shots = timeline.shots
    if not shots:
        errors.append(ExecError("empty_timeline", "the timeline has no shots: insert at least one"))
    clips = task.clips
    last = len(shots) - 1
    previous = previous_clip = None
    for i, shot in enumerate(shots):
        clip = clips.get(shot.clip_id)
        source = shot.source
        start, end = source.start, source.end
        if clip is None:
            errors.append(ExecError("unknown_clip", f"clip {shot.clip_id} is not in the pool", i))
        elif start < 0 or end > clip.duration:
            errors.append(_outside(shot, clip.duration, fps, i))
        if end <= start:
            errors.append(ExecError("empty_shot", "a shot needs out > in", i))
        transition = shot.transition_in
        occupied = 0
        if transition.type is not TransitionType.CUT:
            if previous is None:
                occupied = transition.duration
                if transition.type is not TransitionType.FADE_BLACK:
                    errors.append(
                        ExecError(
                            "no_outgoing_shot",
                            f"the first shot cannot {transition.type} in: use cut or fade_black",
                            i,
                        )
                    )
            else:
                occupied = transition.after_cut
                errors.extend(_handles(i, shot, previous, clip, previous_clip, fps))
        if i < last:
            occupied += shots[i + 1].transition_in.duration >> 1
        if occupied > end - start > 0:
            errors.append(
                ExecError(
                    "transition_too_long",
                    f"the transitions into and out of shot {i} cover more than its "
                    f"{_s(end - start, fps)} s: shorten them",
                    i,
                )
            )
        previous, previous_clip = shot, clip
    if timeline.music is not None:
        errors.extend(_music(task, timeline))
    return errors


def _outside(shot, duration: int, fps: int, i: int) -> ExecError:
    return ExecError(
        "range_outside_clip",
        f"{shot.clip_id} runs 0–{_s(duration, fps)} s; shot uses "
        f"{_s(shot.source.start, fps)}–{_s(shot.source.end, fps)} s",
        i,
    )


def _handles(i, shot, previous, clip, previous_clip, fps) -> list[ExecError]:
    errors = []
    transition = shot.transition_in
    before, after = transition.before_cut, transition.after_cut
    name = transition.type.value
    if clip is not None and shot.source.start < before:
        errors.append(
            ExecError(
                "missing_handles",
                f"{name} needs {_s(before, fps)} s of {shot.clip_id} before "
                f"{_s(shot.source.start, fps)} s",
                i,
            )
        )
    if previous_clip is not None and previous.source.end + after > previous_clip.duration:
        errors.append(
            ExecError(
                "missing_handles",
                f"{name} needs {_s(after, fps)} s of {previous.clip_id} after "
                f"{_s(previous.source.end, fps)} s",
                i,
            )
        )
    return errors


def _music(task: Task, timeline: Timeline) -> list[ExecError]:
    music = timeline.music
    if music is None:
        return []
    track = task.tracks.get(music.track_id)
    if track is None:
        return [ExecError("unknown_track", f"music track {music.track_id} is not in the task")]
    fps = task.fps
    length = timeline.length
    errors = []
    if music.offset < 0 or music.offset + length > track.duration:
        errors.append(
            ExecError(
                "music_outside_track",
                f"{track.id} runs 0–{_s(track.duration, fps)} s; the timeline needs "
                f"{_s(music.offset, fps)}–{_s(music.offset + length, fps)} s of it",
            )
        )
    if music.fade_out > length:
        errors.append(ExecError("fade_too_long", "the music fade-out is longer than the timeline"))
    return errors


_DURATION = attrgetter("duration")


def is_executable(
    task: Task, view: TimelineView, durations_by_id: dict[str, int] | None = None
) -> bool:
    """The same verdict as ``not check(task, timeline)``, without building messages.

    The hot path of every verification: whole-list checks in C where possible, and only the
    shots next to a transition looked at one by one. ``durations_by_id``: clip frames by id,
    when the caller keeps them (a :class:`~score.Verifier` does).
    """
    if view.fps != task.fps or not view.ids or not view.clip_ids <= task.clips.keys():
        return False
    if durations_by_id is None:
        durations = list(map(_DURATION, map(task.clips.__getitem__, view.ids)))
    else:
        durations = list(map(durations_by_id.__getitem__, view.ids))
    if min(view.starts) < 0 or min(view.lengths) <= 0 or not all(map(le, view.ends, durations)):
        return False
    if view.transitions and not _transitions_fit(view, durations):
        return False
    music = view.music
    if music is None:
        return True
    track = task.tracks.get(music.track_id)
    return (
        track is not None
        and music.offset >= 0
        and music.offset + view.total <= track.duration
        and music.fade_out <= view.total
    )


def _transitions_fit(view: TimelineView, durations: list[int]) -> bool:
    """Handles on both sides of each transition, and no shot covered beyond its length."""
    starts, ends, lengths = view.starts, view.ends, view.lengths
    covered: dict[int, int] = {}
    for i, transition in view.transitions:
        duration = transition.duration
        before = duration >> 1
        if i == 0:
            if transition.type is not TransitionType.FADE_BLACK:
                return False
            covered[0] = covered.get(0, 0) + duration
            continue
        if starts[i] < before or ends[i - 1] + duration - before > durations[i - 1]:
            return False
        covered[i] = covered.get(i, 0) + duration - before
        covered[i - 1] = covered.get(i - 1, 0) + before
    return all(frames <= lengths[i] for i, frames in covered.items())
