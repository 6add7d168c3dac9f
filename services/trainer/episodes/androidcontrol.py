"""Convert AndroidControl (google-research/android_control) episodes into our Episode form.

A release record carries ``episode_id``, ``goal``, ``step_instructions``, ``screenshots``,
``screenshot_widths``, ``screenshot_heights``, ``accessibility_trees`` and ``actions`` (JSON
strings). The release stores each tree as an ``AndroidAccessibilityForest`` protobuf
(android_env); we read its dict form — what ``json_format.MessageToDict`` gives, snake_case or
camelCase keys — ``{"windows": [{"tree": {"nodes": [{"unique_id", "text",
"content_description", "bounds_in_screen": {"left","top","right","bottom"}, "is_clickable",
"child_ids", ...}]}}]}``. Screenshots are ignored: the policy reads text.

Mapping choices:

* A node becomes a UI element when it is visible and has text, a content description, a hint
  or is clickable; a clickable node without text takes its descendants' texts. Bounds are
  clipped to the screen; ids are ``n<unique_id>``.
* ``click`` → click on the smallest clickable element under (x, y) (else the smallest element
  of any kind, else none), with x, y snapped to its centre.
* ``long_press`` → click on the same element: our action space has no long press.
* ``input_text`` → type; ``type`` (tap, type, enter) → type: the tap target is dropped.
* ``navigate_home`` → ``open_app`` of :data:`HOME_APP`: the launcher is the home app.
* ``scroll``, ``open_app``, ``navigate_back``, ``wait`` map one to one.

Lossy mappings are listed in ``meta["lossy_steps"]``; unknown action types raise
:class:`UnknownActionType` naming the step.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .model import HOME_APP, Action, ActionType, Episode, EpisodeError, Observation, Step, UIElement

__all__ = [
    "HOME_APP",
    "AndroidControlFormatError",
    "UnknownActionType",
    "convert_action",
    "convert_episode",
    "convert_tree",
    "load_episodes",
]

_MAX_TEXT = 120


class AndroidControlFormatError(EpisodeError):
    """A release record lacks a field, or a field has the wrong shape."""

    code = "invalid_androidcontrol_record"


class UnknownActionType(AndroidControlFormatError):
    """An action's ``action_type`` is outside the AndroidControl action space we map."""

    code = "unknown_action_type"

    def __init__(self, step: int, action_type: object) -> None:
        super().__init__(
            f"step {step}: unknown action_type {action_type!r}",
            param=f"actions[{step}].action_type",
            context={"step": step, "action_type": str(action_type)},
        )
        self.step = step


