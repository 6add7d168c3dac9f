"""The greedy first cut the model proposers fall back to."""

from __future__ import annotations

import pytest

from services.planner.proposers.simple_draft import simple_draft
from services.verifier.ledger import Duration
from services.verifier.score import Verifier
from services.verifier.timeline import TransitionType
from tests.planner.prompt_tasks import example_task, pool_task
from tests.verifier.factories import clip, make_task, track


@pytest.mark.parametrize("name", ["surf-reel", "city-night", "cooking-short"])
def test_examples_draft_executable_and_on_length(name: str) -> None:
    task = example_task(name)
    timeline = simple_draft(task, seed=0)
    report = Verifier(task).verify(timeline)
    assert report.executable, report.errors
    duration = next(c for c in task.ledger if isinstance(c, Duration))
    assert duration.min <= timeline.length <= duration.max
    assert all(s.transition_in.type is TransitionType.CUT for s in timeline.shots)
    assert len({s.clip_id for s in timeline.shots}) == len(timeline.shots)


def test_relevant_clips_first_and_exclusions_skipped() -> None:
    task = pool_task(80)
    timeline = simple_draft(task, seed=3)
    used = [task.clips[s.clip_id] for s in timeline.shots]
    assert not {"c007", "c013"} & {c.id for c in used}
    assert all(c.orientation.value == "portrait" for c in used)
    assert timeline.music is not None and timeline.music.track_id == "m01"
    assert Verifier(task).verify(timeline).executable


def test_seed_breaks_ties_deterministically() -> None:
    task = make_task([clip(f"c{i}", 5) for i in range(8)])  # no clip matches the brief better
    assert simple_draft(task, seed=1) == simple_draft(task, seed=1)
    orders = {tuple(s.clip_id for s in simple_draft(task, seed=s).shots) for s in range(6)}
    assert len(orders) > 1


def test_short_music_is_left_out_and_default_length_used() -> None:
    task = make_task([clip("a", 30), clip("b", 30)], tracks=[track("m1", seconds=5)])
    timeline = simple_draft(task, seed=0)
    assert timeline.music is None
    assert timeline.length == 15 * task.fps
    assert Verifier(task).verify(timeline).executable
