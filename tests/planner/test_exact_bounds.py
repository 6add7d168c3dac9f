"""The exact solver's per-count bounds: the timing programme matches enumeration, and
pruning counts and music options by their bounds never loses the brute-force optimum."""

from __future__ import annotations

import itertools

import pytest

from services.planner.exact import timing
from services.planner.exact.discretise import music_options
from services.planner.exact.solver import solve
from services.verifier import ledger as L
from services.verifier.pool import Brief, MusicTrack, Selector
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import CUT
from tests.planner.test_exact import CLIPS, FPS, TRACK, _brute_force, _task

TWIN = MusicTrack(id="n", duration=40, beats=TRACK.beats, downbeats=(10, 30))
"""The same beats as ``TRACK`` (so the same grids: merged options) with other downbeats."""

TIMING_LEDGERS = [
    (L.ShotLength(id="s", min=10, max=15, hard=False, weight=3),),
    (
        L.Duration(id="d", min=20, max=25, target=25),
        L.ShotLength(id="s", min=10, max=15, hard=False, weight=3),
    ),
    (
        L.ShotLength(id="h", min=5, max=10),
        L.ShotLength(id="s", min=10, max=20, hard=False),
        L.EndOnDownbeat(id="e", tolerance=0, hard=False),
    ),
]


def _enumerated(verifier: Verifier, option, n: int, table: list[float]) -> float:
    """The timing parts' best over every cut set, scored rule by rule (no programme)."""
    rules = [r for r in verifier.task.ledger if isinstance(r, L.ShotLength)]
    longest = max(clip.duration for clip in verifier.task.clips.values())
    best = -float("inf")
    for ends in itertools.combinations(range(len(option.grid)), n):
        points = [0, *(option.grid[j] for j in ends)]
        lengths = [b - a for a, b in itertools.pairwise(points)]
        if max(lengths) > longest:
            continue
        value = table[ends[-1]]
        for rule in rules:
            inside = sum(rule.min <= length <= rule.max for length in lengths)
            w = timing.weight(rule, verifier)
            value += w * (inside == n) if rule.hard else w * inside / n
        best = max(best, value)
    return best


@pytest.mark.parametrize("ledger", TIMING_LEDGERS)
def test_the_timing_programme_matches_enumeration(ledger) -> None:
    task = _task(*ledger)
    verifier = Verifier(task)
    for option in music_options(task):
        by_total = timing.total_table(verifier, option)
        for n in range(1, 4):
            pacing = timing.pacing_table(verifier, option, n)
            table = [t + p for t, p in zip(by_total, pacing, strict=True)]
            found = timing.best_timing(verifier, list(task.clips), option, n, CUT, table)
            assert found == pytest.approx(_enumerated(verifier, option, n, table), abs=1e-12)


PRUNED_LEDGERS = [
    # lengths against the duration: the timing bound falls with the count
    (
        L.Duration(id="d", min=20, max=25, target=25),
        L.ShotLength(id="s", min=10, max=15, hard=False, weight=3),
        L.MustInclude(id="i", selector=Selector(tags=frozenset({"city"})), hard=False),
    ),
    # a hard length window the short clip cannot fill, and inversions counted
    (
        L.ShotLength(id="h", min=9, max=15),
        L.Order(
            id="o",
            before=Selector(tags=frozenset({"sunset"})),
            after=Selector(tags=frozenset({"surf"})),
            hard=False,
            weight=3,
        ),
    ),
    # twin tracks share grids: the music rule must pick the right one of the merged options
    (L.Music(id="m", track_id="n"), L.EndOnDownbeat(id="e", tolerance=0, hard=False)),
]


@pytest.mark.parametrize("ledger", PRUNED_LEDGERS)
def test_pruning_by_bounds_keeps_the_brute_force_optimum(ledger) -> None:
    task = Task.build(
        id="twin",
        fps=FPS,
        brief=Brief("surfer sunset ocean", style="energetic"),
        clips=CLIPS,
        tracks=[TRACK, TWIN],
        ledger=ledger,
    )
    found = solve(task, max_shots=3, time_limit_s=120)
    assert found.proven and found.status in {"optimal", "bound"}, found.status
    assert found.timeline is not None
    assert Verifier(task).verify(found.timeline).ves == found.ves
    assert found.ves >= _brute_force(task, 3) - found.tolerance
