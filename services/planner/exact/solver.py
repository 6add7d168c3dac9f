"""Branch and bound over (shot count, music option) models, each solved by CP-SAT.

Music options with equal grids are merged. Every count gets a quick optimistic value (the
best timing any n-shot cut on a merged option's grid can earn, ``timing.best_timing``, plus
every part the clips decide at its best); counts are solved best-first and the rest skipped
once none can beat the best verified timeline. Inside a model, each CP-SAT optimum is
re-verified by the :class:`~services.verifier.score.Verifier` (its VES is the truth); when
the model's objective over-estimated it (an ``order`` rule's inversions), that clip
sequence is cut off and the model solved again. The answer is *proven* when every model was
closed this way, or the best timeline reaches the task's upper bound, within the limit.

The limit is wall-clock seconds, and optionally also CP-SAT's deterministic work (its
``deterministic_time``, summed over the solves): with one worker, a search that stops on
the work limit gives the same answer on a loaded machine as on an idle one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import combinations

from ortools.sat.python import cp_model

from services.planner.exact import timing
from services.planner.exact.discretise import MusicOption, music_options, transition_in
from services.planner.exact.model import SCALE, SEQUENCE, Built, Timed, build
from services.planner.exact.pool import choose_clips
from services.verifier import ledger as L
from services.verifier.bound import upper_bound
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import CUT, FrameRange, Shot, Timeline, Transition

MAX_CLIPS = 12
MAX_SHOTS = 10
TIME_LIMIT_S = 10.0
CP_SAT = {"linearization_level": 2}
"""CP-SAT parameters: the full LP relaxation proves these models' optima far sooner."""


@dataclass(frozen=True, slots=True)
class Solution:
    timeline: Timeline | None
    ves: float
    """The verifier's VES of ``timeline`` (0 when there is none)."""
    proven: bool
    """No timeline of the discretisation beats ``timeline`` by more than ``tolerance``."""
    status: str
    """``optimal``, ``bound`` (it reached the task's upper bound), ``time_limit``,
    ``work_limit``, ``no_timeline``, or ``unverified`` (a model rated a timeline below its
    verified VES: a modelling fault, so nothing is claimed)."""
    elapsed_s: float
    models: int
    """CP-SAT solves run."""
    restricted: bool
    """The pool was cut to ``max_clips`` clips: exact on that sub-pool only."""
    upper_bound: float
    tolerance: float


@dataclass(slots=True)
class _Search:
    verifier: Verifier
    clips: list[str]
    transition: Transition
    deadline: float
    workers: int
    work_left: float | None = None
    """CP-SAT deterministic work still allowed (None: the wall clock alone limits)."""
    best: Timeline | None = None
    best_ves: float = 0.0
    solves: int = 0
    timed_out: bool = False
    out_of_work: bool = False
    unsound: bool = False
    tolerance: float = 0.0
    parameters: dict[str, object] = field(default_factory=lambda: dict(CP_SAT))


def solve(
    task: Task,
    *,
    max_clips: int = MAX_CLIPS,
    max_shots: int = MAX_SHOTS,
    time_limit_s: float = TIME_LIMIT_S,
    work_limit: float | None = None,
    workers: int = 1,
) -> Solution:
    """The VES-optimal timeline of ``task`` on the discretisation (see the module doc);
    ``work_limit`` also caps CP-SAT's deterministic work (reproducible with one worker)."""
    start = time.monotonic()
    verifier = Verifier(task)
    clips = choose_clips(verifier, max_clips)
    bound = upper_bound(task, verifier).ves
    deadline = start + time_limit_s
    search = _Search(verifier, clips, transition_in(task), deadline, workers, work_limit)
    reached = False
    for value, n, options in _models(search, max_shots):
        if search.best is not None and value <= search.best_ves + 1e-9:
            break  # this and every later model are no better than the best verified
        if search.best_ves >= bound - 1e-9:
            reached = True
            break
        if _spent(search):
            break
        _close_count(search, n, options)
        if search.timed_out:
            break
    reached = reached or search.best_ves >= bound - 1e-9
    proven = reached or not (search.timed_out or search.unsound)
    limit = "work_limit" if search.out_of_work else "time_limit"
    status = "bound" if reached else "optimal" if proven else limit
    if search.unsound and not reached:
        status = "unverified"
    if search.best is None:
        status = "no_timeline" if proven else limit
    return Solution(
        search.best,
        search.best_ves,
        proven,
        status,
        round(time.monotonic() - start, 4),
        search.solves,
        len(clips) < len(task.clips),
        bound,
        search.tolerance,
    )


