"""The search proposer's first cut: one pass over the task, no verdict asked.

The draft is the one-shot proposal the loop starts from. It lays out the cut's timing from
the ledger and fills it with the most brief-relevant clips; meeting the rest of the ledger
(what must appear, in which order, tag runs, coverage, transitions) is the loop's work, one
verifier-judged round at a time, each round a scored record. It never calls the verifier.

1. Music: the first of :func:`~services.planner.proposers.timing.track_order` (the
   ``music`` rule's track, else a beat-gridded track matching the mood, else the longest),
   placed from a downbeat so the edit fits under it.
2. Length: the duration target (else the middle of its range), moved to the nearest
   downbeat inside the range and the track.
3. Shot lengths: a shortest path over the beat positions — every cut on a beat, every shot
   inside the ``shot_length`` window and as near the style's pacing band as it allows.
4. Clips: slot by slot, the most brief-relevant clip with media for the slot among those
   no ``must_exclude`` or ``orientation`` rule rules out (any clip when none is left), each
   used at most as often as ``no_reuse`` allows; ``seed`` breaks exact ties.
5. Every transition is a cut, unless the ``transitions`` rule allows no cuts ("dissolves
   only"): then every shot after the first enters with the allowed type, and each shot's
   range leaves the media its transitions need on both sides (clips long enough for that
   are chosen first; a shot whose clip is too short enters on a cut, for the loop to
   repair). In points leave a little media on both sides for later trims.
"""

from __future__ import annotations

import math
from collections import Counter
from random import Random

from services.planner.proposers.search_context import SearchContext, shot_source
from services.planner.proposers.timing import best_end, place_music, plan_lengths, track_order
from services.verifier.timeline import CUT, FrameRange, MusicPlacement, Shot, Timeline, Transition


def draft_timeline(ctx: SearchContext, seed: int) -> Timeline:
    """The first cut for ``ctx.task`` (executable whenever any clip has media)."""
    if not ctx.clips:
        return Timeline(fps=ctx.fps)  # nothing to cut: the verifier says so
    music, end = _plan(ctx)
    lengths = plan_lengths(ctx, ctx.grid(music), end, _capacity(ctx, end))
    ids = choose_clips(ctx, lengths, Random(f"search-draft:{ctx.task.id}:{seed}"))
    return assemble(ctx, ids, lengths, music)


def _plan(ctx: SearchContext) -> tuple[MusicPlacement | None, int]:
    """The music placement (None without tracks) and the frame the cut ends on."""
    media = int(sum(min(ctx.media(c), ctx.shot_hi) for c in ctx.allowed) * 0.9)
    cap = media if media < ctx.len_lo else None  # too little media for the window
    goal = max(1, min(best_end(ctx, None), media or ctx.target))
    tracks = track_order(ctx)
    if not tracks:
        return None, goal
    track = tracks[0]
    placement = place_music(ctx, track, goal)
    if placement is None:  # too short for the goal: from its first beat, the cut shortened
        starts = [s for s in (*track.downbeats, *track.beats) if s < track.duration]
        placement = MusicPlacement(track.id, starts[0] if starts else 0, 0)
    return placement, best_end(ctx, ctx.grid(placement), goal, cap=cap)


def _capacity(ctx: SearchContext, end: int) -> int:
    """How many distinct shots the allowed clips can fill (all clips when too few)."""
    needed = math.ceil(end / max(ctx.shot_hi, 1))
    usable = [c for c in ctx.allowed if ctx.media(c) >= ctx.shot_lo]
    if len(usable) >= needed:
        return len(usable) * ctx.max_uses
    return len(ctx.ranked) * ctx.max_uses


def choose_clips(ctx: SearchContext, lengths: list[int], rng: Random) -> list[str]:
    """One clip id per slot of ``lengths``: the most relevant allowed clip that has the
    media and reuse left, falling back to any clip with reuse left, then to any clip. When
    shots must overlap (no cuts allowed), clips with media for the overlap come first."""
    tie = {c: rng.random() for c in ctx.ranked}  # drawn in a fixed order: hash-seed free
    cut_ok, _, overlap = ctx.allowed_transitions()
    handles = 0 if cut_ok else overlap
    uses: Counter[str] = Counter()
    pool = ctx.allowed or ctx.ranked
    chosen = []
    for length in lengths:
        options = (
            [c for c in pool if uses[c] < ctx.max_uses and ctx.media(c) >= length]
            or [c for c in ctx.ranked if uses[c] < ctx.max_uses]
            or ctx.ranked
        )
        clip = max(
            options,
            key=lambda c: (
                ctx.media(c) >= length + handles,
                ctx.media(c) >= length,
                ctx.relevance[c],
                tie[c],
            ),
        )
        uses[clip] += 1
        chosen.append(clip)
    return chosen


def assemble(
    ctx: SearchContext, ids: list[str], lengths: list[int], music: MusicPlacement | None
) -> Timeline:
    """Shots for ``ids`` at ``lengths``, joined by cuts (or by the one allowed transition
    when cuts are not allowed); a reused clip continues after its previous range, and a clip
    too short for its slot plays what it has."""
    cut_ok, kind, duration = ctx.allowed_transitions()
    joint = CUT if cut_ok or kind is None else Transition(kind, duration)
    shots: list[Shot] = []
    taken: dict[str, int] = {}
    for i, (clip, length) in enumerate(zip(ids, lengths, strict=True)):
        entry = joint if i > 0 else CUT
        after = joint.after_cut if i + 1 < len(ids) else 0
        prefer = taken.get(clip)
        span = shot_source(ctx, clip, length, before=entry.before_cut, after=after, prefer=prefer)
        span = span or shot_source(ctx, clip, length, prefer=prefer)
        if span is None:
            span = (0, max(1, min(length, ctx.media(clip))))
        if entry is not CUT and not _has_handles(ctx, shots[-1], span, entry):
            entry = CUT  # too little media on one side: a cut, for the loop to repair
        taken[clip] = span[1]
        shots.append(Shot(clip, FrameRange(*span), entry))
    return Timeline(fps=ctx.fps, shots=tuple(shots), music=music)


def _has_handles(
    ctx: SearchContext, outgoing: Shot, span: tuple[int, int], entry: Transition
) -> bool:
    """Whether the incoming range and the shot before it have the media ``entry`` overlaps."""
    out_end = outgoing.source.end + entry.after_cut
    return span[0] >= entry.before_cut and out_end <= ctx.media(outgoing.clip_id)
