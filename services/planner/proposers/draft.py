"""The search proposer's first cut, built to meet the ledger rather than repaired into it.

1. Music: the ``music`` rule's track, else the beat-gridded track matching the mood, else the
   longest; placed from a downbeat so the edit fits under it.
2. Length: the duration target (else the middle of its range), moved to the nearest
   downbeat inside the range and the track.
3. Shot lengths: a shortest path over the beat positions — every cut on a beat, every shot
   inside the ``shot_length`` window and as near the style's pacing band as it allows.
4. Clips: the opening and closing shots from the ``order`` selectors, then the clips that
   ``must_include`` and ``coverage`` need, then the most brief-relevant allowed clips
   (``must_exclude``, ``orientation`` and ``no_reuse`` respected while clips remain).
5. Order: slot by slot, the pick that keeps tag runs short, puts ``before`` shots ahead of
   ``after`` shots and differs most from its neighbour; in points leave handles on both
   sides; cuts everywhere unless the ``transitions`` rule forbids them.

A few variants (music plans × tie-breaks drawn from ``seed``) are judged by the verifier
and the best one is returned.
"""

from __future__ import annotations

import math
from collections import Counter
from random import Random

from services.planner.proposers.search_context import HARD_PENALTY, SearchContext, shot_source
from services.planner.proposers.timing import best_end, place_music, plan_lengths, track_order
from services.verifier.timeline import CUT, FrameRange, MusicPlacement, Shot, Timeline, Transition

ATTEMPTS = 2


def draft_timeline(ctx: SearchContext, seed: int) -> Timeline:
    """The best of a few constructive cuts for ``ctx.task`` (always executable when any
    clip has media)."""
    if not ctx.clips:
        return Timeline(fps=ctx.fps)  # nothing to cut: the verifier says so
    rng = Random(f"search-draft:{ctx.task.id}:{seed}")
    best: tuple[tuple[bool, float], Timeline] | None = None
    for music, end in _plans(ctx):
        lengths = plan_lengths(ctx, ctx.grid(music), end, _capacity(ctx, end))
        for attempt in range(ATTEMPTS):
            ids = choose_clips(ctx, lengths, rng if attempt else None)
            timeline = assemble(ctx, ids, lengths, music)
            report = ctx.verifier.verify(timeline)
            key = (report.executable, report.ves)
            if best is None or key > best[0]:
                best = (key, timeline)
    assert best is not None
    return best[1]


def _plans(ctx: SearchContext) -> list[tuple[MusicPlacement | None, int]]:
    """(music placement, end frame) pairs worth drafting."""
    media = int(sum(min(ctx.media(c), ctx.shot_hi) for c in ctx.allowed) * 0.9)
    cap = media if media < ctx.len_lo else None  # too little media for the window
    goal = max(1, min(best_end(ctx, None), media or ctx.target))
    plans: list[tuple[MusicPlacement | None, int]] = []
    for track in track_order(ctx)[:2]:
        placement = place_music(ctx, track, goal)
        if placement is None:
            starts = [s for s in (*track.downbeats, *track.beats, 0) if s < track.duration]
            placement = MusicPlacement(track.id, starts[0], 0)
        grid = ctx.grid(placement)
        plans.append((placement, best_end(ctx, grid, goal, cap=cap)))
        if grid is not None and grid.beats and grid.room >= ctx.len_lo:
            break
    if not plans or plans[0][1] < ctx.len_lo:
        plans.append((None, goal))
    return plans


def _capacity(ctx: SearchContext, end: int) -> int:
    """How many distinct shots the allowed clips can fill (all clips when too few)."""
    needed = math.ceil(end / max(ctx.shot_hi, 1))
    usable = [c for c in ctx.allowed if ctx.media(c) >= ctx.shot_lo]
    if len(usable) >= needed:
        return len(usable) * ctx.max_uses
    return len(ctx.ranked) * ctx.max_uses


