"""Selection repairs: which clips the shots use and in what order.

Aimed at ``must_include``, ``must_exclude``, ``orientation``, ``no_reuse``, ``order``,
``transitions``, ``max_consecutive_tag``, ``coverage`` and clips too short for
``shot_length``. Each generator yields ``(ops, label)``; the search judges them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from services.planner.proposers import moves as M
from services.planner.proposers import repair_timing as T
from services.planner.proposers.search_context import shot_handles, shot_source
from services.verifier import ledger as L
from services.verifier.patches import Move, Op, Replace, SetTransition, Swap, Trim
from services.verifier.timeline import CUT, FrameRange, Transition

Labelled = tuple[M.Ops, str]


def _must_include(state: M.State, rule: L.MustInclude) -> Iterator[Labelled]:
    ctx = state.ctx
    pool = ctx.verifier.matching(rule.selector)
    have = sum(c in pool for c in state.ids)
    missing = rule.min_count - have
    if missing <= 0 or not pool:
        return
    spots = [i for i in state.expendable() if state.ids[i] not in pool]
    if len(spots) >= missing:
        ops = M.replace_many(state, spots[:missing], [pool] * missing)
        if ops:
            yield ops, "replace"
    if missing == 1:
        for spot in spots[1:3]:
            yield from (
                ((op,), "replace_alt") for op in M.replacements(state, spot, 1, within=pool)
            )
    clips = [c for c in ctx.ranked if c in pool and state.uses[c] < ctx.max_uses][:missing]
    if len(clips) == missing:
        prefix = M.insert_ops(state, clips, ctx.pref)
        if prefix:
            ops = M.then_retime(state, prefix, state.total)
            if ops:
                yield ops, "insert"


def _offenders(state: M.State, rule: L.Constraint) -> list[int]:
    ctx = state.ctx
    if isinstance(rule, L.MustExclude):
        bad = ctx.verifier.matching(rule.selector)
        return [i for i, c in enumerate(state.ids) if c in bad]
    if isinstance(rule, L.OrientationRule):
        fitting = ctx.verifier.clips_with_orientation(rule.value)
        return [i for i, c in enumerate(state.ids) if c not in fitting]
    if isinstance(rule, L.NoReuse):
        seen: dict[str, list[FrameRange]] = {}
        out = []
        for i, shot in enumerate(state.shots):
            ranges = seen.setdefault(shot.clip_id, [])
            if len(ranges) >= rule.max_uses or any(r.overlaps(shot.source) for r in ranges):
                out.append(i)
            else:
                ranges.append(shot.source)
        return out
    return []


def _replace_offenders(state: M.State, rule: L.Constraint) -> Iterator[Labelled]:
    bad = _offenders(state, rule)
    if not bad:
        return
    ctx = state.ctx
    allowed = [c for c in ctx.allowed if c not in state.uses]
    ops = M.replace_many(state, bad, [allowed or None] * len(bad))
    if ops:
        yield ops, "replace_all"
    for i in bad[:3]:
        yield from (((op,), "replace") for op in M.replacements(state, i, 2))
        yield from _hand_over(state, i, bad)
    if len(bad) < state.n:
        ops = M.then_retime(state, M.remove_ops(bad), state.total)
        if ops:
            yield ops, "remove"


def _no_reuse(state: M.State, rule: L.NoReuse) -> Iterator[Labelled]:
    """Repeats whose range overlaps another use of the clip move to an unused stretch of it
    (one patch for all that can); then the replacements every offender gets."""
    bad = _offenders(state, rule)
    ops: list[Op] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for i, shot in enumerate(state.shots):
        if i not in bad:
            taken.setdefault(shot.clip_id, []).append((shot.source.start, shot.source.end))
    for i in bad:
        shot = state.shots[i]
        uses = taken.setdefault(shot.clip_id, [])
        if len(uses) >= rule.max_uses:
            continue  # used up: only a replacement helps
        span = _free_span(state, i, uses)
        if span is not None:
            uses.append(span)
            ops.append(Trim(i, FrameRange(*span)))
    if ops:
        yield tuple(ops), "retrim"
    yield from _replace_offenders(state, rule)


def _free_span(state: M.State, i: int, uses: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Shot ``i``'s length of its clip, with its handles, overlapping none of ``uses``."""
    shot = state.shots[i]
    before, after = shot_handles(state.shots, i)
    media = state.ctx.media(shot.clip_id)
    cursor = 0
    for start, end in [*sorted(uses), (media, media)]:
        low = cursor + before
        if start - after - low >= shot.length:
            return low, low + shot.length
        cursor = max(cursor, end)
    return None


def _hand_over(state: M.State, i: int, bad: list[int]) -> Iterator[Labelled]:
    """Shot ``i`` must go but does a job (opens the edit, covers a topic…) that another
    shot on the timeline could do: exchange the two, then replace the offender there."""
    roles = state.ctx.roles(state.timeline, i) if state.ids[i] in state.ctx.clips else []
    if not roles:
        return
    for j, clip in enumerate(state.ids):
        if j == i or j in bad or not all(clip in role for role in roles):
            continue
        swap = M.exchange(state, i, j)
        then = state.then(swap)
        if then is None:
            continue
        for op in M.replacements(then, j, 1):
            yield (*swap, op), "hand_over"
        return


