"""A proven upper bound on the VES any timeline can reach for a task (see ``docs/exact.md``).

VES = E·(0.6·H + 0.2·S + 0.2·Q) is a sum of terms that each depend on part of a timeline.
The bound relaxes what couples them: every term is taken at its own best, separately. Two
cases cover every executable timeline:

- it meets every hard rule: then H = 1, and the hard rules fix a window for the shot count
  (duration ÷ shot length), the clips a shot may use (orientation, must_exclude, shot length
  ≥ the clip's media) and how often (no_reuse); Q's relevance, pacing and variety are
  bounded per shot count over that window;
- it breaks at least one: then H ≤ (hard − 1)/hard and S, Q are bounded over all timelines;
  when the ledger's hard entries conflict with each other or the pool (``feasibility``), no
  timeline is in the first case and H ≤ (hard − k)/hard for ``k`` conflicts sharing no entry.

Each soft rule's best score over all timelines bounds S in both cases. Pure code, no solver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

from services.verifier import ledger as L
from services.verifier.feasibility import disjoint_count, precheck
from services.verifier.score import WEIGHT_H, WEIGHT_Q, WEIGHT_S, Verifier
from services.verifier.task import Task

ROUNDING = 1e6
"""The verifier's VES is rounded to 6 decimals (``Report``)."""
N_SCAN = 256
"""Shot counts examined one by one; past that every bounded Q term counts as 1."""
PAIR_SCAN = 300
"""Allowed clips up to which variety is bounded pair by pair (beyond: by 1, a valid bound
that keeps a 5,000-clip task's bound cheap)."""


@dataclass(frozen=True, slots=True)
class Bound:
    """The bound and how it splits: ``ves`` ≥ the VES of every timeline for the task."""

    ves: float
    hard_met: float
    """The best VES of a timeline meeting every hard rule (0 when none can)."""
    hard_broken: float
    """The best VES of a timeline breaking at least one hard rule."""
    soft: float
    """The best S."""
    shots: tuple[int, int | None]
    """The shot-count window the hard rules allow (``None``: no upper end)."""


def rule_best(rule: L.Constraint, verifier: Verifier) -> tuple[float, bool]:
    """The best score of one rule alone over all executable timelines, and whether some
    timeline meets it (an over-estimate where the exact best is costly to find)."""
    task = verifier.task
    pool = task.clips.values()
    if isinstance(rule, L.MustInclude):
        ok = bool(verifier.matching(rule.selector))
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.MustExclude):
        ok = len(verifier.matching(rule.selector)) < len(task.clips)
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.OrientationRule):
        ok = bool(verifier.clips_with_orientation(rule.value))
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.ShotLength):
        low = max(1, rule.min)  # a shot holds at least one frame
        ok = any(clip.duration >= low for clip in pool) and low <= rule.max
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.Music):
        ok = rule.track_id in task.tracks
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.EndOnDownbeat):
        ok = any(t.downbeats for t in task.tracks.values())
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.MaxConsecutiveTag):
        ok = rule.max_run >= 1 or any(rule.tag not in clip.tags for clip in pool)
        return (1.0 if ok else 0.0), ok
    if isinstance(rule, L.Coverage):
        return _coverage_best(rule, verifier)
    if isinstance(rule, L.Order):
        return _order_best(rule, verifier)
    # duration, no_reuse, transitions, beat_alignment: one shot (or the right length) meets them
    return 1.0, True


def _coverage_best(rule: L.Coverage, verifier: Verifier) -> tuple[float, bool]:
    coverable = sum(1 for words in rule.topic_terms if verifier.clips_with_terms(words))
    fraction = coverable / len(rule.topics) if rule.topics else 1.0
    if fraction >= rule.min_fraction:
        return 1.0, True
    return fraction / rule.min_fraction, False


