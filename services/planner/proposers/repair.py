"""Repair operators: for each unmet rule, patches aimed at it; then moves that raise Q.

:func:`candidates` reads a report and returns ``(ops, label)`` pairs. Nothing here judges
a patch: the search applies and verifies each one and keeps the best.

=====================  ==============================================================
unmet kind             operators
=====================  ==============================================================
duration, shot_length  re-cut on the beat grid to the best end, with shots inserted or
beat_alignment,        removed to reach a good count; ``fit_duration``; ``snap_to_beats``;
end_on_downbeat        trims of the closing shot to a downbeat
music                  ``set_music`` at the offsets that put most cuts on beats (+ re-cut)
must_include           replace expendable shots with matching clips, or insert them
must_exclude,          replace the offending shots (keeping what else they do), or
orientation            remove them and re-cut
no_reuse               replace repeats with unused clips
order                  exchange/swap/move a matching shot into place, or replace it;
                       before/after: regroup the shots involved
transitions            set offending transitions to cut (or to an allowed type)
max_consecutive_tag    break each long run by an exchange or a replacement
coverage               replace expendable shots with clips about the missing topics
Q                      relevance upgrades, variety fixes, pacing via the re-cut
=====================  ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from random import Random

from services.planner.proposers import moves as M
from services.planner.proposers.draft import draft_timeline
from services.planner.proposers.repair_rules import OPERATORS
from services.planner.proposers.repair_timing import shift_music, timing
from services.planner.proposers.search_context import SearchContext, shot_source
from services.planner.proposers.timing import place_music, track_order
from services.verifier.patches import Insert, Op, SetMusic, SetTransition, Trim
from services.verifier.score import Report
from services.verifier.timeline import CUT, FrameRange, Timeline

Candidate = tuple[M.Ops, str]
QUALITY_SHOTS = 6  # how many weak shots (and exchange partners) the Q moves try
TIMING_KINDS = frozenset({"duration", "shot_length", "beat_alignment", "end_on_downbeat", "music"})


def candidates(
    ctx: SearchContext,
    timeline: Timeline,
    report: Report,
    rng: Random,
    *,
    errors: list[str] | None = None,
) -> list[Candidate]:
    """Patches worth trying on ``timeline``, aimed at what ``report`` says is unmet.

    With ``errors`` given, an operator that fails is recorded there and skipped (the
    planner keeps going on the others); without it, the failure propagates.
    """
    state = M.State(ctx, timeline)
    out: list[Candidate] = []

    def run(label: str, produce: Callable[[], Iterable[Candidate]]) -> None:
        try:
            out.extend(produce())
        except Exception as error:
            if errors is None:
                raise
            errors.append(f"{label}: {error!r}")

    if not report.executable:
        run("executability", lambda: _executability(state, report))
        if state.n == 0:
            return out
    unmet = [
        rule
        for rule, result in zip(ctx.task.ledger, report.constraints, strict=True)
        if result.score < 1.0
    ]
    kinds = {rule.kind for rule in unmet}
    q = report.components
    if kinds & TIMING_KINDS or q.pacing < 1 or q.beats < 1:
        run("timing", lambda: timing(state))
    for rule in unmet:
        operator = OPERATORS.get(rule.kind)
        if operator is not None:
            tag = f"{rule.kind}:{rule.id}"
            run(
                tag, lambda o=operator, r=rule, t=tag: ((ops, f"{t}:{x}") for ops, x in o(state, r))
            )
    if q.beats < 1 and not kinds & {"beat_alignment", "end_on_downbeat"}:
        run("beats", lambda: ((ops, f"Q:beats:{x}") for ops, x in shift_music(state, None)))
    run("quality", lambda: _quality(state, report, rng))
    return [(ops, label) for ops, label in out if ops]


def _quality(state: M.State, report: Report, rng: Random) -> list[Candidate]:
    """Moves for Q: swap the least relevant shots for better clips (keeping their roles),
    and break the dullest neighbour pairs by exchanges or replacements."""
    ctx = state.ctx
    out: list[Candidate] = []
    if report.components.relevance < 1.0:
        weakest = sorted(range(state.n), key=lambda i: (ctx.relevance.get(state.ids[i], 0), i))
        for i in weakest[:QUALITY_SHOTS]:
            for op in M.replacements(state, i, 3):
                if ctx.relevance[op.clip_id] > ctx.relevance.get(state.ids[i], 0):
                    out.append(((op,), f"Q:relevance:{i}"))
    if report.components.variety < 1.0 and state.n > 2:
        known = [c in ctx.clips for c in state.ids]
        pairs = [i for i in range(1, state.n) if known[i] and known[i - 1]]
        dull = sorted((ctx.variety(state.ids[i - 1], state.ids[i]), i) for i in pairs)
        for value, i in dull[:2]:
            if value >= 0.75:
                break
            for op in M.replacements(state, i, 1):
                out.append(((op,), f"Q:variety:{i}"))
            partners = [j for j in range(state.n) if abs(j - i) > 1]
            rng.shuffle(partners)
            for j in partners[:QUALITY_SHOTS]:
                out.append((M.exchange(state, i, j), f"Q:variety_exchange:{i}"))
    if report.components.variety < 1.0 and state.n > 2:
        for i, j in _best_exchanges(state, QUALITY_SHOTS // 2):
            out.append((M.exchange(state, i, j), f"Q:variety_best:{i}-{j}"))
    return out


def _best_exchanges(state: M.State, k: int) -> list[tuple[int, int]]:
    """The ``k`` exchanges of two shots' clips that raise the sum of neighbour variety most
    (every pair tried: the dullest-pair moves above miss the trades the exact solver finds,
    e.g. one that lifts two fair pairs at once)."""
    ctx, ids = state.ctx, list(state.ids)
    if not all(c in ctx.clips for c in ids):
        return []

    def around(order: list[str], spots: set[int]) -> float:
        edges = {e for i in spots for e in (i - 1, i) if 0 <= e < len(order) - 1}
        return sum(ctx.variety(order[e], order[e + 1]) for e in edges)

    gains = []
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            trial = ids.copy()
            trial[i], trial[j] = trial[j], trial[i]
            gain = around(trial, {i, j}) - around(ids, {i, j})
            if gain > 1e-9:
                gains.append((-gain, i, j))
    return [(i, j) for _, i, j in sorted(gains)[:k]]


def _executability(state: M.State, report: Report) -> list[Candidate]:
    """One patch fixing every error it can: unknown clips replaced, ranges clamped into
    their media, impossible transitions set to cut, music moved under the timeline."""
    ctx = state.ctx
    if state.n == 0:
        draft = draft_timeline(ctx, 0)
        ops: list[Op] = [Insert(i, s.clip_id, s.source) for i, s in enumerate(draft.shots)]
        if draft.music is not None:
            ops.append(SetMusic(draft.music.track_id, draft.music.offset, 0))
        return [(tuple(ops), "exec:from_draft")]
    ops = []
    for error in report.errors:
        i = error.shot
        if i is None or i >= state.n:
            continue
        shot = state.shots[i]
        if error.code == "unknown_clip":
            ops += M.replacements(state, i, 1, roles=[])
        elif error.code in ("range_outside_clip", "empty_shot"):
            length = max(1, min(shot.length, ctx.media(shot.clip_id)))
            span = shot_source(ctx, shot.clip_id, length, prefer=max(0, shot.source.start))
            if span is not None:
                ops.append(Trim(i, FrameRange(*span)))
        elif error.code in ("missing_handles", "no_outgoing_shot", "transition_too_long"):
            ops.append(SetTransition(i, CUT))
            if i + 1 < state.n and error.code == "transition_too_long":
                ops.append(SetTransition(i + 1, CUT))
    fixed = state.then(ops) or state
    music = fixed.timeline.music
    codes = {e.code for e in report.errors}
    if music is not None and codes & {"music_outside_track", "unknown_track", "fade_too_long"}:
        track = ctx.task.tracks.get(music.track_id) or next(iter(track_order(ctx)), None)
        if track is not None:
            placement = place_music(ctx, track, fixed.total)
            if placement is not None:
                ops.append(SetMusic(track.id, placement.offset, 0))
            else:
                room = track.duration - (track.downbeats or (0,))[0]
                trims = M.then_retime(fixed, (), room)
                ops += [*(trims or ()), SetMusic(track.id, (track.downbeats or (0,))[0], 0)]
    return [(tuple(ops), "exec:fix")] if ops else []