def _order(state: M.State, rule: L.Order) -> Iterator[Labelled]:
    ctx = state.ctx
    n = state.n
    for position, selector in ((0, rule.first), (n - 1, rule.last)):
        if selector is None:
            continue
        pool = ctx.verifier.matching(selector)
        if state.ids[position] in pool:
            continue
        inside = [i for i, c in enumerate(state.ids) if c in pool and i != position]
        for j in inside[:2] if position == 0 else inside[-2:]:
            yield M.exchange(state, position, j), "exchange"
            yield (Swap(position, j),), "swap"
            yield (Move(j, position),), "move"
        for op in M.replacements(state, position, 2, within=pool):
            yield (op,), "replace"
    if rule.before is not None and rule.after is not None:
        before, after = ctx.verifier.matching(rule.before), ctx.verifier.matching(rule.after)
        yield from _regroups(state, (), before, after)
        both = [i for i, c in enumerate(state.ids) if c in before and c in after]
        if len(both) > 1:  # only one shot may sit in both groups: replace the others
            keep = max(both, key=lambda i: (ctx.relevance.get(state.ids[i], 0), -i))
            spots = [i for i in both if i != keep]
            outside = [c for c in ctx.ranked if not (c in before and c in after)]
            prefix = M.replace_many(state, spots, [outside] * len(spots))
            if prefix:
                yield prefix, "replace_two_sided"
                yield from _regroups(state, prefix, before, after)


def _regroups(
    state: M.State, prefix: M.Ops, before: frozenset[str], after: frozenset[str]
) -> Iterator[Labelled]:
    """After ``prefix``: the before/after regrouping in place (slot lengths kept), as moves,
    and as moves followed by a re-cut."""
    then = state.then(prefix) if prefix else state
    if then is None:
        return
    label = "+regroup" if prefix else "regroup"
    ops = _regroup(then, before, after)
    if ops:
        yield (*prefix, *ops), label
    moved = _regroup_moves(then, before, after)
    if moved:
        yield (*prefix, *moved), label + "_moves"
        recut = M.then_retime(then, moved, then.total)
        if recut:
            yield (*prefix, *recut), label + "_moves+recut"


def _regroup(state: M.State, before: frozenset[str], after: frozenset[str]) -> M.Ops | None:
    """Reorder the shots of both groups (in their slots): ``before`` ones first."""
    slots = [i for i, c in enumerate(state.ids) if c in before or c in after]
    order = sorted(slots, key=lambda i: (state.ids[i] not in before, state.ids[i] in after, i))
    if order == slots:
        return None
    ops: list[Op] = []
    ctx, shots = state.ctx, state.shots
    for slot, source in zip(slots, order, strict=True):
        if slot == source:
            continue
        before_h, after_h = shot_handles(shots, slot)
        span = shot_source(
            ctx,
            shots[source].clip_id,
            shots[slot].length,
            before=before_h,
            after=after_h,
            prefer=shots[source].source.start,
        )
        if span is None:
            return None
        ops.append(Replace(slot, shots[source].clip_id, FrameRange(*span)))
    return tuple(ops)


def _regroup_moves(state: M.State, before: frozenset[str], after: frozenset[str]) -> M.Ops | None:
    """The same regrouping as ``move`` ops: each shot travels with its length."""
    slots = [i for i, c in enumerate(state.ids) if c in before or c in after]
    order = sorted(slots, key=lambda i: (state.ids[i] not in before, state.ids[i] in after, i))
    if order == slots:
        return None
    target = list(range(state.n))
    for slot, source in zip(slots, order, strict=True):
        target[slot] = source
    return _permutation(target)


def _permutation(target: list[int]) -> M.Ops:
    """``move`` ops turning shots ``0..n-1`` into the order ``target`` (old indices)."""
    current = list(range(len(target)))
    ops: list[Op] = []
    for position, wanted in enumerate(target):
        at = current.index(wanted)
        if at != position:
            ops.append(Move(at, position))
            current.insert(position, current.pop(at))
    return tuple(ops)


def _transitions(state: M.State, rule: L.Transitions) -> Iterator[Labelled]:
    allowed, lo, hi = rule.allowed, rule.min_duration, rule.max_duration
    cut_ok, kind, duration = state.ctx.allowed_transitions()
    ops: list[Op] = []
    used = 0
    for i, shot in enumerate(state.shots):
        t = shot.transition_in
        if t.type == CUT.type:
            if not cut_ok and i > 0 and kind is not None:
                ops += _with_handles(state, i, Transition(kind, duration))
            continue
        bad = (
            (allowed is not None and t.type not in allowed)
            or (lo is not None and t.duration < lo)
            or (hi is not None and t.duration > hi)
        )
        used += 1
        over = rule.max_count is not None and used > rule.max_count
        if bad or over:
            ops.append(
                SetTransition(i, CUT if cut_ok or kind is None else Transition(kind, duration))
            )
    if ops:
        yield tuple(ops), "fix"


