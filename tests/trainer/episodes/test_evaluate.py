"""Teacher-forced step success rate with scripted policies and pluggable validity."""

from __future__ import annotations

import json
from functools import partial

import pytest

from services.common.errors import RefineryError
from services.trainer.episodes.evaluate import action_match, step_success_rate
from services.trainer.episodes.generator import generate_episodes
from services.trainer.episodes.model import Action, ActionType, Episode, Step
from services.trainer.episodes.policy import action_text, render_step_messages


@pytest.fixture(scope="module")
def episodes() -> list[Episode]:
    return generate_episodes(16, seed=21)


def oracle(episodes: list[Episode]):
    """Answers the reference action for any prompt rendered from these episodes."""
    answers = {}
    for ep in episodes:
        for index, step in enumerate(ep.steps):
            history = [s.action for s in ep.steps[:index]]
            prompt = render_step_messages(ep.goal, step.observation, history)[-1]["content"]
            answers[prompt] = action_text(step.action)

    def policy(messages: list[dict[str, str]]) -> str:
        return f"Sure. ```json\n{answers[messages[-1]['content']]}\n```"

    return policy


def test_reference_answers_score_one(episodes: list[Episode]) -> None:
    result = step_success_rate(oracle(episodes), episodes, validity=action_match)
    steps = sum(len(ep.steps) for ep in episodes)
    assert result == {"step_sr": 1.0, "steps": steps, "parsed_rate": 1.0, "episode_sr": 1.0}


def test_always_wait_scores_the_share_of_wait_steps(episodes: list[Episode]) -> None:
    result = step_success_rate(lambda _: '{"type":"wait"}', episodes, validity=action_match)
    waits = sum(s.action.type is ActionType.WAIT for ep in episodes for s in ep.steps)
    steps = sum(len(ep.steps) for ep in episodes)
    assert 0 < waits < steps
    assert result["step_sr"] == pytest.approx(waits / steps)
    assert result["parsed_rate"] == 1.0 and result["episode_sr"] == 0.0


def test_garbage_counts_as_unparsed_and_never_reaches_validity(episodes: list[Episode]) -> None:
    calls: list[dict] = []

    def validity(pred: dict, ref: dict) -> float:
        calls.append(pred)
        return 1.0

    result = step_success_rate(lambda _: "no idea", episodes[:3], validity=validity)
    assert result["parsed_rate"] == 0.0 and result["step_sr"] == 0.0 and calls == []


def test_threshold_is_applied_to_phi(episodes: list[Episode]) -> None:
    def half(pred: dict, ref: dict) -> float:
        return 0.5

    policy = oracle(episodes)
    assert step_success_rate(policy, episodes, validity=half)["step_sr"] == 1.0
    strict = step_success_rate(policy, episodes, validity=half, threshold=0.6)
    assert strict["step_sr"] == 0.0 and strict["episode_sr"] == 0.0


def test_validity_receives_wire_dicts_and_config(episodes: list[Episode]) -> None:
    seen: list[tuple[dict, dict, dict]] = []

    def step_validity(pred: dict, ref_step: dict, config: dict) -> float:
        seen.append((pred, ref_step, config))
        return 1.0 if pred == ref_step["action"] else 0.0

    config = {"alpha": 0.5}
    ep = episodes[0]
    scored = partial(step_validity, config=config)
    result = step_success_rate(oracle(episodes), [ep.to_dict()], validity=scored)
    assert result["step_sr"] == 1.0
    assert [ref for _, ref, _ in seen] == [s.model_dump(mode="json") for s in ep.steps]
    assert all(cfg is config for _, _, cfg in seen)


def test_solar_step_validity_plugs_in(episodes: list[Episode]) -> None:
    solar = pytest.importorskip("services.trainer.solar")
    validity = partial(solar.step_validity, config=solar.SolarConfig())
    assert step_success_rate(oracle(episodes), episodes, validity=validity)["step_sr"] == 1.0
    waits = step_success_rate(lambda _: '{"type":"wait"}', episodes, validity=validity)
    expected = step_success_rate(lambda _: '{"type":"wait"}', episodes, validity=action_match)
    assert waits == expected


def test_one_wrong_step_fails_the_episode_but_not_the_others(episodes: list[Episode]) -> None:
    ep = episodes[1]
    good = oracle([ep])

    def first_wrong(messages: list[dict[str, str]]) -> str:
        if "Previous actions:\n(none)" in messages[-1]["content"]:
            return json.dumps({"type": "open_app", "app_name": "Calculator"})
        return good(messages)

    result = step_success_rate(first_wrong, [ep], validity=action_match)
    assert result["step_sr"] == pytest.approx((len(ep.steps) - 1) / len(ep.steps))
    assert result["episode_sr"] == 0.0


def test_action_match_clicks_inside_the_target_count(episodes: list[Episode]) -> None:
    step = next(s for s in episodes[0].steps if s.action.type is ActionType.CLICK)
    target = step.observation.element(step.action.target_id)
    x1, y1, _, _ = target.bbox
    corner = Action(type=ActionType.CLICK, target_id=None, x=x1, y=y1)
    assert action_match(corner, step) == 1.0
    assert action_match(Action(type=ActionType.CLICK, x=x1 - 1, y=y1), step) == 0.0
    typed = Step(observation=step.observation, action=Action.type_text("Ada  Lovelace"))
    assert action_match(Action.type_text(" ada lovelace"), typed) == 1.0
    assert action_match(Action.type_text("Ada"), typed) == 0.0
    wire = step.model_dump(mode="json")
    assert action_match({"type": "click", "element_id": step.action.target_id}, wire) == 1.0
    assert action_match({"type": "click"}, wire) == 0.0


def test_bad_inputs_raise_typed_errors(episodes: list[Episode]) -> None:
    with pytest.raises(RefineryError) as info:
        step_success_rate(oracle(episodes), episodes, validity=action_match, threshold=1.5)
    assert info.value.param == "threshold"
    with pytest.raises(RefineryError, match="validity returned"):
        step_success_rate(oracle(episodes), episodes[:1], validity=lambda p, r: 2.0)
    empty = step_success_rate(oracle(episodes), [], validity=action_match)
    assert empty == {"step_sr": 0.0, "steps": 0, "parsed_rate": 0.0, "episode_sr": 0.0}
