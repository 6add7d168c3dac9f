"""Timing for the search proposer: music placement, the timeline's end, shot lengths on beats.

Cuts go on the placed track's beats and the edit ends on a downbeat whenever the rules
allow. :func:`plan_lengths` cuts a fresh grid for the draft (a shortest path over beat
positions); :func:`retime` re-cuts an existing sequence of shots to a new end, one cut at a
time, keeping every cut on a beat and every shot inside its window and its media.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from services.planner.proposers.search_context import Grid, SearchContext, shot_handles
from services.verifier.pool import MusicTrack
from services.verifier.timeline import MusicPlacement, Shot

INFEASIBLE = float("inf")


def track_order(ctx: SearchContext) -> list[MusicTrack]:
    """Tracks to try: the ``music`` rule's track first, then beat grids matching the mood,
    longest first (the others matter when the rule's track cannot work)."""
    brief = f"{ctx.task.brief.text} {ctx.task.brief.style}".lower()
    return sorted(
        ctx.task.tracks.values(),
        key=lambda t: (
            t.id != ctx.music_track,
            not t.beats,
            not (t.mood and t.mood.lower() in brief),
            -t.duration,
            t.id,
        ),
    )


def place_music(ctx: SearchContext, track: MusicTrack, length: int) -> MusicPlacement | None:
    """The track from its first downbeat (else beat, else 0) that leaves ``length`` frames."""
    for start in (*track.downbeats, *track.beats[:1], 0):
        if start >= 0 and start + length <= track.duration:
            return MusicPlacement(track.id, start, 0)
    return None


def best_end(
    ctx: SearchContext,
    grid: Grid | None,
    near: int | None = None,
    *,
    cap: int | None = None,
    floor: int | None = None,
) -> int:
    """The timeline length to aim for: inside the duration window (and the track, and
    ``floor``–``cap``), on a downbeat (else a beat) when one falls inside, closest to ``near``
    (default: the target). When the window is out of reach, the longest point below it."""
    goal = ctx.target if near is None else near
    low, high = ctx.len_lo, ctx.len_hi
    if cap is not None:
        high = min(high, cap)
    if floor is not None and floor <= high:
        low = max(low, floor)
    if grid is not None:
        high = min(high, grid.room)
        if low > high:  # the window is out of reach: the longest reachable grid point
            low = max(1, high - 4 * ctx.shot_hi if ctx.shot_hi < 10**9 else 1)
            goal = high
        for points in (grid.downbeats, grid.beats):
            inside = grid.between(points, low, high)
            if inside:
                return min(inside, key=lambda p: (abs(p - goal), p))
    return max(1, min(max(goal, low), high))


def plan_lengths(ctx: SearchContext, grid: Grid | None, end: int, cap: int) -> list[int]:
    """Shot lengths adding up to ``end``: cuts on beats, lengths in the shot window and near
    the pacing band, at most ``cap`` shots (a shortest path over the beat positions)."""
    cap = max(1, cap)
    if grid is not None and grid.beats:
        positions = [0, *(b for b in grid.beats if 0 < b < end), end]
        pref = ctx.pref
        for _ in range(3):
            lengths = _shortest_cut(ctx, positions, pref)
            if lengths is None or len(lengths) <= cap:
                break
            pref = max(pref + 1, end // cap)
        if lengths is not None and len(lengths) <= cap:
            return lengths
    return even_lengths(ctx, end, cap)


def _cost(ctx: SearchContext, length: int, pref: int) -> float:
    if length < ctx.shot_lo or length > ctx.shot_hi:
        return INFEASIBLE
    cost = ((length - pref) / pref) ** 2
    if length < ctx.pref_lo or length > ctx.pref_hi:
        cost += 1.0
    return cost


def _shortest_cut(ctx: SearchContext, positions: list[int], pref: int) -> list[int] | None:
    best = [INFEASIBLE] * len(positions)
    back = [-1] * len(positions)
    best[0] = 0.0
    high = ctx.shot_hi
    for j in range(1, len(positions)):
        pj = positions[j]
        i = j - 1
        while i >= 0 and pj - positions[i] <= high:
            if best[i] < INFEASIBLE:
                value = best[i] + _cost(ctx, pj - positions[i], pref)
                if value < best[j]:
                    best[j], back[j] = value, i
            i -= 1
    if best[-1] == INFEASIBLE:
        return None
    lengths = []
    j = len(positions) - 1
    while j > 0:
        lengths.append(positions[j] - positions[back[j]])
        j = back[j]
    return lengths[::-1]


def even_lengths(ctx: SearchContext, end: int, cap: int) -> list[int]:
    """``end`` frames in near-equal shots, as many as the preferred length suggests."""
    count = max(1, min(cap, round(end / max(ctx.pref, 1))))
    while count < cap and end / count > ctx.shot_hi:
        count += 1
    while count > 1 and end / count < ctx.shot_lo:
        count -= 1
    base, extra = divmod(end, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def retime(
    ctx: SearchContext, shots: Sequence[Shot], end: int, grid: Grid | None
) -> list[int] | None:
    """New lengths for ``shots`` (same clips, same order) that add up to ``end``.

    Cut ``k`` goes to the beat nearest its proportional place, inside the window its shot
    and the remaining shots allow (shot window, media less handles). None when the shots
    cannot fill ``end`` at all.
    """
    n = len(shots)
    if n == 0 or end <= 0:
        return None
    lows, highs = [], []
    for i, shot in enumerate(shots):
        before, after = shot_handles(shots, i)
        media = ctx.media(shot.clip_id) - before - after
        covered = shot.transition_in.duration if i == 0 else shot.transition_in.after_cut
        if i + 1 < n:
            covered += shots[i + 1].transition_in.before_cut
        lows.append(max(ctx.shot_lo, covered, 1))
        highs.append(max(1, min(ctx.shot_hi, media)))
    if sum(highs) < end:
        return None
    suffix_lo, suffix_hi = [0] * (n + 1), [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix_lo[i] = suffix_lo[i + 1] + lows[i]
        suffix_hi[i] = suffix_hi[i + 1] + highs[i]
    total = sum(shot.length for shot in shots)
    beats = grid.beats if grid is not None else ()
    cuts: list[int] = []
    previous = elapsed = 0
    for k in range(n - 1):
        elapsed += shots[k].length
        ideal = round(elapsed * end / total)
        low = max(previous + lows[k], end - suffix_hi[k + 1])
        high = min(previous + highs[k], end - suffix_lo[k + 1])
        if low > high:
            low = high = max(previous + 1, min(high, end - (n - k - 1)))
        cut = min(max(ideal, low), high)
        if beats and grid is not None:
            inside = grid.between(beats, low, high)
            if inside:
                cut = min(inside, key=lambda b: (abs(b - ideal), b))
        cuts.append(cut)
        previous = cut
    edges = [0, *cuts, end]
    lengths = [b - a for a, b in pairwise(edges)]
    return lengths if min(lengths) > 0 else None
