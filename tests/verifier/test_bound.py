"""The VES upper bound: never below the VES of any timeline the verifier scores."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from benchmarks.editbench import generate_row
from protocol.verifier import TaskIn, TimelineIn
from services.planner.proposers.search import SearchProposer
from services.verifier import ledger as L
from services.verifier.bound import hard_window, upper_bound
from services.verifier.pool import Brief, Clip
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import CUT, FrameRange, Shot, Timeline
from tests.verifier.factories import seq
from tests.verifier.test_properties import PROPERTY, scenarios, tasks, timelines


@PROPERTY
@given(scenarios())
def test_bound_is_above_random_timelines(scenario) -> None:
    task, timeline = scenario
    assert Verifier(task).verify(timeline).ves <= upper_bound(task).ves


@PROPERTY
@given(tasks(), st.data())
def test_bound_is_above_every_timeline_of_one_task(task, data) -> None:
    bound = upper_bound(task).ves
    verifier = Verifier(task)
    for _ in range(5):
        assert verifier.verify(data.draw(timelines(task))).ves <= bound


@given(st.integers(0, 400))
@PROPERTY
def test_bound_is_above_planted_and_planned_editbench_cuts(index: int) -> None:
    row = generate_row(7, index)
    task = TaskIn.model_validate(row["task"]).to_task()
    verifier = Verifier(task)
    bound = upper_bound(task, verifier).ves
    planted = TimelineIn.model_validate(row["planted"]).to_timeline(task)
    assert verifier.verify(planted).ves <= bound
    draft = SearchProposer(relevance_backend="tfidf").draft(task, seed=0)
    assert verifier.verify(draft).ves <= bound


def _task(*ledger: L.Constraint, clips: int = 3) -> Task:
    pool = [
        Clip(id=f"c{i}", duration=90, caption="surfer", tags=frozenset({f"t{i}"}))
        for i in range(clips)
    ]
    return Task.build(id="b", fps=30, brief=Brief("surfer"), clips=pool, ledger=ledger)


def test_a_task_every_cut_can_ace_is_bounded_by_one() -> None:
    task = _task()
    report = Verifier(task).verify(seq(("c0", 60), ("c1", 60)))
    assert upper_bound(task).ves == 1.0
    assert report.ves < 1.0  # no music: beats score 0 with cuts


def test_hard_rules_narrow_the_shot_count_window() -> None:
    task = _task(
        L.Duration(id="d", min=300, max=330), L.ShotLength(id="s", min=60, max=90, hard=True)
    )
    assert hard_window(task) == (4, 5, 60, 90)
    assert upper_bound(task).shots == (4, 5)


def test_without_music_hard_rules_cap_q_below_one() -> None:
    # four shots at least and no track: the beats part is 0, so Q ≤ 3/4 under the hard rules
    task = _task(L.Duration(id="d", min=300, max=330), L.ShotLength(id="s", min=60, max=90))
    bound = upper_bound(task)
    assert bound.hard_met == 0.6 + 0.2 + 0.2 * 0.75
    assert bound.ves < 1.0


def test_an_impossible_hard_rule_caps_h() -> None:
    from services.verifier.pool import Selector

    task = _task(
        L.MustInclude(id="m", selector=Selector(tags=frozenset({"cats"}))),
        L.Duration(id="d", min=1, max=900),
    )
    bound = upper_bound(task)
    assert bound.hard_met == 0.0
    assert bound.ves <= 0.6 * 0.5 + 0.2 + 0.2 + 1e-6


def test_a_large_pool_is_bounded_without_scanning_every_pair() -> None:
    task = _task(clips=400)
    timeline = seq(*((f"c{i}", 60) for i in range(12)))
    assert Verifier(task).verify(timeline).ves <= upper_bound(task).ves


def test_a_shot_length_rule_no_shot_can_meet_is_bounded_not_a_crash() -> None:
    task = _task(L.ShotLength(id="s", min=0, max=0), L.Duration(id="d", min=1, max=900))
    bound = upper_bound(task)
    assert bound.hard_met == 0.0
    assert Verifier(task).verify(seq(("c0", 60))).ves <= bound.ves


def test_the_bound_covers_the_verifiers_rounding() -> None:
    # a one-frame clip: VES 0.95166666…, reported as 0.951667, above the unrounded bound
    clip = Clip(id="c0", duration=1, caption="surfer", tags=frozenset({"surf"}))
    task = Task.build(
        id="t", fps=30, brief=Brief("surfer sunset ocean", style="energetic"), clips=[clip]
    )
    one_frame = Timeline(30, (Shot("c0", FrameRange(0, 1), CUT),), None)
    assert Verifier(task).verify(one_frame).ves == 0.951667
    assert upper_bound(task).ves >= 0.951667
