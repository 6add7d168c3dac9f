"""The parts of VES the exact solver reads from tables, computed by the verifier's own rules.

A rule whose verdict depends only on the timeline's length and music (duration,
end_on_downbeat, music) becomes a table over the grid's end points; a rule that the
discretisation fixes for a shot count (transitions, beat_alignment, no_reuse) and the
rubric's beats part become one constant. Each is judged by ``Constraint.evaluate`` on a
stand-in timeline with the same length, cuts, transitions and music, so the tables are the
verifier's numbers, not a copy of its formulas.
"""

from __future__ import annotations

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