def _order_best(rule: L.Order, verifier: Verifier) -> tuple[float, bool]:
    ends = [s for s in (rule.first, rule.last) if s is not None]
    failed = sum(1 for s in ends if not verifier.matching(s))
    if failed == 0:
        return 1.0, True
    pairs = rule.before is not None and rule.after is not None
    total = len(ends) + (1 if pairs else 0)
    return max(0.0, 1.0 - failed / total), False


def hard_window(task: Task) -> tuple[int, int | None, int, int | None]:
    """``(n_low, n_high, shot_low, shot_high)``: shot counts and shot lengths (frames) a
    timeline meeting every hard duration and shot_length rule can have."""
    total_lo, total_hi = 1, None
    shot_lo, shot_hi = 1, None
    for rule in task.ledger:
        if rule.hard and isinstance(rule, L.Duration):
            total_lo = max(total_lo, rule.min)
            total_hi = rule.max if total_hi is None else min(total_hi, rule.max)
        if rule.hard and isinstance(rule, L.ShotLength):
            shot_lo = max(shot_lo, rule.min)
            shot_hi = rule.max if shot_hi is None else min(shot_hi, rule.max)
    n_lo = 1 if shot_hi is None else max(1, -(-total_lo // max(1, shot_hi)))
    n_hi = None if total_hi is None else total_hi // shot_lo
    return n_lo, n_hi, shot_lo, shot_hi


@dataclass(frozen=True, slots=True)
class _Pool:
    """The clips a timeline meeting every hard rule may use, and how often each."""

    relevance: list[float]  # descending
    chosen: list[float]  # prefix sums of the best relevances, each repeated up to ``uses``
    pairs: list[float]  # variety of distinct pairs, descending ([1.0] past PAIR_SCAN clips)
    uses: int | None  # None: no hard no_reuse
    longest: int


def _allowed_pool(verifier: Verifier, shot_lo: int) -> _Pool:
    task = verifier.task
    allowed = set(task.clips)
    uses: int | None = None
    for rule in task.ledger:
        if not rule.hard:
            continue
        if isinstance(rule, L.MustExclude):
            allowed -= verifier.matching(rule.selector)
        elif isinstance(rule, L.OrientationRule):
            allowed &= verifier.clips_with_orientation(rule.value)
        elif isinstance(rule, L.NoReuse):
            # distinct clips always meet it, even with max_uses 0 (see NoReuse.evaluate)
            uses = min(uses or max(1, rule.max_uses), max(1, rule.max_uses))
    allowed = {cid for cid in allowed if task.clips[cid].duration >= shot_lo}
    ids = sorted(allowed)
    relevance = sorted((verifier.relevance(cid) for cid in ids), reverse=True)
    chosen = [0.0]
    for value in relevance[: N_SCAN + 1] if uses is None else relevance:
        for _ in range(uses or 1):
            chosen.append(chosen[-1] + value)
    if len(ids) > PAIR_SCAN:
        pairs = [1.0]
    else:
        pairs = sorted(
            (verifier._pair_variety(a, b) for a, b in combinations(ids, 2)), reverse=True
        )
    return _Pool(
        relevance=relevance,
        chosen=chosen,
        pairs=pairs,
        uses=uses,
        longest=max((task.clips[cid].duration for cid in ids), default=0),
    )


def _relevance(pool: _Pool, best_prefix: list[float], n: int) -> float | None:
    """The best relevance part with ``n`` shots (``None``: no such timeline)."""
    if pool.uses is not None and n > pool.uses * len(pool.relevance):
        return None
    if not pool.relevance:
        return None
    chosen = n * pool.relevance[0] if pool.uses is None else pool.chosen[n]
    best = best_prefix[min(n, len(best_prefix) - 1)]
    return min(1.0, chosen / best) if best > 0 else 1.0


def _variety(pool: _Pool, n: int) -> float:
    if n == 1:
        return 1.0
    if not pool.pairs:
        return 0.0
    if pool.uses is None or pool.uses > 1 or len(pool.pairs) == 1:
        return pool.pairs[0]
    return sum(pool.pairs[: n - 1]) / (n - 1)  # a path of distinct clips: distinct pairs


def _pacing(low: float, high: float, mean_lo: float, mean_hi: float) -> float | None:
    """The best pacing part when the mean shot length may lie in ``[mean_lo, mean_hi]``."""
    if mean_lo > mean_hi or mean_hi <= 0:
        return None
    if mean_hi < low:
        return mean_hi / low
    if mean_lo > high:
        return max(0.0, 1.0 - (mean_lo - high) / high)
    return 1.0


def _best_q(verifier: Verifier, window: tuple[int, int | None, int, int | None]) -> float:
    """The best Q of a timeline meeting every hard rule (-1 when the window is empty)."""
    task = verifier.task
    n_lo, n_hi, shot_lo, shot_hi = window
    total_lo, total_hi = _total_window(task)
    pool = _allowed_pool(verifier, shot_lo)
    low, high = verifier._pacing
    beats = 1.0 if any(t.beats for t in task.tracks.values()) else 0.0
    longest = min(pool.longest, shot_hi) if shot_hi is not None else pool.longest
    last = n_lo + N_SCAN if n_hi is None else min(n_hi, n_lo + N_SCAN)
    best = -1.0
    for n in range(n_lo, last + 1):
        relevance = _relevance(pool, verifier._best_prefix, n)
        mean_hi = longest if total_hi is None else min(longest, total_hi / n)
        pacing = _pacing(low, high, max(shot_lo, total_lo / n), mean_hi)
        if relevance is None or pacing is None:
            continue
        q = (relevance + (1.0 if n == 1 else beats) + pacing + _variety(pool, n)) / 4
        best = max(best, q)
    if last < (n_hi if n_hi is not None else last + 1) and pool.relevance:
        # the tail of shot counts: relevance 1 and the widest mean-length window bound it
        pacing = _pacing(low, high, shot_lo, longest)
        if pacing is not None:
            best = max(best, (1.0 + beats + pacing + _variety(pool, last + 1)) / 4)
    return best


def _total_window(task: Task) -> tuple[int, int | None]:
    lo, hi = 1, None
    for rule in task.ledger:
        if rule.hard and isinstance(rule, L.Duration):
            lo, hi = max(lo, rule.min), rule.max if hi is None else min(hi, rule.max)
    return lo, hi


def upper_bound(task: Task, verifier: Verifier | None = None) -> Bound:
    """A VES no timeline for ``task`` exceeds (see the module docstring for the argument)."""
    verifier = verifier or Verifier(task)
    hard = [r for r in task.ledger if r.hard]
    soft = [r for r in task.ledger if not r.hard]
    weight = sum(r.weight for r in soft)
    s_best = sum(r.weight * rule_best(r, verifier)[0] for r in soft) / weight if weight > 0 else 1.0
    impossible = sum(1 for r in hard if not rule_best(r, verifier)[1])
    # conflicts sharing no entry each break one more hard rule (services.verifier.feasibility)
    impossible = max(impossible, disjoint_count(precheck(task)))
    window = hard_window(task)
    met = 0.0
    if impossible == 0:
        q = _best_q(verifier, window)
        if q >= 0:
            met = WEIGHT_H + WEIGHT_S * s_best + WEIGHT_Q * q
    broken = 0.0
    if hard:
        h = (len(hard) - max(1, impossible)) / len(hard)
        broken = WEIGHT_H * h + WEIGHT_S * s_best + WEIGHT_Q
    ves = max(met, broken)
    return Bound(
        # the verifier reports VES rounded to 6 decimals: round up to them, so a timeline
        # at the bound is never reported above it
        ves=min(1.0, math.ceil((ves + 1e-9) * ROUNDING) / ROUNDING),
        hard_met=met,
        hard_broken=broken,
        soft=s_best,
        shots=(window[0], window[1]),
    )
