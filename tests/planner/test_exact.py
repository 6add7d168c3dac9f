"""The exact solver: its optimum matches brute force over the discretisation, it says when
it proved it, and ``exact`` is a proposer like any other."""

from __future__ import annotations

import itertools

import pytest

from benchmarks.editbench import generate_row
from protocol.verifier import TaskIn
from services.planner.exact.discretise import music_options, transition_in
from services.planner.exact.solver import solve
from services.planner.proposers.exact import ExactProposer, replace_all
from services.verifier import ledger as L
from services.verifier.bound import upper_bound
from services.verifier.patches import apply_patch
from services.verifier.pool import Brief, Clip, MusicTrack, Selector
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import CUT, FrameRange, Shot, Timeline

FPS = 10
CLIPS = [
    Clip(id="a", duration=12, caption="surfer on a wave", tags=frozenset({"surf", "ocean"})),
    Clip(id="b", duration=30, caption="sunset over the ocean", tags=frozenset({"sunset"})),
    Clip(id="c", duration=8, caption="city lights", tags=frozenset({"city"})),
    Clip(id="d", duration=25, caption="surfer at sunset", tags=frozenset({"surf", "sunset"})),
]
TRACK = MusicTrack(id="m", duration=40, beats=(5, 10, 15, 20, 25, 30), downbeats=(5, 25))


def _task(*ledger: L.Constraint) -> Task:
    return Task.build(
        id="tiny",
        fps=FPS,
        brief=Brief("surfer sunset ocean", style="energetic"),
        clips=CLIPS,
        tracks=[TRACK],
        ledger=ledger,
    )


def _brute_force(task: Task, max_shots: int) -> float:
    """The best verified VES over every timeline of the discretisation."""
    verifier, best = Verifier(task), 0.0
    for option in music_options(task):
        for n in range(1, max_shots + 1):
            for clips in itertools.permutations(task.clips, n):
                for ends in itertools.combinations(option.grid, n):
                    shots, start = [], 0
                    for clip, end in zip(clips, ends, strict=True):
                        shots.append(Shot(clip, FrameRange(0, end - start), CUT))
                        start = end
                    timeline = Timeline(FPS, tuple(shots), option.placement)
                    best = max(best, verifier.verify(timeline).ves)
    return best


LEDGERS = [
    (),
    (
        L.Duration(id="d", min=15, max=25, target=20, hard=False, weight=2),
        L.ShotLength(id="s", min=5, max=10),
        L.EndOnDownbeat(id="e", tolerance=1, hard=False),
    ),
    (
        L.MustInclude(id="i", selector=Selector(tags=frozenset({"city"}))),
        L.Order(
            id="o",
            before=Selector(clip_ids=frozenset({"b"})),
            after=Selector(clip_ids=frozenset({"a", "c"})),
            hard=False,
        ),
        L.MaxConsecutiveTag(id="r", tag="surf", max_run=1, hard=False),
    ),
    (
        L.Coverage(id="c", topics=("surfer", "city", "cats"), min_fraction=0.9, hard=False),
        L.MustExclude(id="x", selector=Selector(tags=frozenset({"sunset"})), hard=False),
        L.Music(id="m", track_id="m"),
    ),
]


@pytest.mark.parametrize("ledger", LEDGERS)
def test_the_optimum_matches_brute_force_over_the_discretisation(ledger) -> None:
    task = _task(*ledger)
    found = solve(task, max_shots=3, time_limit_s=60)
    assert found.proven and found.status in {"optimal", "bound"}, found.status
    assert found.timeline is not None
    assert Verifier(task).verify(found.timeline).ves == found.ves
    assert found.ves >= _brute_force(task, 3) - found.tolerance
    assert found.ves <= upper_bound(task).ves


def test_order_inversions_are_verified_not_trusted() -> None:
    # the model only bounds the inversion penalty; the verified optimum still matches
    order = L.Order(
        id="o",
        first=Selector(clip_ids=frozenset({"c"})),
        before=Selector(tags=frozenset({"sunset"})),
        after=Selector(tags=frozenset({"surf"})),
        hard=False,
        weight=5,
    )
    task = _task(order)
    found = solve(task, max_shots=3, time_limit_s=60)
    assert found.proven
    assert found.ves >= _brute_force(task, 3) - found.tolerance


def test_the_time_limit_is_reported_not_hidden() -> None:
    found = solve(_task(*LEDGERS[1]), time_limit_s=1e-4)
    assert not found.proven and found.status == "time_limit"


def test_a_work_limit_gives_the_same_answer_every_time() -> None:
    # 20 clips: the search needs about 11 units of deterministic work to prove its optimum
    task = TaskIn.model_validate(generate_row(1, 10)["task"]).to_task()
    first, again = (solve(task, work_limit=1.0, time_limit_s=600) for _ in range(2))
    assert first.status == again.status == "work_limit" and not first.proven
    assert first.timeline is not None and first.timeline == again.timeline
    assert first.ves == again.ves and first.models == again.models
    assert solve(task, work_limit=2.0, time_limit_s=600).ves >= first.ves


def test_the_exact_limits_are_planner_settings(tmp_path) -> None:
    from services.common.db import create_tables, make_engine
    from services.planner.config import PlannerSettings
    from services.planner.registry import ProposerRegistry

    settings = PlannerSettings(data_dir=tmp_path, exact_time_limit_s=30, exact_work_limit=5)
    engine = make_engine(f"sqlite:///{tmp_path}/p.db")
    create_tables(engine)
    proposer = ProposerRegistry(settings, engine).resolve("exact")
    assert isinstance(proposer, ExactProposer)
    assert (proposer.time_limit_s, proposer.work_limit) == (30, 5)
    with pytest.raises(ValueError, match="exact_work_limit"):
        PlannerSettings(exact_work_limit=0)


def test_cuts_follow_the_beat_grid_and_the_ledger_transitions() -> None:
    task = _task()
    assert transition_in(task) == CUT
    found = solve(task, max_shots=3, time_limit_s=60)
    assert found.timeline is not None and found.timeline.music is not None
    offset = found.timeline.music.offset
    assert all(cut + offset in TRACK.beats for cut in found.timeline.cut_positions())


def test_replace_all_turns_one_cut_into_another() -> None:
    task = _task()
    target = solve(task, max_shots=3, time_limit_s=60).timeline
    assert target is not None
    current = Timeline(FPS, (Shot("c", FrameRange(0, 8)), Shot("a", FrameRange(2, 9))))
    ops = replace_all(current, target)
    assert ops is not None and apply_patch(task, current, ops) == target


def test_the_proposer_drafts_the_optimum_and_offers_it_in_repair() -> None:
    task = _task(*LEDGERS[1])
    proposer = ExactProposer(relevance_backend="tfidf", max_shots=3, time_limit_s=60)
    draft = proposer.draft(task, seed=0)
    assert draft == proposer.solution(task).timeline
    weak = Timeline(FPS, (Shot("c", FrameRange(0, 8)),))
    report = Verifier(task).verify(weak)
    proposals = proposer.propose(task, weak, report, n=3, seed=0)
    assert proposals[0].note.startswith("exact:")
    assert apply_patch(task, weak, proposals[0].ops) == draft
