"""Edit helpers the repair operators share: which clip may replace a shot, content
exchanges that keep the cut grid, inserts and removals, and re-timing to a new end.

Every helper returns domain ops (or None when it cannot help); the search scores them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from services.planner.proposers.search_context import (
    SearchContext,
    shot_handles,
    shot_source,
)
from services.planner.proposers.timing import best_end, retime
from services.verifier.errors import PatchRejected
from services.verifier.patches import Insert, Op, Remove, Replace, Swap, Trim, apply_patch
from services.verifier.timeline import FrameRange, Timeline

Ops = tuple[Op, ...]


class State:
    """The timeline under repair and the facts every operator reads."""

    def __init__(self, ctx: SearchContext, timeline: Timeline) -> None:
        self.ctx, self.timeline = ctx, timeline
        self.shots = timeline.shots
        self.ids = [shot.clip_id for shot in self.shots]
        self.n = len(self.ids)
        self.lengths = [shot.length for shot in self.shots]
        self.total = sum(self.lengths)
        self.uses = Counter(self.ids)
        self.grid = ctx.grid(timeline.music)

    def then(self, ops: Iterable[Op]) -> State | None:
        """The state after ``ops`` (None when they do not apply)."""
        try:
            return State(self.ctx, apply_patch(self.ctx.task, self.timeline, tuple(ops)))
        except PatchRejected:
            return None

    def expendable(self, *, keep: Iterable[int] = ()) -> list[int]:
        """Positions cheapest to give up: excluded clips first, then shots with no rule
        depending on them, then the least relevant; fixed ``keep`` positions never."""
        ctx, kept = self.ctx, set(keep)
        if ctx.first:
            kept.add(0)
        if ctx.last:
            kept.add(self.n - 1)
        order = []
        for i, clip in enumerate(self.ids):
            if i in kept:
                continue
            penalty = ctx.penalty.get(clip, 1000.0)
            roles = len(ctx.roles(self.timeline, i)) if clip in ctx.clips else 0
            duplicate = self.uses[clip] > 1
            order.append((-penalty, -duplicate, roles, ctx.relevance.get(clip, 0.0), i))
        return [entry[-1] for entry in sorted(order)]

    def runs_ok(self, ids: Sequence[str]) -> bool:
        clips = self.ctx.clips
        for tag, limit in self.ctx.runs:
            run = 0
            for clip in ids:
                run = run + 1 if clip in clips and tag in clips[clip].tags else 0
                if run > limit:
                    return False
        return True


def replacements(
    state: State,
    position: int,
    k: int,
    *,
    within: Iterable[str] | None = None,
    avoid: Iterable[str] = (),
    roles: list[frozenset[str]] | None = None,
    length: int | None = None,
) -> list[Replace]:
    """Up to ``k`` ``replace`` ops for shot ``position``, best first: clips that keep the
    shot's roles, are allowed and unused, keep tag runs short and differ from neighbours.
    ``length`` (default: the shot's) is how long the new shot runs."""
    ctx, ids = state.ctx, state.ids
    current = ids[position]
    if roles is None:
        roles = ctx.roles(state.timeline, position) if current in ctx.clips else []
    before, after = shot_handles(state.shots, position)
    length = state.lengths[position] if length is None else length
    prefer = state.shots[position].source.start
    neighbours = [ids[j] for j in (position - 1, position + 1) if 0 <= j < state.n]
    avoid = set(avoid)
    scored = []
    for clip in within if within is not None else ctx.ranked:
        if clip == current or clip in avoid or state.uses[clip] >= ctx.max_uses:
            continue
        span = shot_source(ctx, clip, length, before=before, after=after, prefer=prefer)
        if span is None:
            continue
        trial = [*ids[:position], clip, *ids[position + 1 :]]
        variety = sum(ctx.variety(clip, other) for other in neighbours if other in ctx.clips)
        scored.append(
            (
                sum(clip in role for role in roles),
                -ctx.penalty[clip],
                state.runs_ok(trial),
                ctx.relevance[clip] + 0.05 * variety,
                clip,
                span,
            )
        )
    scored.sort(reverse=True)
    return [Replace(position, entry[4], FrameRange(*entry[5])) for entry in scored[:k]]


def replace_many(
    state: State, positions: Sequence[int], pools: Sequence[Iterable[str] | None]
) -> Ops | None:
    """One ``replace`` per position (each from its pool), never the same clip twice."""
    ops: list[Op] = []
    taken: set[str] = set()
    for position, pool in zip(positions, pools, strict=True):
        options = replacements(state, position, 1, within=pool, avoid=taken)
        if not options:
            return None
        ops.append(options[0])
        taken.add(options[0].clip_id)
    return tuple(ops) if ops else None


def exchange(state: State, a: int, b: int) -> Ops:
    """Trade the clips of shots ``a`` and ``b`` but keep each slot's length (and so every
    cut); a plain ``swap`` when either clip lacks the media for the other slot."""
    ctx, shots = state.ctx, state.shots
    spans = []
    for here, there in ((a, b), (b, a)):
        before, after = shot_handles(shots, here)
        spans.append(
            shot_source(
                ctx,
                shots[there].clip_id,
                shots[here].length,
                before=before,
                after=after,
                prefer=shots[there].source.start,
            )
        )
    if spans[0] is None or spans[1] is None:
        return (Swap(a, b),)
    return (
        Replace(a, shots[b].clip_id, FrameRange(*spans[0])),
        Replace(b, shots[a].clip_id, FrameRange(*spans[1])),
    )


def retime_ops(state: State, end: int) -> Ops | None:
    """``trim`` ops that re-cut the shots to add up to ``end`` on the beat grid."""
    lengths = retime(state.ctx, state.shots, end, state.grid)
    if lengths is None:
        return None
    ops: list[Op] = []
    for i, (shot, length) in enumerate(zip(state.shots, lengths, strict=True)):
        if length == shot.length:
            continue
        before, after = shot_handles(state.shots, i)
        span = shot_source(
            state.ctx, shot.clip_id, length, before=before, after=after, prefer=shot.source.start
        )
        if span is None:
            return None
        ops.append(Trim(i, FrameRange(*span)))
    return tuple(ops)


def then_retime(state: State, prefix: Ops, end: int | None = None) -> Ops | None:
    """``prefix`` followed by a re-cut to ``end`` (default: the best end near the new
    length) on the grid of the track placed after ``prefix``."""
    after = state.then(prefix) if prefix else state
    if after is None or after.n == 0:
        return None
    goal = best_end(state.ctx, after.grid, after.total) if end is None else end
    trims = retime_ops(after, goal)
    if trims is None:
        return prefix or None
    return (*prefix, *trims)


def filler(state: State, count: int, *, avoid: Iterable[str] = ()) -> list[str]:
    """The ``count`` best clips not on the timeline (allowed first, most relevant)."""
    ctx, avoid = state.ctx, set(avoid)
    out = []
    for clip in ctx.ranked:
        if len(out) >= count:
            break
        if state.uses[clip] < ctx.max_uses and clip not in avoid and ctx.media(clip) >= ctx.shot_lo:
            out.append(clip)
    return out


def insert_ops(state: State, clips: Sequence[str], length: int) -> Ops | None:
    """Insert ``clips`` (``length`` frames each) spread through the timeline, never as the
    opening or closing shot when an ``order`` rule fixes those."""
    ctx = state.ctx
    ops: list[Op] = []
    n = state.n
    low = 1 if ctx.first and n > 0 else 0
    high = n - 1 if ctx.last and n > 0 else n
    for k, clip in enumerate(clips):
        span = shot_source(ctx, clip, length) or shot_source(
            ctx, clip, min(length, ctx.media(clip))
        )
        if span is None:
            return None
        width = max(high - low, 0)
        at = low + (width * (2 * k + 1)) // (2 * len(clips)) + k if width else low + k
        ops.append(Insert(min(at, n + k), clip, FrameRange(*span)))
    return tuple(ops)


def remove_ops(positions: Iterable[int]) -> Ops:
    """Remove shots, highest index first so the others keep their positions."""
    return tuple(Remove(i) for i in sorted(set(positions), reverse=True))


def shot_count(state: State, end: int) -> int:
    """How many shots ``end`` frames want at the preferred length (inside the window)."""
    ctx = state.ctx
    count = max(1, round(end / max(ctx.pref, 1)))
    count = max(count, math.ceil(end / max(ctx.shot_hi, 1)))
    return max(1, min(count, end // max(ctx.shot_lo, 1) or 1))