def _with_handles(state: M.State, i: int, transition: Transition) -> list[Op]:
    """``set_transition`` plus the trims that give both sides their handles."""
    ctx, shots = state.ctx, state.shots
    ops: list[Op] = []
    incoming, outgoing = shots[i], shots[i - 1]
    need_in = transition.before_cut
    if incoming.source.start < need_in:
        span = shot_source(ctx, incoming.clip_id, incoming.length, before=need_in)
        if span is None:
            return []
        ops.append(Trim(i, FrameRange(*span)))
    need_out = transition.after_cut
    if outgoing.source.end + need_out > ctx.media(outgoing.clip_id):
        before, _ = shot_handles(shots, i - 1)
        span = shot_source(ctx, outgoing.clip_id, outgoing.length, before=before, after=need_out)
        if span is None:
            return []
        ops.append(Trim(i - 1, FrameRange(*span)))
    return [*ops, SetTransition(i, transition)]


def _runs(state: M.State, rule: L.MaxConsecutiveTag) -> Iterator[Labelled]:
    ctx, tag = state.ctx, rule.tag
    tagged = [tag in ctx.clips[c].tags if c in ctx.clips else False for c in state.ids]
    breaks, run = [], 0
    for i, flag in enumerate(tagged):
        run = run + 1 if flag else 0
        if run > rule.max_run:
            breaks.append(i)
            run = 0
    if not breaks:
        return
    plain = [c for c in ctx.ranked if tag not in ctx.clips[c].tags]
    ops = M.replace_many(state, breaks, [plain] * len(breaks))
    if ops:
        yield ops, "replace"
    free = [j for j, flag in enumerate(tagged) if not flag]
    for i in breaks[:2]:
        far = [j for j in free if abs(j - i) > 1 and not _next_to_tag(tagged, j)]
        for j in far[:2]:
            yield M.exchange(state, i, j), "exchange"


def _next_to_tag(tagged: list[bool], j: int) -> bool:
    return any(0 <= k < len(tagged) and tagged[k] for k in (j - 1, j + 1))


def _coverage(state: M.State, rule: L.Coverage) -> Iterator[Labelled]:
    ctx = state.ctx
    pools = [ctx.verifier.clips_with_terms(words) for words in rule.topic_terms]
    missing = [p for p in pools if p.isdisjoint(state.ids) and p]
    if not missing:
        return
    covered = len(pools) - len([p for p in pools if p.isdisjoint(state.ids)])
    need = max(1, round(rule.min_fraction * len(pools) + 0.4999) - covered)
    spots = state.expendable()[:need]
    picked = missing[:need]
    if len(spots) == len(picked):
        ops = M.replace_many(state, spots, picked)
        if ops:
            yield ops, "replace"
    for pool in missing[:3]:
        for spot in state.expendable()[:2]:
            yield from (
                ((op,), "replace_one") for op in M.replacements(state, spot, 1, within=pool)
            )


def _shot_length(state: M.State, rule: L.ShotLength) -> Iterator[Labelled]:
    """Shots whose clip is too short for the window: replace them with clips that have the
    media (at a length inside the window), then re-cut to the best end."""
    ctx = state.ctx
    short = []
    for i, shot in enumerate(state.shots):
        before, after = shot_handles(state.shots, i)
        if ctx.media(shot.clip_id) - before - after < rule.min:
            short.append(i)
    if not short:
        return
    ops: list[Op] = []
    taken: set[str] = set()
    for i in short:
        length = min(max(state.lengths[i], rule.min, ctx.pref_lo), rule.max)
        options = M.replacements(state, i, 1, avoid=taken, length=length)
        if not options:
            return
        ops.append(options[0])
        taken.add(options[0].clip_id)
    yield tuple(ops), "replace_short"
    recut = M.then_retime(state, tuple(ops))
    if recut:
        yield recut, "replace_short+recut"


OPERATORS: dict[str, Callable[[M.State, L.Constraint], Iterator[Labelled]]] = {
    "music": T.music,  # type: ignore[dict-item]
    "shot_length": _shot_length,  # type: ignore[dict-item]
    "beat_alignment": T.shift_music,
    "end_on_downbeat": T.shift_music,
    "must_include": _must_include,  # type: ignore[dict-item]
    "must_exclude": _replace_offenders,
    "orientation": _replace_offenders,
    "no_reuse": _no_reuse,  # type: ignore[dict-item]
    "order": _order,  # type: ignore[dict-item]
    "transitions": _transitions,  # type: ignore[dict-item]
    "max_consecutive_tag": _runs,  # type: ignore[dict-item]
    "coverage": _coverage,  # type: ignore[dict-item]
}
"""The operator for each unmet rule kind (``duration`` and pacing come from the re-cut)."""
