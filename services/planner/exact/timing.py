"""The parts of VES the exact solver reads from tables, computed by the verifier's own rules.

A rule whose verdict depends only on the timeline's length and music (duration,
end_on_downbeat, music) becomes a table over the grid's end points; a rule that the
discretisation fixes for a shot count (transitions, beat_alignment, no_reuse) and the
rubric's beats part become one constant. Each is judged by ``Constraint.evaluate`` on a
stand-in timeline with the same length, cuts, transitions and music, so the tables are the
verifier's numbers, not a copy of its formulas.
"""

from __future__ import annotations

import math

import numpy as np

from services.planner.exact.discretise import MusicOption
from services.verifier import ledger as L
from services.verifier.score import WEIGHT_H, WEIGHT_Q, WEIGHT_S, Verifier
from services.verifier.timeline import CUT, FrameRange, Shot, Timeline, Transition

BY_TOTAL = (L.Duration, L.EndOnDownbeat, L.Music)
FIXED = (L.Transitions, L.BeatAlignment, L.NoReuse)
RUBRIC_PART = WEIGHT_Q / 4


def weight(rule: L.Constraint, verifier: Verifier) -> float:
    """What a satisfied hard rule, or a soft rule's score of 1, adds to VES."""
    ledger = verifier.task.ledger
    if rule.hard:
        return WEIGHT_H / sum(1 for r in ledger if r.hard)
    return WEIGHT_S * rule.weight / sum(r.weight for r in ledger if not r.hard)


def worth(rule: L.Constraint, outcome: L.Outcome, verifier: Verifier) -> float:
    return weight(rule, verifier) * (float(outcome.satisfied) if rule.hard else outcome.score)


def stand_in(
    verifier: Verifier, option: MusicOption, ends: list[int], transition: Transition
) -> Timeline:
    """A timeline whose shots end at ``ends`` (ascending), entered by ``transition``."""
    clip = next(iter(verifier.task.clips))
    shots, start = [], 0
    for i, end in enumerate(ends):
        shots.append(Shot(clip, FrameRange(0, end - start), transition if i else CUT))
        start = end
    return Timeline(fps=verifier.task.fps, shots=tuple(shots), music=option.placement)


def total_table(verifier: Verifier, option: MusicOption) -> list[float]:
    """For each grid point as the timeline's end: what the length-only rules add."""
    rules = [r for r in verifier.task.ledger if isinstance(r, BY_TOTAL)]
    out = []
    for end in option.grid:
        view = verifier.view(stand_in(verifier, option, [end], CUT))
        out.append(sum(worth(r, r.evaluate(view), verifier) for r in rules))
    return out


def pacing_table(verifier: Verifier, option: MusicOption, n: int) -> list[float]:
    """The rubric's pacing part (weighted) for each grid point as the end of ``n`` shots."""
    low, high = verifier._pacing
    out = []
    for end in option.grid:
        mean = end / n
        if mean < low:
            pacing = mean / low
        elif mean > high:
            pacing = max(0.0, 1.0 - (mean - high) / high)
        else:
            pacing = 1.0
        out.append(RUBRIC_PART * pacing)
    return out


def fixed_part(
    verifier: Verifier, option: MusicOption, n: int, transition: Transition
) -> float | None:
    """What the rules the discretisation fixes add with ``n`` shots (None: too few grid
    points for ``n`` shots). Cuts fall on grid points, so the first ``n`` stand in for all."""
    if len(option.grid) < n:
        return None
    timeline = stand_in(verifier, option, list(option.grid[:n]), transition)
    report = verifier.verify(timeline)
    rules = [(i, r) for i, r in enumerate(verifier.task.ledger) if isinstance(r, FIXED)]
    # the clips are distinct in the discretisation: no_reuse is met whatever the stand-in uses
    fixed = sum(
        worth(r, L.MET if isinstance(r, L.NoReuse) else report._outcomes[i], verifier)
        for i, r in rules
    )
    ledger = verifier.task.ledger
    empty = (WEIGHT_H if not any(r.hard for r in ledger) else 0.0) + (
        WEIGHT_S if sum(r.weight for r in ledger if not r.hard) <= 0 else 0.0
    )  # H and S count 1 with no rules of their kind
    return fixed + empty + RUBRIC_PART * report.components.beats


def _length_windows(verifier: Verifier) -> tuple[list[tuple[float, int, int]], list]:
    """The soft ``shot_length`` rules (weight, min, max) and the hard ones."""
    rules = [r for r in verifier.task.ledger if isinstance(r, L.ShotLength)]
    soft = [(weight(r, verifier), r.min, r.max) for r in rules if not r.hard]
    return soft, [r for r in rules if r.hard]


def _shot_reward(
    lengths: np.ndarray, low: int, cap: int, soft: list[tuple[float, int, int]], n: int
) -> np.ndarray:
    """Per shot length: what the soft length rules give it (−inf where the shot cannot
    have that length: below ``low`` or above ``cap``)."""
    reward = np.zeros(lengths.shape)
    for w, lo, hi in soft:  # score 1 − offending / shots: w / n per shot within the window
        reward += (w / n) * ((lengths >= lo) & (lengths <= hi))
    return np.where((lengths >= low) & (lengths <= cap), reward, -np.inf)


def best_timing(
    verifier: Verifier,
    clips: list[str],
    option: MusicOption,
    n: int,
    transition: Transition,
    table: list[float],
) -> float:
    """The most the timing parts (``table`` over the end point, plus the ``shot_length``
    rules) can give ``n`` shots on ``option``'s grid, whichever clips fill them.

    A dynamic programme over the grid, exact but for the clips: each shot may be as long as
    the longest clip's media at its position. So it bounds every timeline of the
    discretisation with ``n`` shots and ``option``; −inf when none fits. Each subset of the
    hard ``shot_length`` rules is tried as the set the timeline meets."""
    soft, hard = _length_windows(verifier)
    grid = np.asarray(option.grid)
    starts = np.concatenate(([0], grid))
    span = grid[None, :] - starts[:, None]  # span[s, j]: a shot from starts[s] to grid[j]
    durations = [verifier.task.clips[c].duration for c in clips]
    before, after, half = transition.before_cut, transition.after_cut, transition.duration >> 1
    best = -math.inf
    for chosen in range(1 << len(hard)):
        met = [r for k, r in enumerate(hard) if chosen >> k & 1]
        lo = max([r.min for r in met], default=0)
        hi = min([r.max for r in met], default=math.inf)
        gain = sum(weight(r, verifier) for r in met)
        value = np.full(len(starts), -np.inf)
        value[0] = 0.0  # the timeline starts at frame 0
        for i in range(n):
            into, last = (after if i else 0), i == n - 1
            low = max(1, into + (0 if last else half), lo)
            cap = max(d - (before if i else 0) - (0 if last else after) for d in durations)
            reward = _shot_reward(span, low, min(cap, hi), soft, n)
            ends = np.max(value[:, None] + reward, axis=0)
            value = np.concatenate(([-np.inf], ends))
        total = np.max(value[1:] + np.asarray(table)) + gain
        best = max(best, float(total))
    return best
