"""The text interface of the GUI policy: chat prompts in, one compact JSON action out.

The same rendering serves SFT rows (:func:`episode_rows`), teacher-forced evaluation and
SOLAR-RL rollouts, so what the policy is trained on is exactly what it is asked at test time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from .model import (
    HOME_APP,
    Action,
    ActionType,
    Direction,
    Episode,
    EpisodeError,
    Observation,
    centred_click,
)

__all__ = [
    "SYSTEM_PROMPT",
    "action_text",
    "episode_rows",
    "parse_action",
    "render_messages",
    "render_step_messages",
    "render_ui",
]

MAX_HISTORY = 12

SYSTEM_PROMPT = """You operate an Android phone to reach the user's goal, one action at a time.
Each turn you get the goal, your previous actions and the screen's UI elements, one per line:
id | text | bbox [x1,y1,x2,y2] in pixels | clickable (the focused element is marked).
Answer with exactly one JSON object and nothing else, one of:
{"type":"click","target_id":"<id>","x":<int>,"y":<int>}  (x,y = centre of the target's bbox)
{"type":"type","text":"<text>"}  (types into the focused element)
{"type":"scroll","direction":"up|down|left|right"}
{"type":"open_app","app_name":"<app>"}
{"type":"navigate_back"}
{"type":"wait"}"""


def action_text(action: Action) -> str:
    """The compact JSON the policy should answer for ``action`` (the SFT completion)."""
    return json.dumps(action.to_dict(), separators=(",", ":"), ensure_ascii=False)


def render_ui(observation: Observation) -> str:
    lines = []
    for element in observation.ui:
        bbox = "[" + ",".join(str(v) for v in element.bbox) + "]"
        text = " ".join(element.text.split()).replace("|", "/")
        flag = "yes" if element.clickable else "no"
        lines.append(
            f"{element.id} | {text} | {bbox} | {flag}" + (" | focused" if element.focused else "")
        )
    return "\n".join(lines) or "(no elements)"


def _history_lines(history: Sequence[Action]) -> list[str]:
    if not history:
        return ["(none)"]
    shown = history[-MAX_HISTORY:]
    first = len(history) - len(shown) + 1
    lines = [f"({first - 1} earlier actions omitted)"] if first > 1 else []
    return lines + [f"{first + i}. {action_text(a)}" for i, a in enumerate(shown)]


def render_step_messages(
    episode_goal: str, observation: Observation, history: Sequence[Action]
) -> list[dict[str, str]]:
    """System + user chat messages asking for the next action on ``observation``."""
    user = "\n".join(
        [
            f"Goal: {episode_goal}",
            "Previous actions:",
            *_history_lines(history),
            f"Screen {observation.width}x{observation.height}. UI elements "
            "(id | text | bbox | clickable):",
            render_ui(observation),
            "Next action (one JSON object):",
        ]
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def render_messages(
    episode: Mapping[str, Any], index: int, step: Mapping[str, Any]
) -> list[dict[str, str]]:
    """:func:`render_step_messages` for a wire-form episode: SOLAR's ``render`` callable.

    The history is the reference actions of the steps before ``index``.
    """
    try:
        observation = Observation.model_validate(step.get("observation"))
        steps = episode.get("steps") or []
        history = [
            Action.model_validate(
                centred_click(s.get("action"), (s.get("observation") or {}).get("ui"))
            )
            for s in steps[:index]
        ]
    except (ValidationError, AttributeError, TypeError) as exc:
        raise EpisodeError(
            f"step {index} of episode {episode.get('episode_id')!r} is not a GUI step: {exc}",
            param=f"steps[{index}]",
        ) from None
    return render_step_messages(str(episode.get("goal", "")), observation, history)


def episode_rows(episodes: Iterable[Episode]) -> list[dict[str, Any]]:
    """Teacher-forced SFT rows, one per step: the rendered prompt and the reference action."""
    rows: list[dict[str, Any]] = []
    for episode in episodes:
        history: list[Action] = []
        for step in episode.steps:
            prompt = render_step_messages(episode.goal, step.observation, history)
            completion = [{"role": "assistant", "content": action_text(step.action)}]
            rows.append({"prompt": prompt, "completion": completion})
            history.append(step.action)
    return rows


# --- parsing ---------------------------------------------------------------------------

_ALIASES = {
    "tap": "click",
    "press": "click",
    "long_press": "click",
    "input_text": "type",
    "input": "type",
    "type_text": "type",
    "swipe": "scroll",
    "open": "open_app",
    "launch": "open_app",
    "back": "navigate_back",
    "go_back": "navigate_back",
    "navigate_home": "open_app",
    "home": "open_app",
}
_TARGET_KEYS = ("target_id", "target", "element_id", "element", "id", "index")
_CALL = re.compile(r"\b([a-z_]+)\s*\(\s*(.*?)\s*\)", re.IGNORECASE | re.DOTALL)


def _json_objects(text: str) -> Iterable[Mapping[str, Any]]:
    """Every JSON object embedded in ``text`` (code fences and prose around it are fine)."""
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"\{", text)):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, Mapping):
            yield value


def _int(value: Any) -> int | None:
    try:
        return round(float(value))
    except (TypeError, ValueError, OverflowError):
        return None


def _click(data: Mapping[str, Any], observation: Observation | None) -> Action | None:
    target = next((str(data[k]) for k in _TARGET_KEYS if data.get(k) not in (None, "")), None)
    x, y = _int(data.get("x")), _int(data.get("y"))
    if observation is None:
        if x is None or y is None:
            return None
        return Action(type=ActionType.CLICK, target_id=target, x=x, y=y)
    element = observation.element(target) if target is not None else None
    if element is None and x is not None and y is not None:
        element = observation.element_at(x, y) or observation.element_at(x, y, clickable_only=False)
    return Action.click(element) if element is not None else None


def _from_mapping(data: Mapping[str, Any], observation: Observation | None) -> Action | None:
    raw = data.get("type", data.get("action_type", data.get("action")))
    if not isinstance(raw, str):
        return None
    kind = raw.strip().lower().replace(" ", "_").replace("-", "_")
    home = kind in ("navigate_home", "home")
    kind = _ALIASES.get(kind, kind)
    try:
        if kind == "click":
            return _click(data, observation)
        if kind == "type":
            text = data.get("text", data.get("value"))
            return Action.type_text(str(text)) if text is not None else None
        if kind == "scroll":
            return Action.scroll(Direction(str(data.get("direction", "")).strip().lower()))
        if kind == "open_app":
            name = HOME_APP if home else data.get("app_name", data.get("app", data.get("name")))
            return Action.open_app(str(name).strip()) if name else None
        if kind in ("navigate_back", "wait"):
            return Action(type=ActionType(kind))
    except (ValidationError, ValueError):
        return None
    return None


def _from_call(text: str, observation: Observation | None) -> Action | None:
    """``click(e5)``, ``type("hi")``, ``scroll(down)``, ``open_app(Clock)``, ``wait()``."""
    for match in _CALL.finditer(text):
        name, arg = match.group(1).lower(), match.group(2).strip().strip("\"'")
        kind = _ALIASES.get(name, name)
        field = {
            "click": "target_id",
            "type": "text",
            "scroll": "direction",
            "open_app": "app_name",
        }
        if kind in field:
            action = _from_mapping({"type": kind, field[kind]: arg}, observation)
        elif kind in ("navigate_back", "wait"):
            action = _from_mapping({"type": kind}, observation)
        else:
            continue
        if action is not None:
            return action
    return None


def parse_action(text: str, observation: Observation | None = None) -> Action | None:
    """The first well-formed action in a policy's answer, or None.

    Tolerates prose and code fences around the JSON, ``action_type`` for ``type``, common
    aliases (``tap``, ``input_text``, ``back``…) and call syntax (``click(e5)``). With an
    observation, a click is resolved against it: a known ``target_id`` wins and x, y are
    snapped to its centre; otherwise x, y pick the element under them; a click that hits
    nothing is None.
    """
    if not isinstance(text, str) or not text.strip():
        return None
    for data in _json_objects(text):
        action = _from_mapping(data, observation)
        if action is not None:
            return action
    return _from_call(text, observation)