def _get(node: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """A proto field by its snake_case name, also accepting MessageToDict's camelCase."""
    if name in node:
        return node[name]
    head, *rest = name.split("_")
    return node.get(head + "".join(part.title() for part in rest), default)


def _nodes(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for window in _get(tree, "windows", []):
        yield from _get(_get(window, "tree", {}), "nodes", [])


def _own_text(node: Mapping[str, Any]) -> str:
    for name in ("text", "content_description", "hint_text"):
        value = str(_get(node, name, "") or "").strip()
        if value:
            return value
    return ""


def _descendant_text(node_id: int, by_id: Mapping[int, Mapping[str, Any]]) -> str:
    texts: list[str] = []
    stack = list(reversed(_get(by_id[node_id], "child_ids", [])))
    seen = {node_id}
    while stack and sum(len(t) for t in texts) < _MAX_TEXT:
        child = int(stack.pop())
        if child in seen or child not in by_id:
            continue
        seen.add(child)
        if text := _own_text(by_id[child]):
            texts.append(text)
        stack.extend(reversed(_get(by_id[child], "child_ids", [])))
    return " ".join(texts)[:_MAX_TEXT]


def _clip(bounds: Mapping[str, Any], width: int, height: int) -> tuple[int, int, int, int] | None:
    x1 = max(0, int(_get(bounds, "left", 0)))
    y1 = max(0, int(_get(bounds, "top", 0)))
    x2 = min(width, int(_get(bounds, "right", 0)))
    y2 = min(height, int(_get(bounds, "bottom", 0)))
    return (x1, y1, x2, y2) if x1 < x2 and y1 < y2 else None


def convert_tree(tree: Mapping[str, Any], width: int, height: int) -> Observation:
    """One accessibility forest (dict form) → an observation of its visible, useful nodes."""
    nodes = list(_nodes(tree))
    by_id = {int(_get(n, "unique_id", i)): n for i, n in enumerate(nodes)}
    elements: list[UIElement] = []
    for node_id, node in by_id.items():
        clickable = bool(_get(node, "is_clickable", False))
        visible = _get(node, "is_visible_to_user", True) is not False
        bbox = _clip(_get(node, "bounds_in_screen", {}), width, height)
        text = _own_text(node) or (_descendant_text(node_id, by_id) if clickable else "")
        if not visible or bbox is None or not (text or clickable):
            continue
        elements.append(
            UIElement(
                id=f"n{node_id}",
                text=text,
                bbox=bbox,
                clickable=clickable,
                focused=bool(_get(node, "is_focused", False)),
            )
        )
    return Observation(ui=tuple(elements), screen=(width, height))


def _click(raw: Mapping[str, Any], observation: Observation, step: int) -> Action:
    try:
        x, y = int(raw["x"]), int(raw["y"])
    except (KeyError, TypeError, ValueError) as exc:
        raise AndroidControlFormatError(
            f"step {step}: {raw.get('action_type')} needs integer x and y", param=f"actions[{step}]"
        ) from exc
    target = observation.element_at(x, y) or observation.element_at(x, y, clickable_only=False)
    if target is not None:
        return Action.click(target)
    x = min(max(x, 0), observation.width - 1)
    y = min(max(y, 0), observation.height - 1)
    return Action(type=ActionType.CLICK, target_id=None, x=x, y=y)


def _field(raw: Mapping[str, Any], name: str, step: int) -> str:
    value = raw.get(name)
    if not isinstance(value, str):
        raise AndroidControlFormatError(
            f"step {step}: {raw.get('action_type')} needs a string {name!r}",
            param=f"actions[{step}].{name}",
        )
    return value


def convert_action(raw: Mapping[str, Any], observation: Observation, step: int) -> Action:
    """One release action (parsed JSON) → our action, resolved against its observation."""
    kind = raw.get("action_type")
    if kind in ("click", "long_press"):
        return _click(raw, observation, step)
    if kind in ("input_text", "type"):
        return Action.type_text(_field(raw, "text", step))
    if kind == "scroll":
        direction = _field(raw, "direction", step).lower()
        if direction not in ("up", "down", "left", "right"):
            raise AndroidControlFormatError(
                f"step {step}: scroll direction {direction!r} is not up/down/left/right",
                param=f"actions[{step}].direction",
            )
        return Action.scroll(direction)
    if kind == "open_app":
        return Action.open_app(_field(raw, "app_name", step))
    if kind == "navigate_home":
        return Action.open_app(HOME_APP)
    if kind == "navigate_back":
        return Action.back()
    if kind == "wait":
        return Action.wait()
    raise UnknownActionType(step, kind)


def _parse_action(value: Any, step: int) -> Mapping[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise AndroidControlFormatError(
                f"step {step}: action is not valid JSON ({exc.msg})", param=f"actions[{step}]"
            ) from exc
    if not isinstance(value, Mapping):
        raise AndroidControlFormatError(
            f"step {step}: action must be a JSON object", param=f"actions[{step}]"
        )
    return value


def _require(record: Mapping[str, Any], name: str, length: int | None = None) -> Sequence[Any]:
    value = record.get(name)
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise AndroidControlFormatError(f"record needs a list {name!r}", param=name)
    if length is not None and len(value) < length:
        raise AndroidControlFormatError(
            f"{name!r} has {len(value)} entries; the record needs at least {length}", param=name
        )
    return value


def convert_episode(record: Mapping[str, Any]) -> Episode:
    """One release record → an Episode (a demonstration, so ``success`` is true)."""
    try:
        return _convert(record)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise AndroidControlFormatError(
            f"episode {record.get('episode_id')!r}: {where}: {first['msg']}",
            param="accessibility_trees",
        ) from exc


def _convert(record: Mapping[str, Any]) -> Episode:
    if "episode_id" not in record or not str(record.get("goal") or "").strip():
        raise AndroidControlFormatError("record needs 'episode_id' and a 'goal'", param="goal")
    actions = _require(record, "actions")
    if not actions:
        raise AndroidControlFormatError("record has no actions", param="actions")
    n = len(actions)
    trees = _require(record, "accessibility_trees", n)
    widths = _require(record, "screenshot_widths", n)
    heights = _require(record, "screenshot_heights", n)
    instructions = record.get("step_instructions") or [None] * n
    observations = [
        convert_tree(tree, int(w), int(h))
        for tree, w, h in zip(trees, widths, heights, strict=False)
    ]
    steps: list[Step] = []
    lossy: list[int] = []
    for i, value in enumerate(actions):
        raw = _parse_action(value, i)
        if raw.get("action_type") in ("long_press", "type", "navigate_home"):
            lossy.append(i)
        action = convert_action(raw, observations[i], i)
        instruction = instructions[i] if i < len(instructions) else None
        steps.append(Step(observation=observations[i], action=action, instruction=instruction))
    return Episode(
        episode_id=str(record["episode_id"]),
        goal=str(record["goal"]).strip(),
        steps=tuple(steps),
        success=True,
        final_observation=observations[n] if len(observations) > n else None,
        meta={"source": "androidcontrol", "lossy_steps": lossy},
    )


def load_episodes(path: str | Path) -> list[Episode]:
    """Records from a ``.jsonl`` file, a ``.json`` file (one record or a list) or a folder."""
    path = Path(path)
    if path.is_dir():
        return [ep for child in sorted(path.glob("*.json*")) for ep in load_episodes(child)]
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        data = json.loads(text)
        records = data if isinstance(data, list) else [data]
    return [convert_episode(record) for record in records]
