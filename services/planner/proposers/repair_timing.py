"""Timing repairs: re-cut on the beat grid, recount shots, move or change the music.

Aimed at ``duration``, ``shot_length``, ``beat_alignment``, ``end_on_downbeat``, ``music``
and the pacing part of Q. Each generator yields ``(ops, label)``; the search judges them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from services.planner.proposers import moves as M
from services.planner.proposers.search_context import shot_handles, shot_source
from services.planner.proposers.timing import best_end, place_music, track_order
from services.verifier import ledger as L
from services.verifier.patches import FitDuration, SetMusic, SnapToBeats, Trim
from services.verifier.timeline import FrameRange

Labelled = tuple[M.Ops, str]


def _ends(state: M.State) -> list[int]:
    """Lengths worth re-cutting to: the best end for the target, and the one nearest now."""
    ctx = state.ctx
    found = [best_end(ctx, state.grid), best_end(ctx, state.grid, state.total)]
    return list(dict.fromkeys(e for e in found if e > 0))


def timing(state: M.State) -> Iterator[Labelled]:
    """Re-cuts on the beat grid to each good end (with the shot count as it is, as the end
    wants it, and one either side), ``fit_duration``, a trim of the closing shot, and
    ``snap_to_beats``."""
    ctx = state.ctx
    for end in _ends(state):
        wanted = M.shot_count(state, end)
        for count in sorted({state.n, wanted, wanted - 1, wanted + 1}):
            if count < 1 or abs(count - state.n) > 6:
                continue
            prefix = _recount(state, count)
            if prefix is None:
                continue
            # an end the shot window lets ``count`` shots reach
            reach = best_end(
                ctx, state.grid, end, floor=count * ctx.shot_lo, cap=count * ctx.shot_hi
            )
            ops = M.then_retime(state, prefix, reach)
            if ops:
                yield ops, f"recut:{count}@{reach}"
        if end != state.total:
            yield (FitDuration(end),), f"fit_duration@{end}"
            last = state.shots[-1]
            length = last.length + end - state.total
            before, _ = shot_handles(state.shots, state.n - 1)
            span = shot_source(ctx, last.clip_id, length, before=before, prefer=last.source.start)
            if span is not None:
                yield (Trim(state.n - 1, FrameRange(*span)),), f"trim_last@{end}"
    if state.grid is not None and state.grid.beats and state.n > 1:
        gaps = [b - a for a, b in pairwise(state.grid.beats)]
        period = min(gaps) if gaps else ctx.fps // 2
        yield (SnapToBeats(max(1, period // 2)),), "snap_to_beats"


def _recount(state: M.State, count: int) -> M.Ops | None:
    """Inserts or removals that bring the shot count to ``count``."""
    if count == state.n:
        return ()
    if count < state.n:
        victims = state.expendable()[: state.n - count]
        return M.remove_ops(victims) if len(victims) == state.n - count else None
    clips = M.filler(state, count - state.n)
    if len(clips) < count - state.n:
        return None
    return M.insert_ops(state, clips, state.ctx.pref)


def music(state: M.State, rule: L.Music) -> Iterator[Labelled]:
    """The ``music`` rule's track, placed where the cut fits it best."""
    ctx = state.ctx
    track = ctx.task.tracks.get(rule.track_id)
    if track is None:
        return
    yield from _placements(state, track.id)


def _placements(state: M.State, track_id: str) -> Iterator[Labelled]:
    """``set_music`` at the offsets that land most cuts on beats and the end on a downbeat,
    alone and followed by a re-cut; when the track is too short, a shorter cut under it."""
    ctx = state.ctx
    track = ctx.task.tracks[track_id]
    starts = list(track.downbeats) or list(track.beats) or [0]
    shifted = [d - state.total for d in track.downbeats if d >= state.total]
    fitting = [s for s in dict.fromkeys([*starts, *shifted]) if s + state.total <= track.duration]
    if fitting:
        near = ctx.verifier.near_beats(track, ctx.beat_tolerance) if track.beats else frozenset()
        closing = ctx.near_downbeats(track)
        cuts = list(_cut_positions(state))

        def fit(start: int) -> tuple[int, int]:
            aligned = sum((c + start) in near for c in cuts)
            return (aligned + len(cuts) * ((state.total + start) in closing), -start)

        current = state.timeline.music
        for start in sorted(fitting, key=fit, reverse=True)[:2]:
            if current is not None and current.track_id == track_id and current.offset == start:
                continue
            yield (SetMusic(track_id, start),), f"set_music@{start}"
            ops = M.then_retime(state, (SetMusic(track_id, start),))
            if ops:
                yield ops, f"set_music+recut@{start}"
    else:
        placement = place_music(ctx, track, min(state.total, ctx.len_hi))
        start = placement.offset if placement else starts[0]
        room = track.duration - start
        if room > 0:
            ops = M.then_retime(state, (), min(room, best_end(ctx, ctx.grid(placement))))
            if ops:
                yield (*ops, SetMusic(track_id, start)), f"shorten+set_music@{start}"


def shift_music(state: M.State, rule: L.Constraint | None) -> Iterator[Labelled]:
    """Beats or the closing downbeat missed: move the placed track under the cut; place the
    best tracks when none is placed or the placed one has no beats to cut on (even against
    a ``music`` rule: the search weighs which rule costs less)."""
    tracks = state.ctx.task.tracks
    music = state.timeline.music
    placed = tracks.get(music.track_id) if music is not None else None
    if placed is not None:
        yield from _placements(state, placed.id)
    if placed is None or not placed.beats:
        for track in track_order(state.ctx)[:2]:
            if track is not placed:
                yield from _placements(state, track.id)


def _cut_positions(state: M.State) -> Iterator[int]:
    position = 0
    for length in state.lengths[:-1]:
        position += length
        yield position
