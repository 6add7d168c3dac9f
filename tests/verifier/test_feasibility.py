"""Pre-checks: conflicts among hard entries and the pool, what relaxing them means, the bound
they imply and the messages an unmet entry then carries."""

from __future__ import annotations

import pytest

from services.verifier import ledger as L
from services.verifier.bound import upper_bound
from services.verifier.feasibility import (
    Conflict,
    blocked_messages,
    deletion_filter,
    disjoint_count,
    precheck,
    relax,
    relaxed,
    restricted,
)
from services.verifier.pool import Orientation, Selector
from services.verifier.score import Verifier
from services.verifier.timeline import MusicPlacement
from tests.verifier.factories import FPS, clip, make_task, seq, timeline, track

S = FPS  # frames per second


def tags(*names: str) -> Selector:
    return Selector(tags=frozenset(names))


def duration(id: str, low: float, high: float, *, hard: bool = True) -> L.Duration:
    return L.Duration(id=id, hard=hard, min=round(low * S), max=round(high * S))


POOL = [clip("bikes", 10, tags=["bikes"]), clip("bunny", 5.3, tags=["big", "buck", "bunny"])]


def test_a_length_the_music_cannot_cover_names_the_entries_and_the_track() -> None:
    task = make_task(
        POOL,
        tracks=[track("m1", 5.31)],
        ledger=[duration("L1", 7, 9), L.Music(id="L5", track_id="m1")],
    )
    (conflict,) = precheck(task)
    assert conflict.entries == ("L1", "L5")
    assert conflict.facts == ("music m1 is 5.3 s",)
    assert "no cut with it can be longer than 5.3 s" in conflict.message


def test_without_a_music_rule_the_track_does_not_limit_the_length() -> None:
    task = make_task(POOL, tracks=[track("m1", 5.31)], ledger=[duration("L1", 7, 9)])
    assert precheck(task) == []


def test_footage_shorter_than_the_length_conflicts_only_under_no_reuse() -> None:
    ledger = [duration("L1", 20, 25), L.NoReuse(id="L2")]
    (conflict,) = precheck(make_task(POOL, ledger=ledger))
    assert conflict.entries == ("L1", "L2")
    assert conflict.facts == ("the pool holds 15.3 s of footage",)
    assert precheck(make_task(POOL, ledger=ledger[:1])) == []


def test_an_exclusion_that_shrinks_the_footage_joins_the_conflict() -> None:
    ledger = [
        duration("L1", 8, 9),
        L.NoReuse(id="L2"),
        L.MustExclude(id="L3", selector=tags("bikes")),
        L.MustExclude(id="L4", selector=tags("nothing-has-this")),
    ]
    (conflict,) = precheck(make_task(POOL, ledger=ledger))
    assert conflict.entries == ("L1", "L2", "L3")
    assert conflict.facts == ("the clips allowed hold 5.3 s of footage",)


@pytest.mark.parametrize(
    "rule",
    [
        L.MustInclude(id="L1", selector=tags("cat")),
        L.Order(id="L1", first=tags("cat")),
        L.Order(id="L1", last=tags("cat")),
    ],
)
def test_a_selection_no_clip_has(rule: L.Constraint) -> None:
    (conflict,) = precheck(make_task(POOL, ledger=[rule]))
    assert (conflict.entries, conflict.facts) == (("L1",), ("no clip has tags cat",))


def test_a_selection_only_excluded_clips_have() -> None:
    ledger = [
        L.Order(id="L1", last=tags("bunny")),
        L.MustExclude(id="L2", selector=tags("buck")),
        L.OrientationRule(id="L3", value=Orientation.LANDSCAPE),
    ]
    (conflict,) = precheck(make_task(POOL, ledger=ledger))
    assert conflict.entries == ("L1", "L2")
    assert "rule them out" in conflict.message


