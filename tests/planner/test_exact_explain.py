"""The exact solver's deletion filter: planted conflicts among bystander entries come back
as exactly the entries that cannot all hold."""

from __future__ import annotations

import pytest

from services.planner.exact.explain import minimal_conflict, proven_infeasible
from services.verifier import ledger as L
from services.verifier.feasibility import precheck
from services.verifier.pool import Orientation, Selector
from tests.verifier.factories import FPS as S
from tests.verifier.factories import clip, make_task, track

POOL = [clip("a", 5, tags=["a"]), clip("b", 5, tags=["b"]), clip("c", 5, tags=["c"])]
TRACK = track("m1", 30, beats=range(0, 900, 15), downbeats=range(0, 900, 60))
BYSTANDERS = [
    L.OrientationRule(id="B1", value=Orientation.LANDSCAPE),
    L.MustExclude(id="B2", selector=Selector(tags=frozenset({"c"}))),
    L.BeatAlignment(id="B3", hard=False, tolerance=3, min_fraction=0.5),
]


def tags(name: str) -> Selector:
    return Selector(tags=frozenset({name}))


PLANTED = {
    "two shots that do not fit the length": (
        [
            L.Duration(id="P1", min=S, max=2 * S),
            L.ShotLength(id="P2", min=S * 3 // 2, max=3 * S),
            L.MustInclude(id="P3", selector=tags("a")),
            L.MustInclude(id="P4", selector=tags("b")),
        ],
        [],
    ),
    "an opener and a closer that do not fit the length": (
        [
            L.Order(id="P1", first=tags("a")),
            L.Order(id="P2", last=tags("b")),
            L.Duration(id="P3", min=S, max=S),
            L.ShotLength(id="P4", min=S * 2 // 3, max=S),
        ],
        [],
    ),
    "a length the music cannot cover": (
        [L.Duration(id="P1", min=8 * S, max=9 * S), L.Music(id="P2", track_id="m2")],
        [track("m2", 5.3, beats=range(0, 150, 15))],
    ),
}


@pytest.mark.parametrize("name", list(PLANTED))
def test_the_deletion_filter_finds_the_planted_entries(name: str) -> None:
    planted, tracks = PLANTED[name]
    ledger = [BYSTANDERS[0], planted[0], BYSTANDERS[1], *planted[1:], BYSTANDERS[2]]
    task = make_task(POOL, tracks=[TRACK, *tracks], ledger=ledger)
    conflict = minimal_conflict(task)
    assert conflict is not None
    assert set(conflict.entries) == {r.id for r in planted}
    assert all(f"{r.id} ({r.kind})" in conflict.message for r in planted)


def test_the_pre_checks_agree_where_they_reach() -> None:
    planted, tracks = PLANTED["a length the music cannot cover"]
    task = make_task(POOL, tracks=[TRACK, *tracks], ledger=[*BYSTANDERS, *planted])
    assert [c.entries for c in precheck(task)] == [("P1", "P2")]


def test_a_feasible_ledger_has_no_conflict() -> None:
    planted, _ = PLANTED["two shots that do not fit the length"]
    task = make_task(POOL, tracks=[TRACK], ledger=[*BYSTANDERS, *planted[:3]])
    assert not proven_infeasible(task)
    assert minimal_conflict(task) is None