class _Picker:
    """Chooses which clips fill the free slots, then the order they play in."""

    def __init__(self, ctx: SearchContext, lengths: list[int], rng: Random | None) -> None:
        self.ctx, self.lengths, self.rng = ctx, lengths, rng
        self.uses: Counter[str] = Counter()
        self.slots: list[str | None] = [None] * len(lengths)
        self.picks: list[str] = []
        self.required: set[str] = set()
        # drawn in a fixed order, so the tie-breaks do not depend on set iteration order
        self.jitter = {c: rng.random() * 0.02 for c in ctx.ranked} if rng is not None else {}

    def score(self, clip_id: str) -> float:
        return self.ctx.relevance[clip_id] - self.ctx.penalty[clip_id] + self.jitter.get(clip_id, 0)

    def free(self, clip_id: str, length: int) -> bool:
        return (
            self.uses[clip_id] < self.ctx.max_uses
            and self.ctx.media(clip_id) >= length
            and not self.two_sided(clip_id)
        )

    def two_sided(self, clip_id: str) -> bool:
        """A second clip in both groups of a before/after rule cannot be placed without an
        inversion: one such clip at most."""
        return any(
            clip_id in before
            and clip_id in after
            and any(c in before and c in after for c in self.chosen())
            for before, after in self.ctx.before_after
        )

    def best(self, candidates: frozenset[str] | list[str], length: int, bonus=None) -> str | None:
        options = [c for c in candidates if self.free(c, length)]
        if not options:
            return None
        # a hard-excluded clip only when nothing else is left, whatever the bonus
        return max(
            options,
            key=lambda c: (
                self.ctx.penalty[c] < HARD_PENALTY,
                (bonus(c) if bonus else 0),
                self.score(c),
                c,
            ),
        )

    def chosen(self) -> list[str]:
        return [c for c in self.slots if c is not None] + self.picks

    def take(self, clip_id: str, *, required: bool) -> None:
        self.picks.append(clip_id)
        self.uses[clip_id] += 1
        if required:
            self.required.add(clip_id)


def choose_clips(ctx: SearchContext, lengths: list[int], rng: Random | None) -> list[str]:
    """One clip id per slot of ``lengths``, meeting the selection rules as far as it can."""
    picker = _Picker(ctx, lengths, rng)
    n = len(lengths)
    ends = [(0, ctx.first), (n - 1, ctx.last)]
    # the end with fewer candidates chooses first (one clip may be all that fits it)
    ends.sort(key=lambda end: len(frozenset().union(*end[1])) if end[1] else 0)
    for index, selectors in ends:
        if selectors and picker.slots[index] is None:
            union = frozenset().union(*selectors)
            # the opening shot should not be an ``after`` shot, the closing one no ``before``
            side = 1 if index == 0 else 0
            clip = picker.best(
                union,
                lengths[index],
                lambda c, s=selectors, k=side: (
                    sum(c in x for x in s),
                    -sum(c in pair[k] for pair in ctx.before_after),
                ),
            )
            if clip is not None:
                picker.slots[index] = clip
                picker.uses[clip] += 1
    open_slots = sum(1 for s in picker.slots if s is None)
    shortest = min((lengths[i] for i in range(n) if picker.slots[i] is None), default=0)
    _take_needs(ctx, picker, open_slots, shortest)
    _take_fill(ctx, picker, open_slots, shortest)
    _balance_runs(ctx, picker, shortest)
    return _arrange(ctx, picker)


def _take_needs(ctx: SearchContext, picker: _Picker, room: int, length: int) -> None:
    for need in ctx.includes:
        have = sum(c in need.clips for c in picker.chosen())
        while have < need.count and len(picker.picks) < room:
            others = [x.clips for x in ctx.includes if x is not need]
            clip = picker.best(
                need.clips,
                length,
                lambda c, o=others: -ctx.penalty[c] * 100 + sum(c in x for x in o),
            )
            if clip is None or (ctx.penalty[clip] >= HARD_PENALTY and not need.hard):
                break
            picker.take(clip, required=True)
            have += 1
    for topics, required in ctx.coverage:
        while len(picker.picks) < room:
            chosen = picker.chosen()
            covered = [t for t in topics if not t.isdisjoint(chosen)]
            if len(covered) >= required:
                break
            missing = [t for t in topics if t.isdisjoint(chosen)]
            options = [
                c
                for t in missing
                if (c := picker.best(t, length)) is not None and ctx.penalty[c] < HARD_PENALTY
            ]
            if not options:
                break
            clip = max(
                options,
                key=lambda c: (-ctx.penalty[c], sum(c in t for t in missing), picker.score(c), c),
            )
            picker.take(clip, required=True)


