"""Policy text interface: prompts, the SFT completion, and tolerant parsing."""

from __future__ import annotations

import json

import pytest

from services.trainer.episodes.generator import generate_episodes
from services.trainer.episodes.model import Action, ActionType, EpisodeError, Observation, UIElement
from services.trainer.episodes.policy import (
    MAX_HISTORY,
    action_text,
    episode_rows,
    parse_action,
    render_messages,
    render_step_messages,
)

FIELD = UIElement(
    id="e4", text="First name", bbox=(32, 260, 1048, 420), clickable=True, focused=True
)
SAVE = UIElement(id="e5", text="Save | now", bbox=(800, 100, 1000, 200), clickable=True)
TITLE = UIElement(id="e3", text="Create   contact", bbox=(32, 100, 700, 200))
SCREEN = Observation(ui=(TITLE, SAVE, FIELD))


def test_messages_show_goal_history_and_a_compact_ui_listing() -> None:
    history = [Action.open_app("Contacts"), Action.click(SAVE)]
    system, user = render_step_messages("Add Ada", SCREEN, history)
    assert system["role"] == "system" and '"type":"navigate_back"' in system["content"]
    assert user["role"] == "user"
    text = user["content"]
    assert text.startswith("Goal: Add Ada\n")
    assert '1. {"type":"open_app","app_name":"Contacts"}' in text
    assert '2. {"type":"click","target_id":"e5","x":900,"y":150}' in text
    assert "e3 | Create contact | [32,100,700,200] | no" in text
    assert "e5 | Save / now | [800,100,1000,200] | yes" in text  # the separator stays unambiguous
    assert "e4 | First name | [32,260,1048,420] | yes | focused" in text
    assert "Screen 1080x2400" in text


def test_long_histories_are_truncated_with_a_note() -> None:
    history = [Action.wait()] * (MAX_HISTORY + 3)
    user = render_step_messages("g", SCREEN, history)[1]["content"]
    assert "(3 earlier actions omitted)" in user
    assert f"{MAX_HISTORY + 3}. " in user and "\n3. " not in user
    assert "(none)" in render_step_messages("g", SCREEN, [])[1]["content"]


def test_action_text_is_compact_json_that_parses_back() -> None:
    actions = [
        Action.click(SAVE),
        Action.type_text("Ada «Lovelace»"),
        Action.scroll("left"),
        Action.open_app("Clock"),
        Action.back(),
        Action.wait(),
    ]
    for action in actions:
        text = action_text(action)
        assert " " not in text.replace("Ada «Lovelace»", "")
        assert json.loads(text) == action.to_dict()
        assert parse_action(text, SCREEN) == action
    assert action_text(actions[1]) == '{"type":"type","text":"Ada «Lovelace»"}'


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('```json\n{"type": "click", "target_id": "e5"}\n```', Action.click(SAVE)),
        ('I will tap Save. {"action_type":"click","x":850,"y":120}', Action.click(SAVE)),
        ('{"type":"click","target_id":"zz","x":900,"y":300}', Action.click(FIELD)),
        ('{"type":"tap","element":"e4"}', Action.click(FIELD)),
        ('{"action_type":"input_text","text":"Ada"}', Action.type_text("Ada")),
        ('{"type":"scroll","direction":"DOWN"}', Action.scroll("down")),
        ('{"action":"open app","app":"Clock"}', Action.open_app("Clock")),
        ('{"type":"back"}', Action.back()),
        ('{"type":"navigate_home"}', Action.open_app("Home")),
        ("Thought: nothing loaded yet.\nwait()", Action.wait()),
        ("click(e5)", Action.click(SAVE)),
        ('type("Grace Hopper")', Action.type_text("Grace Hopper")),
        ('{"oops": 1} then {"type":"wait"}', Action.wait()),
    ],
)
def test_parse_is_tolerant(answer: str, expected: Action) -> None:
    assert parse_action(answer, SCREEN) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "I am not sure what to do.",
        '{"type":"fly"}',
        '{"type":"click","target_id":"nope"}',
        '{"type":"click","x":5,"y":2390}',
        '{"type":"scroll","direction":"sideways"}',
        '{"type":"type"}',
        '{"type":"click","x":"NaN","y":1e999}',
        "[1, 2, 3]",
    ],
)
def test_garbage_parses_to_none(answer: str) -> None:
    assert parse_action(answer, SCREEN) is None


def test_parse_without_observation_keeps_coordinates() -> None:
    action = parse_action('{"type":"click","target_id":"e9","x":10,"y":20}', None)
    assert action is not None and action.type is ActionType.CLICK
    assert (action.target_id, action.x, action.y) == ("e9", 10, 20)
    assert parse_action('{"type":"click","target_id":"e9"}', None) is None


def test_episode_rows_are_teacher_forced_prompt_completion_pairs() -> None:
    episodes = generate_episodes(3, seed=11)
    rows = episode_rows(episodes)
    assert len(rows) == sum(len(ep.steps) for ep in episodes)
    first = episodes[0]
    for index, step in enumerate(first.steps):
        row = rows[index]
        assert set(row) == {"prompt", "completion"}
        assert row["completion"] == [{"role": "assistant", "content": action_text(step.action)}]
        history = [s.action for s in first.steps[:index]]
        assert row["prompt"] == render_step_messages(first.goal, step.observation, history)
    json.dumps(rows)


def test_render_messages_reads_wire_episodes_for_solar() -> None:
    episode = generate_episodes(1, seed=4)[0]
    wire = episode.to_dict()
    for index, step in enumerate(wire["steps"]):
        history = [s.action for s in episode.steps[:index]]
        expected = render_step_messages(episode.goal, episode.steps[index].observation, history)
        assert render_messages(wire, index, step) == expected
    click = next(i for i, s in enumerate(wire["steps"]) if s["action"]["type"] == "click")
    short = {"type": "click", "element_id": wire["steps"][click]["action"]["target_id"]}
    wire["steps"][click]["action"] = short
    after = click + 1
    assert render_messages(wire, after, wire["steps"][after]) == render_step_messages(
        episode.goal, episode.steps[after].observation, [s.action for s in episode.steps[:after]]
    )
    patch = {"observation": {"messages": []}, "action": {"type": "patch"}}
    with pytest.raises(EpisodeError) as info:
        render_messages({"goal": "g", "steps": [patch]}, 0, patch)
    assert info.value.param == "steps[0]"