def _models(search: _Search, max_shots: int) -> list[tuple[float, int, list[tuple[float, Timed]]]]:
    """Per shot count: the music options merged by grid, each with its best timing
    (``timing.best_timing``), and the count's optimistic value (the best timing plus every
    clip-decided part at its best), best first."""
    verifier = search.verifier
    tables = [(o, timing.total_table(verifier, o)) for o in music_options(verifier.task)]
    out = []
    for n in range(1, min(max_shots, len(search.clips)) + 1):
        timed: list[tuple[float, Timed]] = []
        for merged in _merge(search, tables, n):
            pacing = timing.pacing_table(verifier, merged.option, n)
            table = [t + p for t, p in zip(merged.table, pacing, strict=True)]
            best = timing.best_timing(
                verifier, search.clips, merged.option, n, search.transition, table
            )
            if best > -math.inf:
                timed.append((best, merged))
        if timed:
            top = max(v for v, _ in timed) + _sequence_ceiling(search, n)
            out.append((top, n, timed))
    out.sort(key=lambda m: (-m[0], m[1]))
    return out


def _merge(search: _Search, tables: list[tuple[MusicOption, list[float]]], n: int) -> list[Timed]:
    """The options with ``n`` grid points or more, those sharing a grid merged into one:
    at each end point the option whose fixed and length-only rules add most. The cuts, the
    shot lengths and so every other part are the same under each, so nothing is lost."""
    groups: dict[tuple[int, ...], Timed] = {}
    for option, by_total in tables:
        fixed = timing.fixed_part(search.verifier, option, n, search.transition)
        if fixed is None:
            continue
        values = [fixed + t for t in by_total]
        have = groups.get(option.grid)
        if have is None:
            groups[option.grid] = Timed(option, values, [option.placement] * len(values))
            continue
        for j, value in enumerate(values):
            if value > have.table[j]:
                have.table[j], have.placements[j] = value, option.placement
    return list(groups.values())


def _spent(search: _Search) -> bool:
    """The wall clock or the work budget is used up (and the search marked timed out)."""
    if search.work_left is not None and search.work_left <= 0:
        search.timed_out = search.out_of_work = True
    elif time.monotonic() >= search.deadline:
        search.timed_out = True
    return search.timed_out


def _run(search: _Search, model: cp_model.CpModel) -> tuple[cp_model.CpSolver, int]:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.001, search.deadline - time.monotonic())
    if search.work_left is not None:
        solver.parameters.max_deterministic_time = max(0.001, search.work_left)
    solver.parameters.num_workers = search.workers
    for key, value in search.parameters.items():
        setattr(solver.parameters, key, value)
    status = solver.solve(model)
    search.solves += 1
    if search.work_left is not None:
        search.work_left -= solver.deterministic_time
        cut_short = status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        in_time = time.monotonic() < search.deadline
        search.out_of_work = search.work_left <= 0 or (cut_short and in_time)
    return solver, status