def test_more_shots_than_clips_under_no_reuse() -> None:
    pool = [*POOL, clip("ride", 3, tags=["bikes"])]
    counted = [L.MustInclude(id="L1", selector=tags("bikes"), min_count=3), L.NoReuse(id="L2")]
    (conflict,) = precheck(make_task(pool, ledger=counted))
    assert (conflict.entries, conflict.facts) == (("L1", "L2"), ("2 clips match tags bikes",))
    assert precheck(make_task(pool, ledger=[*counted[:1], L.NoReuse(id="L2", max_uses=2)])) == []
    paced = [
        duration("L1", 8, 9),
        L.ShotLength(id="L2", min=S // 2, max=2 * S),
        L.NoReuse(id="L3"),
    ]
    (conflict,) = precheck(make_task(pool, ledger=paced))
    assert conflict.entries == ("L1", "L2", "L3") and "4 shots" in conflict.message


def test_shot_lengths_shapes_and_downbeats_the_pool_lacks() -> None:
    ledger = [
        L.ShotLength(id="L1", min=11 * S, max=12 * S),
        L.OrientationRule(id="L2", value=Orientation.PORTRAIT),
        L.EndOnDownbeat(id="L3", tolerance=3),
        duration("L4", 5, 10),
    ]
    found = {c.entries: c for c in precheck(make_task(POOL, tracks=[track()], ledger=ledger))}
    assert set(found) == {("L1",), ("L2",), ("L3",)}  # (L4, L1) holds (L1,): dropped
    assert found[("L1",)].facts == ("the longest clip, bikes, is 10 s",)
    assert found[("L2",)].facts == ("no clip is portrait",)
    longer = [L.ShotLength(id="L1", min=6 * S, max=8 * S), duration("L4", 3, 5)]
    (conflict,) = precheck(make_task(POOL, ledger=longer))
    assert (conflict.entries, conflict.facts) == (("L4", "L1"), ())


def test_soft_entries_are_no_conflict_and_a_superset_is_dropped() -> None:
    ledger = [duration("L1", 20, 25), L.NoReuse(id="L2", hard=False)]
    assert precheck(make_task(POOL, ledger=ledger)) == []
    assert precheck(make_task(POOL, ledger=ledger), also=["L2"])[0].entries == ("L1", "L2")


def test_disjoint_conflicts_count_the_rules_every_cut_breaks() -> None:
    a, b, c = (Conflict(e, (), "") for e in (("L1", "L2"), ("L3",), ("L1", "L4")))
    assert disjoint_count([a, b, c]) == 2
    assert disjoint_count([]) == 0


def _example():
    ledger = [
        duration("L1", 7, 9),
        L.Order(id="L2", first=tags("bikes")),
        L.Order(id="L3", last=tags("bunny")),
        L.Music(id="L5", track_id="m1"),
    ]
    return make_task(POOL, tracks=[track("m1", 5.31, beats=range(0, 150, 15))], ledger=ledger)


def test_the_bound_of_an_infeasible_task_says_some_hard_rule_breaks() -> None:
    task = _example()
    bound = upper_bound(task)
    assert bound.hard_met == 0.0
    assert bound.ves < 1.0 and bound.hard_broken == pytest.approx(0.6 * 3 / 4 + 0.2 + 0.2)
    assert upper_bound(relaxed(task, ["L1"])).hard_met > 0


def test_an_unmet_entry_in_a_conflict_says_why_instead_of_asking_for_a_fix() -> None:
    task = _example()
    cut = timeline(*seq(("bikes", 60), ("bunny", 90)).shots, music=MusicPlacement("m1", 0))
    report = Verifier(task).verify(cut)
    l1 = next(c for c in report.constraints if c.id == "L1")
    assert not l1.satisfied and l1.message is not None
    assert "music m1 is 5.3 s" in l1.message and "add" not in l1.message
    soft = Verifier(relaxed(task, ["L1"])).verify(cut)
    assert "music m1 is 5.3 s" in next(c for c in soft.constraints if c.id == "L1").message


def test_a_soft_entry_that_can_be_broken_leaves_the_hard_ones_messages_alone() -> None:
    task = make_task(POOL, ledger=[duration("L1", 20, 25), L.NoReuse(id="L2", hard=False)])
    assert set(blocked_messages(task)) == {"L2"}


def test_relax_picks_the_length_first_and_one_entry_per_conflict() -> None:
    task = _example()
    conflicts = [*precheck(task), Conflict(("L1", "L3"), (), "")]
    assert relax(task, conflicts) == ("L1",)
    soft = relaxed(task, ["L1"])
    assert [r.hard for r in soft.ledger] == [False, True, True, True]
    assert precheck(soft) == []
    assert [r.id for r in restricted(soft, ["L2", "L5"]).ledger] == ["L2", "L5"]


def test_the_deletion_filter_keeps_a_minimal_infeasible_subset() -> None:
    needs = ({"L2", "L5"}, {"L9"})  # infeasible when it holds either set

    def infeasible(kept: frozenset[str]) -> bool:
        return any(need <= kept for need in needs)

    assert deletion_filter(["L1", "L2", "L3", "L5", "L9"], infeasible) == ("L9",)
    assert deletion_filter(["L1", "L2", "L3", "L5"], infeasible) == ("L2", "L5")
