"""Synthetic episodes: seeded, balanced, 3–15 steps, each action consistent with its screen."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from services.common.errors import RefineryError
from services.trainer.episodes.evaluate import action_match
from services.trainer.episodes.generator import KINDS, MAX_STEPS, MIN_STEPS, generate_episodes
from services.trainer.episodes.model import ActionType, Episode, Observation, Step
from services.trainer.episodes.policy import action_text

SEEDS = (0, 1, 7, 42, 1234)


@pytest.fixture(scope="module")
def corpus() -> list[Episode]:
    return [ep for seed in SEEDS for ep in generate_episodes(48, seed=seed)]


def transitions(episode: Episode) -> Iterator[tuple[int, Step, Observation]]:
    """Each step with the observation its action led to."""
    nexts = [s.observation for s in episode.steps[1:]] + [episode.final_observation]
    for index, (step, after) in enumerate(zip(episode.steps, nexts, strict=True)):
        assert after is not None
        yield index, step, after


def test_same_seed_same_episodes_and_prefix_stable() -> None:
    first = [ep.to_dict() for ep in generate_episodes(12, seed=5)]
    assert first == [ep.to_dict() for ep in generate_episodes(12, seed=5)]
    assert first[:5] == [ep.to_dict() for ep in generate_episodes(5, seed=5)]
    other = [ep.to_dict() for ep in generate_episodes(12, seed=6)]
    assert sum(a["goal"] != b["goal"] for a, b in zip(first, other, strict=True)) >= 8


def test_step_counts_stay_in_range_and_vary(corpus: list[Episode]) -> None:
    lengths = [len(ep.steps) for ep in corpus]
    assert min(lengths) >= MIN_STEPS and max(lengths) <= MAX_STEPS
    assert len(set(lengths)) >= 8


def test_kinds_are_balanced_and_restricted(corpus: list[Episode]) -> None:
    counts = Counter(ep.meta["kind"] for ep in generate_episodes(10, seed=3))
    assert set(counts) == set(KINDS)
    assert max(counts.values()) - min(counts.values()) <= 1
    only = generate_episodes(6, seed=3, kinds=["search", "form"])
    assert Counter(ep.meta["kind"] for ep in only) == {"search": 3, "form": 3}
    with pytest.raises(RefineryError) as info:
        generate_episodes(2, seed=0, kinds=["juggling"])
    assert info.value.param == "kinds"


def test_goals_are_varied(corpus: list[Episode]) -> None:
    goals = {ep.goal for ep in corpus}
    assert len(goals) >= 0.8 * len(corpus)
    for kind in KINDS:
        assert len({ep.goal.split()[0] for ep in corpus if ep.meta["kind"] == kind}) >= 2


def test_clicks_hit_clickable_elements_at_their_centre(corpus: list[Episode]) -> None:
    clicks = 0
    for ep in corpus:
        for step in ep.steps:
            if step.action.type is ActionType.CLICK:
                target = step.observation.element(step.action.target_id or "")
                assert target is not None and target.clickable
                assert (step.action.x, step.action.y) == target.centre
                clicks += 1
    assert clicks > len(corpus)


def test_layouts_have_distractors_labels_and_no_overlap(corpus: list[Episode]) -> None:
    for ep in corpus[::3]:
        for step in ep.steps:
            ui = step.observation.ui
            assert any(not e.clickable for e in ui)
            assert sum(e.clickable for e in ui) >= 2 or step.action.type is ActionType.WAIT
            for i, a in enumerate(ui):
                for b in ui[i + 1 :]:
                    ax1, ay1, ax2, ay2 = a.bbox
                    bx1, by1, bx2, by2 = b.bbox
                    overlap = ax1 < bx2 and bx1 < ax2 and ay1 < by2 and by1 < ay2
                    assert not overlap, (ep.episode_id, a, b)


def test_typing_goes_to_the_focused_field_and_shows_up(corpus: list[Episode]) -> None:
    typed = 0
    for ep in corpus:
        for _, step, after in transitions(ep):
            if step.action.type is not ActionType.TYPE:
                continue
            field = step.observation.focused()
            assert field is not None
            shown = after.element(field.id)
            assert shown is not None and step.action.text in shown.text
            assert step.action.text.lower() in ep.goal.lower()
            typed += 1
    assert typed > 50


def test_next_observation_reflects_every_action(corpus: list[Episode]) -> None:
    for ep in corpus:
        seen = [s.observation for s in ep.steps]
        for index, step, after in transitions(ep):
            kind = step.action.type
            assert after != step.observation, (ep.episode_id, index, kind)
            if kind is ActionType.WAIT:
                assert any(e.text.startswith("Loading") for e in step.observation.ui)
                assert not any(e.text.startswith("Loading") for e in after.ui)
            if kind is ActionType.NAVIGATE_BACK:
                assert after in seen[:index]
            if kind is ActionType.OPEN_APP:
                app = step.action.app_name or ""
                assert (
                    any(app in e.text for e in after.ui)
                    or ep.steps[index + 1].action.type is ActionType.WAIT
                )


def test_each_kind_uses_its_actions(corpus: list[Episode]) -> None:
    used: dict[str, set[ActionType]] = {kind: set() for kind in KINDS}
    for ep in corpus:
        assert ep.steps[0].action.type is ActionType.OPEN_APP
        used[ep.meta["kind"]] |= {s.action.type for s in ep.steps}
    assert ActionType.TYPE in used["form"] and ActionType.TYPE in used["search"]
    assert ActionType.NAVIGATE_BACK in used["navigation"]
    assert ActionType.SCROLL in used["settings"]
    assert all(ActionType.WAIT in actions for actions in used.values())


def test_negative_count_is_rejected() -> None:
    with pytest.raises(RefineryError) as info:
        generate_episodes(-1, seed=0)
    assert info.value.param == "n"
    assert generate_episodes(0, seed=0) == []


def test_steps_record_distinct_alternatives_of_mixed_validity(corpus: list[Episode]) -> None:
    scores = Counter()
    for ep in corpus[::4]:
        for step in ep.steps:
            assert len(step.alternatives) == 3
            assert step.action not in step.alternatives
            assert len(set(map(action_text, step.alternatives))) == 3
            scores.update(action_match(alt, step) for alt in step.alternatives)
    assert scores[0.0] > scores[1.0] > 0


def test_alternatives_leave_the_trajectories_unchanged() -> None:
    bare = generate_episodes(4, seed=9, alternatives=0)
    full = generate_episodes(4, seed=9)
    assert all(not s.alternatives for ep in bare for s in ep.steps)
    for a, b in zip(bare, full, strict=True):
        assert [s.observation for s in a.steps] == [s.observation for s in b.steps]
        assert a.actions == b.actions and a.goal == b.goal
    with pytest.raises(RefineryError) as info:
        generate_episodes(1, seed=0, alternatives=-1)
    assert info.value.param == "alternatives"
