"""Property tests: patches are pure and fail only by PatchRejected; executability agrees with
an independent brute-force renderer; VES stays in [0, 1] and feasible implies executable."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from services.verifier import ledger as L
from services.verifier import patches as P
from services.verifier.errors import PatchRejected
from services.verifier.executability import check
from services.verifier.pool import Brief, Clip, MusicTrack, Orientation, Selector
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import (
    FrameRange,
    MusicPlacement,
    Shot,
    Timeline,
    Transition,
    TransitionType,
)

FPS = 30
TAGS = ("surf", "ocean", "sunset", "city")
PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- strategies
# Ids come from a fixed universe (c0..c3, m0..m1, plus ids the task lacks) so every strategy
# is built once, at import.

CLIP_IDS = ("c0", "c1", "c2", "c3")
TRACK_IDS = ("m0", "m1")
small, fraction = st.integers(0, 120), st.floats(0, 1)
selectors = st.builds(
    Selector,
    clip_ids=st.frozensets(st.sampled_from((*CLIP_IDS, "ghost")), max_size=2),
    tags=st.frozensets(st.sampled_from(TAGS), max_size=2),
)


def _common(**kw):
    return {"id": st.just("L"), "hard": st.booleans(), "weight": st.floats(0.1, 5), **kw}


def _ranged(cls):
    return st.builds(
        lambda lo, span, **kw: cls(min=lo, max=lo + span, **kw), small, small, **_common()
    )


constraints = st.one_of(
    _ranged(L.Duration),
    _ranged(L.ShotLength),
    st.builds(L.MustInclude, selector=selectors, min_count=st.integers(1, 3), **_common()),
    st.builds(L.MustExclude, selector=selectors, **_common()),
    st.builds(L.NoReuse, max_uses=st.integers(1, 2), **_common()),
    st.builds(
        L.Order,
        first=st.none() | selectors,
        last=st.none() | selectors,
        before=st.none() | selectors,
        after=st.none() | selectors,
        **_common(),
    ),
    st.builds(
        L.Transitions,
        allowed=st.none() | st.frozensets(st.sampled_from(list(TransitionType)), min_size=1),
        max_count=st.none() | st.integers(0, 3),
        min_duration=st.none() | small,
        max_duration=st.none() | small,
        **_common(),
    ),
    st.builds(L.Music, track_id=st.sampled_from((*TRACK_IDS, "ghost")), **_common()),
    st.builds(L.BeatAlignment, tolerance=st.integers(0, 5), min_fraction=fraction, **_common()),
    st.builds(L.EndOnDownbeat, tolerance=st.integers(0, 5), **_common()),
    st.builds(L.OrientationRule, value=st.sampled_from(list(Orientation)), **_common()),
    st.builds(
        L.MaxConsecutiveTag, tag=st.sampled_from(TAGS), max_run=st.integers(1, 3), **_common()
    ),
    st.builds(
        L.Coverage,
        topics=st.lists(
            st.sampled_from(["surfer", "sunset ocean", "cats"]), min_size=1, max_size=3
        ).map(tuple),
        min_fraction=fraction,
        **_common(),
    ),
)
pool_clips = st.builds(
    lambda duration, caption, tags, orientation, id: Clip(
        id=id, duration=duration, caption=caption, tags=tags, orientation=orientation
    ),
    st.integers(1, 60),
    st.sampled_from(["", "surfer on a wave", "sunset over the ocean", "city lights"]),
    st.frozensets(st.sampled_from(TAGS), max_size=2),
    st.sampled_from(list(Orientation)),
    id=st.just(""),
)


@st.composite
def music_tracks(draw, id: str) -> MusicTrack:
    duration = draw(st.integers(1, 240))
    grid = st.lists(st.integers(0, duration), max_size=12, unique=True).map(sorted).map(tuple)
    return MusicTrack(id=id, duration=duration, beats=draw(grid), downbeats=draw(grid))


@st.composite
def tasks(draw) -> Task:
    pool = [draw(pool_clips)._replace(id=id) for id in CLIP_IDS[: draw(st.integers(1, 4))]]
    music = [draw(music_tracks(id)) for id in TRACK_IDS[: draw(st.integers(0, 2))]]
    return Task.build(
        id="t",
        fps=FPS,
        clips=pool,
        tracks=music,
        ledger=draw(st.lists(constraints, max_size=4)),
        brief=Brief(
            "surfer sunset ocean", style=draw(st.sampled_from(["energetic", "calm", "neutral"]))
        ),
    )


transitions = st.one_of(
    st.just(Transition()),
    st.just(Transition()),
    st.builds(
        Transition,
        st.sampled_from([TransitionType.DISSOLVE, TransitionType.WIPE, TransitionType.FADE_BLACK]),
        st.integers(0, 12),
    ),
)


@st.composite
def timelines(draw, task: Task) -> Timeline:
    """Mostly plausible timelines (so both verdicts are common), with a sprinkling of unknown
    ids, ranges past the media, empty shots, bad offsets and a wrong fps."""
    shots = []
    for _ in range(draw(st.integers(0, 4))):
        clip_id = draw(st.sampled_from(CLIP_IDS))
        if clip_id not in task.clips and draw(st.integers(0, 9)):
            clip_id = "c0"
        duration = task.clips[clip_id].duration if clip_id in task.clips else 30
        if draw(st.integers(0, 9)):
            start = draw(st.integers(0, duration - 1))
            end = draw(st.integers(start + 1, duration))
        else:
            start = draw(st.integers(-2, duration))
            end = start + draw(st.integers(-2, duration + 2))
        shots.append(Shot(clip_id, FrameRange(start, end), draw(transitions)))
    music = None
    if task.tracks and draw(st.booleans()):
        track_id = draw(st.sampled_from(TRACK_IDS))
        limit = task.tracks[track_id].duration if track_id in task.tracks else 30
        offset = draw(
            st.integers(0, limit // 2) if draw(st.integers(0, 4)) else st.integers(-2, limit)
        )
        music = MusicPlacement(track_id, offset, draw(st.integers(0, 20)))
    fps = FPS if draw(st.integers(0, 29)) else 25
    return Timeline(fps=fps, shots=tuple(shots), music=music)


index = st.integers(-1, 6)
clip_ids = st.sampled_from((*CLIP_IDS, "ghost"))
sources = st.builds(lambda a, n: FrameRange(a, a + n), st.integers(-2, 60), st.integers(-1, 40))
ops = st.one_of(
    st.builds(P.Insert, index, clip_ids, sources),
    st.builds(P.Remove, index),
    st.builds(P.Replace, index, clip_ids, sources),
    st.builds(P.Trim, index, sources),
    st.builds(P.Move, index, index),
    st.builds(P.Swap, index, index),
    st.builds(
        P.SetTransition,
        index,
        transitions
        | st.builds(Transition, st.sampled_from(list(TransitionType)), st.integers(-2, 16)),
    ),
    st.builds(
        P.SetMusic,
        st.sampled_from((*TRACK_IDS, "ghost")),
        st.integers(-2, 100),
        st.none() | st.integers(0, 30),
    ),
    st.builds(P.SnapToBeats, st.integers(-1, 10)),
    st.builds(P.FitDuration, st.integers(-5, 300)),
)


@st.composite
def scenarios(draw):
    task = draw(tasks())
    return task, draw(timelines(task))


@st.composite
def joined_scenarios(draw):
    """Known clips, ranges inside the media and a transition on most joins: the handle and
    overlap rules at their boundaries."""
    task = draw(tasks())
    shots = []
    for i in range(draw(st.integers(1, 4))):
        clip = task.clips[draw(st.sampled_from(sorted(task.clips)))]
        start = draw(st.integers(0, clip.duration - 1))
        end = draw(st.integers(start + 1, clip.duration))
        kind = draw(
            st.sampled_from(
                [
                    TransitionType.CUT,
                    TransitionType.DISSOLVE,
                    TransitionType.WIPE,
                    TransitionType.FADE_BLACK,
                ]
            )
        )
        if i == 0 and kind is not TransitionType.FADE_BLACK:
            kind = TransitionType.CUT
        duration = 0 if kind is TransitionType.CUT else draw(st.integers(1, 10))
        shots.append(Shot(clip.id, FrameRange(start, end), Transition(kind, duration)))
    return task, Timeline(fps=FPS, shots=tuple(shots))


@st.composite
def patch_scenarios(draw):
    task, timeline = draw(scenarios())
    return task, timeline, draw(st.lists(ops, min_size=1, max_size=6))


# ------------------------------------------------------ independent checker


def renders(task: Task, timeline: Timeline) -> bool:
    """Brute force: list every media frame the timeline reads and every timeline frame its
    transitions cover; executable when each read lies inside its media and nothing clashes."""
    if timeline.fps != task.fps or not timeline.shots:
        return False
    shots = timeline.shots
    reads: list[list[int]] = []
    for shot in shots:
        if shot.clip_id not in task.clips or shot.source.end <= shot.source.start:
            return False
        reads.append(list(range(shot.source.start, shot.source.end)))
    covered = [[0] * shot.length for shot in shots]  # transition frames per timeline frame
    for i, shot in enumerate(shots):
        t = shot.transition_in
        if t.type is TransitionType.CUT and t.duration == 0:
            continue
        d = t.duration
        if i == 0:  # nothing goes out: only a fade from black over the shot's first d frames
            if t.type is not TransitionType.FADE_BLACK:
                return False
            spans = [(0, range(d))]
        else:
            before, after = d // 2, d - d // 2
            previous = shots[i - 1]
            reads[i] += range(shot.source.start - before, shot.source.start)
            reads[i - 1] += range(previous.source.end, previous.source.end + after)
            spans = [(i, range(after)), (i - 1, range(previous.length - before, previous.length))]
        for j, frames in spans:
            for f in frames:
                if not 0 <= f < len(covered[j]):
                    return False
                covered[j][f] += 1
    if any(n > 1 for row in covered for n in row):
        return False
    for shot, frames in zip(shots, reads, strict=True):
        if any(not 0 <= f < task.clips[shot.clip_id].duration for f in frames):
            return False
    music = timeline.music
    if music is not None:
        track = task.tracks.get(music.track_id)
        if track is None or music.fade_out > timeline.length:
            return False
        if any(
            not 0 <= f < track.duration for f in range(music.offset, music.offset + timeline.length)
        ):
            return False
    return True


# ---------------------------------------------------------------- properties


@PROPERTY
@given(patch_scenarios())
def test_patches_never_mutate_and_fail_only_by_rejection(scenario):
    task, timeline, patch = scenario
    before_timeline, before_task = copy.deepcopy(timeline), copy.deepcopy(task)
    try:
        result = P.apply_patch(task, timeline, patch)
    except PatchRejected as error:
        assert 0 <= error.op_index < len(patch)
        assert error.param.startswith(f"patch.ops[{error.op_index}]")
        # the ops before the failing one apply, and the failing one fails on their result
        prefix = P.apply_patch(task, timeline, patch[: error.op_index])
        try:
            P.apply_patch(task, prefix, [patch[error.op_index]])
        except PatchRejected as again:
            assert again.reason == error.reason
        else:
            raise AssertionError("the reported op applies on its own")
    else:
        assert isinstance(result, Timeline)
        assert isinstance(result.shots, tuple)
        assert result.fps == timeline.fps
    assert timeline == before_timeline
    assert task == before_task


@PROPERTY
@given(scenarios())
def test_executable_exactly_when_the_brute_force_renderer_agrees(scenario):
    task, timeline = scenario
    expected = renders(task, timeline)
    errors = check(task, timeline)
    event("executable" if expected else "not executable")
    if any(s.transition_in.duration for s in timeline.shots):
        event(f"with transitions, executable={expected}")
    assert (not errors) is expected, errors
    report = Verifier(task).verify(timeline)
    assert report.executable is expected
    assert list(report.errors) == errors


@PROPERTY
@given(joined_scenarios())
def test_transitions_are_executable_exactly_when_their_handles_and_spans_fit(scenario):
    task, timeline = scenario
    expected = renders(task, timeline)
    event("executable" if expected else "not executable")
    assert (not check(task, timeline)) is expected
    assert Verifier(task).verify(timeline).executable is expected


@PROPERTY
@given(scenarios())
def test_ves_is_bounded_and_feasible_implies_executable(scenario):
    task, timeline = scenario
    report = Verifier(task).verify(timeline)
    c = report.components
    assert 0.0 <= report.ves <= 1.0
    assert 0.0 <= c.H <= 1.0 and 0.0 <= c.S <= 1.0
    if all(shot.length > 0 for shot in timeline.shots):  # what the wire can express
        for part in (c.Q, c.relevance, c.beats, c.pacing, c.variety):
            assert 0.0 <= part <= 1.0
    if report.feasible:
        assert report.executable and c.H == 1.0
    if not report.executable:
        assert report.ves == 0.0
    else:
        expected = 0.6 * c.H + 0.2 * c.S + 0.2 * c.Q
        assert abs(report.ves - expected) <= 1e-6
    for result in report.constraints:
        assert 0.0 <= result.score <= 1.0
        if result.satisfied:
            assert result.violation == 0.0 and result.message is None
        else:
            assert result.violation > 0 and result.score < 1.0
            assert isinstance(result.message, str) and result.message


SHOT_LEVEL = {
    "missing_handles",
    "no_outgoing_shot",
    "transition_too_long",
    "range_outside_clip",
    "empty_shot",
    "unknown_clip",
    "empty_timeline",
}


@PROPERTY
@given(st.one_of(joined_scenarios(), scenarios()), st.integers(1, 15), st.integers(0, 8))
def test_fit_and_snap_keep_an_executable_track_executable(scenario, tenths, tolerance):
    # both verbs re-time out points and promise to stay inside the media; they must also leave
    # every shot long enough for its transitions (music may still overrun: a new length is
    # what fit_duration is for)
    task, timeline = scenario
    if check(task, timeline):
        return
    target = max(1, timeline.length * tenths // 10)
    for op in (P.FitDuration(target), P.SnapToBeats(tolerance)):
        try:
            patched = P.apply_patch(task, timeline, [op])
        except PatchRejected:
            continue
        assert not {e.code for e in check(task, patched)} & SHOT_LEVEL, (op, patched)


@PROPERTY
@given(scenarios())
def test_patched_executable_timelines_are_judged_like_any_other(scenario):
    # a repair loop only ever sees timelines that came out of apply_patch: the verifier must
    # agree with the brute-force renderer on those as well
    task, timeline = scenario
    for op in (P.FitDuration(max(1, timeline.length)), P.SnapToBeats(3)):
        try:
            patched = P.apply_patch(task, timeline, [op])
        except PatchRejected:
            continue
        assert Verifier(task).verify(patched).executable is renders(task, patched)