def _close_count(search: _Search, n: int, timed: list[tuple[float, Timed]]) -> None:
    """Close the models for ``n`` shots. First the clip-decided parts alone: their optimum
    bounds every music option (an option that cannot beat the best verified stays out); then that
    clip sequence with its best timing; only when it falls short of the bound, the full
    model (hinted with the sequence, each part capped by its own bound)."""
    verifier, clips, transition = search.verifier, search.clips, search.transition
    alone = build(verifier, clips, n, [], transition)
    solver, status = _run(search, alone.model)
    if status == cp_model.INFEASIBLE:
        return
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        search.timed_out = True
        return
    ceiling = math.floor(solver.best_objective_bound + 1e-6)
    bound = ceiling / SCALE + alone.constant + alone.rounding
    useful = [(v, t) for v, t in timed if v + bound > search.best_ves + 1e-9]
    if not useful:
        return
    if status != cp_model.OPTIMAL:
        search.timed_out = True
        return
    chosen = [next(c for c, var in enumerate(row) if solver.value(var)) for row in alone.x]
    options = [t for _, t in useful]
    reach = max(v for v, _ in useful) + bound
    for hinted in (False, True):
        built = build(verifier, clips, n, options, transition)
        _cap_parts(built, ceiling, [v for v, _ in useful])
        for i, c in enumerate(chosen):
            if hinted:
                built.model.add_hint(built.x[i][c], 1)
            else:
                built.model.add(built.x[i][c] == 1)
        _close(search, built, options)
        if search.timed_out or search.best_ves >= reach - search.tolerance:
            return  # the sequence's best timing reaches what any model for n could


def _cap_parts(built: Built, ceiling: int, timings: list[float]) -> None:
    """Redundant caps that tighten the LP: the sequence's terms by the proven optimum of
    the sequence alone, each option's timing terms by its best timing (``best_timing``)."""
    built.model.add(built.sequence <= ceiling)
    for (expr, rounding), value, flag in zip(built.timed, timings, built.music, strict=True):
        if not isinstance(expr, int):
            built.model.add(expr <= (math.ceil((value + rounding) * SCALE) + 1) * flag)


def _sequence_ceiling(search: _Search, n: int) -> float:
    """Every clip-decided rule met, relevance 1, variety at the mean of the best n − 1 pairs."""
    verifier = search.verifier
    rules = sum(
        timing.weight(r, verifier)
        for r in verifier.task.ledger
        if isinstance(r, (*SEQUENCE, L.Order))
    )
    pairs = sorted(
        (verifier._pair_variety(a, b) for a, b in combinations(search.clips, 2)), reverse=True
    )
    variety = sum(pairs[: n - 1]) / (n - 1) if n > 1 else 1.0
    return rules + timing.RUBRIC_PART * (1.0 + variety)


def _close(search: _Search, built: Built, options: list[Timed]) -> None:
    """Solve one model until no clip sequence in it can beat the best verified timeline."""
    # integer rounding can hide ``rounding`` on each side of a comparison
    search.tolerance = max(search.tolerance, 2 * built.rounding)
    model = built.model
    while True:
        if _spent(search):
            return
        floor = (search.best_ves - built.rounding - built.constant) * SCALE
        model.add(built.objective >= math.floor(floor) + 1)  # only what might beat the best
        solver, status = _run(search, model)
        if status == cp_model.INFEASIBLE:
            return
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            search.timed_out = True  # UNKNOWN: the limit came first
            return
        timeline, chosen = _timeline(search, built, solver, options)
        ves = search.verifier.verify(timeline).ves
        if ves > search.best_ves or search.best is None:
            search.best, search.best_ves = timeline, ves
        if status == cp_model.FEASIBLE:
            search.timed_out = True
            return
        promised = solver.objective_value / SCALE + built.constant
        if ves > promised + 2 * built.rounding + 1e-9:
            search.unsound = True  # the model under-rated a timeline: its proofs are void
        if promised - ves <= built.rounding + 1e-9:
            return  # the model's optimum is verified: nothing in it beats it
        model.add_bool_or([built.x[i][c].Not() for i, c in enumerate(chosen)])


def _timeline(
    search: _Search, built: Built, solver: cp_model.CpSolver, options: list[Timed]
) -> tuple[Timeline, list[int]]:
    transition = search.transition
    chosen = [next(c for c, var in enumerate(row) if solver.value(var)) for row in built.x]
    k = next(k for k, flag in enumerate(built.music) if solver.value(flag))
    shots, start = [], 0
    for i, c in enumerate(chosen):
        end = solver.value(built.cuts[k][i])
        first = transition.before_cut if i else 0
        source = FrameRange(first, first + end - start)
        shots.append(Shot(search.clips[c], source, transition if i else CUT))
        start = end
    fps = search.verifier.task.fps
    end = options[k].option.grid.index(start)
    return Timeline(fps=fps, shots=tuple(shots), music=options[k].placements[end]), chosen
