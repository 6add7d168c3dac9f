"""AndroidControl release records (dict-form accessibility trees) → our episodes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from services.trainer.episodes.androidcontrol import (
    AndroidControlFormatError,
    UnknownActionType,
    convert_episode,
    convert_tree,
    load_episodes,
)
from services.trainer.episodes.model import HOME_APP, ActionType, parse_episode

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "androidcontrol"


def record(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def episodes() -> dict[str, Any]:
    return {ep.episode_id: ep for ep in load_episodes(FIXTURES)}


def test_every_fixture_converts_with_its_goal_and_steps(episodes: dict[str, Any]) -> None:
    assert sorted(episodes) == ["1001", "1002", "1003", "1004"]
    for ep in episodes.values():
        raw = record(next(FIXTURES.glob(f"episode_{ep.episode_id}_*.json")).name)
        assert ep.goal == raw["goal"] and ep.success is True
        assert len(ep.steps) == len(raw["actions"])
        assert [s.instruction for s in ep.steps] == raw["step_instructions"]
        assert ep.final_observation is not None
        assert parse_episode(ep.to_dict()) == ep


def test_click_maps_to_the_smallest_clickable_under_the_point(episodes: dict[str, Any]) -> None:
    clock = episodes["1001"]
    tab = clock.steps[1].action
    # (120, 2310) lies on the text "Alarm" (not clickable) inside its clickable tab.
    assert (tab.target_id, tab.x, tab.y) == ("n10", 135, 2300)
    assert clock.steps[1].observation.element("n10").text == "Alarm"
    switch = clock.steps[2].action
    assert switch.target_id == "n23"  # the switch, not the whole alarm row around it
    assert clock.steps[3].observation.element("n23").text == "On"


def test_lossy_action_types_follow_the_documented_mapping(episodes: dict[str, Any]) -> None:
    clock, contacts = episodes["1001"], episodes["1003"]
    assert clock.steps[3].action.to_dict() == {"type": "open_app", "app_name": HOME_APP}
    assert clock.meta["lossy_steps"] == [3]
    assert contacts.steps[1].action.to_dict() == {"type": "type", "text": "John Smith"}
    assert contacts.steps[2].action.type is ActionType.CLICK  # long_press
    assert contacts.steps[2].action.target_id == "n82"
    assert contacts.meta["lossy_steps"] == [1, 2]


def test_one_to_one_action_types(episodes: dict[str, Any]) -> None:
    chrome = episodes["1002"]
    assert [s.action.type.value for s in chrome.steps] == [
        "open_app",
        "click",
        "type",
        "click",
        "wait",
        "scroll",
    ]
    assert chrome.steps[2].action.text == "weather in Paris"
    assert chrome.steps[5].action.direction == "down"
    assert chrome.steps[2].observation.focused().id == "n30"
    assert episodes["1004"].steps[4].action.type is ActionType.NAVIGATE_BACK


def test_tree_text_visibility_and_clipping(episodes: dict[str, Any]) -> None:
    chrome = episodes["1002"]
    # A text-less clickable container takes its children's text; a hint stands in for text.
    assert chrome.steps[3].observation.element("n50").text == "weather in paris"
    assert chrome.steps[1].observation.element("n30").text == "Search or type web address"
    # Nodes of every window are read (the keyboard's Enter key).
    assert chrome.steps[2].observation.element("n41") is not None
    # camelCase keys; invisible nodes and nodes wholly off screen are dropped.
    settings = episodes["1004"].steps[1].observation
    assert [e.text for e in settings.ui] == [
        "Settings",
        "Network & internet",
        "Connected devices",
        "Battery",
    ]
    bounds = {"left": -50, "top": 2300, "right": 200, "bottom": 2600}
    node = {"unique_id": 3, "text": "Edge", "bounds_in_screen": bounds}
    partly = {"windows": [{"tree": {"nodes": [node]}}]}
    assert convert_tree(partly, 1080, 2400).ui[0].bbox == (0, 2300, 200, 2400)


def test_unknown_action_type_names_the_step() -> None:
    raw = record("episode_1004_settings.json")
    raw["actions"][2] = json.dumps({"action_type": "double_tap", "x": 1, "y": 1})
    with pytest.raises(UnknownActionType) as info:
        convert_episode(raw)
    assert info.value.step == 2
    assert info.value.param == "actions[2].action_type"
    assert info.value.code == "unknown_action_type"


@pytest.mark.parametrize(
    ("mutate", "param"),
    [
        (lambda r: r["actions"].__setitem__(1, "{not json"), "actions[1]"),
        (lambda r: r["actions"].__setitem__(1, '{"action_type":"scroll"}'), "actions[1].direction"),
        (lambda r: r["actions"].__setitem__(2, '{"action_type":"click","x":"a"}'), "actions[2]"),
        (
            lambda r: r.__setitem__("accessibility_trees", r["accessibility_trees"][:2]),
            "accessibility_trees",
        ),
        (lambda r: r.pop("goal"), "goal"),
        (lambda r: r.__setitem__("actions", []), "actions"),
    ],
)
def test_malformed_records_raise_typed_errors(mutate: Any, param: str) -> None:
    raw = copy.deepcopy(record("episode_1004_settings.json"))
    mutate(raw)
    with pytest.raises(AndroidControlFormatError) as info:
        convert_episode(raw)
    assert info.value.param == param


def test_jsonl_and_list_files_load(tmp_path: Path) -> None:
    raws = [record("episode_1001_clock.json"), record("episode_1004_settings.json")]
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in raws) + "\n")
    (tmp_path / "b.json").write_text(json.dumps(raws))
    assert [e.episode_id for e in load_episodes(tmp_path / "a.jsonl")] == ["1001", "1004"]
    assert [e.episode_id for e in load_episodes(tmp_path)] == ["1001", "1004"] * 2
