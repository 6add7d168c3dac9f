"""The episode model: the DESIGN.md wire form, per-type action fields, click consistency."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from services.trainer.episodes.model import (
    Action,
    ActionType,
    Episode,
    EpisodeError,
    Observation,
    Step,
    UIElement,
    parse_episode,
)

BUTTON = UIElement(id="e2", text="Save", bbox=(800, 100, 1000, 200), clickable=True)
LABEL = UIElement(id="e1", text="New contact", bbox=(0, 100, 700, 200))
SCREEN = Observation(ui=(LABEL, BUTTON))


def test_wire_form_matches_design_and_round_trips() -> None:
    episode = Episode(
        episode_id="ep-1",
        goal="Save the contact",
        steps=(Step(observation=SCREEN, action=Action.click(BUTTON)),),
    )
    data = episode.to_dict()
    assert set(data) == {"episode_id", "goal", "steps", "success"}
    step = data["steps"][0]
    assert set(step) == {"observation", "action"}
    assert step["observation"]["ui"][1] == {
        "id": "e2",
        "text": "Save",
        "bbox": [800, 100, 1000, 200],
        "clickable": True,
    }
    assert step["observation"]["screen"] == [1080, 2400]
    assert step["action"] == {"type": "click", "target_id": "e2", "x": 900, "y": 150}
    assert parse_episode(data) == episode


@pytest.mark.parametrize(
    ("action", "wire"),
    [
        (Action.type_text("Ada"), {"type": "type", "text": "Ada"}),
        (Action.scroll("down"), {"type": "scroll", "direction": "down"}),
        (Action.open_app("Clock"), {"type": "open_app", "app_name": "Clock"}),
        (Action.back(), {"type": "navigate_back"}),
        (Action.wait(), {"type": "wait"}),
    ],
)
def test_each_action_carries_only_its_fields(action: Action, wire: dict) -> None:
    assert action.to_dict() == wire
    assert Action.model_validate(wire) == action


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "click", "target_id": "e2"},
        {"type": "type"},
        {"type": "scroll", "direction": "diagonal"},
        {"type": "open_app", "app_name": "  "},
        {"type": "wait", "text": "x"},
        {"type": "navigate_home"},
    ],
)
def test_malformed_actions_are_rejected(wire: dict) -> None:
    with pytest.raises(ValidationError):
        Action.model_validate(wire)


def test_click_must_name_an_element_it_lands_on() -> None:
    with pytest.raises(ValidationError, match="not in the observation"):
        Step(observation=SCREEN, action=Action(type=ActionType.CLICK, target_id="e9", x=1, y=1))
    with pytest.raises(ValidationError, match="outside"):
        Step(observation=SCREEN, action=Action(type=ActionType.CLICK, target_id="e2", x=5, y=5))
    free = Step(observation=SCREEN, action=Action(type=ActionType.CLICK, x=5, y=5))
    assert free.action.to_dict() == {"type": "click", "target_id": None, "x": 5, "y": 5}


def test_observation_rejects_duplicate_ids_and_offscreen_boxes() -> None:
    with pytest.raises(ValidationError, match="duplicate"):
        Observation(ui=(LABEL, LABEL))
    with pytest.raises(ValidationError, match="leaves the screen"):
        Observation(ui=(UIElement(id="x", bbox=(0, 0, 2000, 10)),))
    with pytest.raises(ValidationError):
        UIElement(id="x", bbox=(10, 10, 10, 20))


def test_element_at_prefers_the_smallest_clickable() -> None:
    row = UIElement(id="row", text="", bbox=(0, 0, 1080, 300), clickable=True)
    switch = UIElement(id="sw", text="Off", bbox=(900, 50, 1050, 150), clickable=True)
    text = UIElement(id="t", text="Wi-Fi", bbox=(20, 50, 400, 150))
    screen = Observation(ui=(row, switch, text))
    assert screen.element_at(950, 100) == switch
    assert screen.element_at(100, 100) == row
    assert screen.element_at(100, 100, clickable_only=False) == text
    assert screen.element_at(1070, 2000) is None


def test_parse_episode_names_the_bad_field() -> None:
    bad = {"episode_id": "x", "goal": "g", "steps": [{"observation": {"ui": []}, "action": {}}]}
    with pytest.raises(EpisodeError) as info:
        parse_episode(bad)
    assert info.value.param == "steps[0].action.type"
    assert info.value.status_code == 422
    with pytest.raises(EpisodeError) as info:
        parse_episode({"episode_id": "x", "goal": "g", "steps": []})
    assert info.value.param == "steps"


def test_solar_spelling_element_id_and_alternatives_are_accepted() -> None:
    wire = {
        "observation": {"ui": [BUTTON.model_dump()], "screen": [1080, 2400]},
        "action": {"type": "click", "element_id": "e2"},
        "alternatives": [{"type": "click", "target_id": "e2"}, {"type": "wait"}],
    }
    step = Step.model_validate(wire)
    assert step.action == Action.click(BUTTON)
    assert step.alternatives == (Action.click(BUTTON), Action.wait())
    assert step.model_dump(mode="json")["alternatives"][1] == {"type": "wait"}
    plain = Step(observation=SCREEN, action=Action.wait()).model_dump(mode="json")
    assert "alternatives" not in plain and "instruction" not in plain