def _take_fill(ctx: SearchContext, picker: _Picker, room: int, length: int) -> None:
    for pool in (ctx.allowed, ctx.ranked):
        for _ in range(ctx.max_uses):
            ranked = sorted(pool, key=lambda c: (-picker.score(c), c))
            for clip in ranked:
                if len(picker.picks) >= room:
                    return
                if picker.free(clip, length) and (pool is ctx.ranked or picker.uses[clip] == 0):
                    picker.take(clip, required=False)
            if pool is ctx.allowed:
                break


def _balance_runs(ctx: SearchContext, picker: _Picker, length: int) -> None:
    """Swap filler clips for untagged ones while a tag has too many clips to space out."""
    for tag, limit in ctx.runs:
        for _ in range(len(picker.picks)):
            tagged = [c for c in picker.picks if tag in ctx.clips[c].tags]
            plain = len(picker.picks) - len(tagged)
            if len(tagged) <= limit * (plain + 1):
                break
            spare = [c for c in tagged if c not in picker.required]
            if not spare:
                break
            victim = min(spare, key=lambda c: (picker.score(c), c))
            options = [c for c in ctx.allowed if tag not in ctx.clips[c].tags]
            clip = picker.best(options, length)
            if clip is None:
                break
            picker.picks.remove(victim)
            picker.uses[victim] -= 1
            picker.take(clip, required=False)


def _arrange(ctx: SearchContext, picker: _Picker) -> list[str]:
    """Fill the free slots in order, each with the pick that fits best after the last."""
    slots = picker.slots
    remaining = list(picker.picks)
    sequence: list[str] = []
    for index, fixed in enumerate(slots):
        if fixed is not None:
            sequence.append(fixed)
            continue
        after = slots[index + 1] if index + 1 < len(slots) else None
        options = list(dict.fromkeys(remaining)) or list(ctx.ranked[:1])
        clip = max(
            options,
            key=lambda c: _slot_key(
                ctx, picker, c, picker.lengths[index], sequence, after, remaining
            ),
        )
        sequence.append(clip)
        if clip in remaining:
            remaining.remove(clip)
    return sequence


def _slot_key(
    ctx: SearchContext,
    picker: _Picker,
    clip: str,
    length: int,
    sequence: list[str],
    after: str | None,
    remaining: list[str],
) -> tuple:
    """Fits the slot, keeps tag runs short, leaves no ``before`` shot behind an ``after``
    one, differs from its neighbours, relevant — in that order of importance."""
    fits = ctx.media(clip) >= length
    runs = ctx.run_breaker(sequence, clip) and (
        after is None or ctx.run_breaker([*sequence, clip], after)
    )
    order = not any(
        clip in a and any(r in b for r in remaining if r != clip) for b, a in ctx.before_after
    )
    variety = ctx.variety(sequence[-1], clip) if sequence else 1.0
    if after is not None:
        variety += ctx.variety(clip, after)
    return (fits, runs, order, round(variety, 6), picker.score(clip), clip)


def assemble(
    ctx: SearchContext, ids: list[str], lengths: list[int], music: MusicPlacement | None
) -> Timeline:
    """Shots for ``ids`` at ``lengths`` (in points leave handles), with transitions only where
    the ``transitions`` rule forbids cuts."""
    n = len(ids)
    cut_ok, kind, duration = ctx.allowed_transitions()
    transitions = [CUT] * n
    if not cut_ok and kind is not None:
        rule = ctx.transition_rule
        limit = rule.max_count if rule is not None and rule.max_count is not None else n
        for i in range(1, min(n, limit + 1)):
            transitions[i] = Transition(kind, duration)
    shots = []
    taken: dict[str, int] = {}  # a reused clip continues after its previous range
    for i, (clip, length) in enumerate(zip(ids, lengths, strict=True)):
        before = transitions[i].before_cut if i > 0 else 0
        after = transitions[i + 1].after_cut if i + 1 < n else 0
        prefer = taken.get(clip)
        span = shot_source(
            ctx,
            clip,
            length,
            before=before,
            after=after,
            prefer=None if prefer is None else prefer + before,
        )
        if span is None:
            fit = min(length, ctx.media(clip) - before - after)
            span = shot_source(ctx, clip, fit, before=before, after=after) if fit > 0 else None
        if span is None:
            transitions[i] = CUT if i > 0 else transitions[i]
            span = (0, max(1, min(length, ctx.media(clip))))
        taken[clip] = span[1]
        shots.append(Shot(clip, FrameRange(*span), transitions[i]))
    return Timeline(fps=ctx.fps, shots=tuple(shots), music=music)
