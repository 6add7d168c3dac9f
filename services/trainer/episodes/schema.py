"""The JSON schema of the GUI policy's answer on one screen, for constrained decoding.

One branch per action type (``type`` is a ``const``, so the branches are disjoint), keys in
the order :func:`~services.trainer.episodes.action_text` writes them, narrowed to the
observation: a click names one of the screen's element ids and a point on the screen. Every
answer the grammar lets through therefore parses (:func:`~services.trainer.episodes.
parse_action`) into a valid action; whether it is the *right* action is the policy's job.
The same schema is what a vLLM server takes as structured output (``response_format``).
"""

from __future__ import annotations

from typing import Any

from .model import ActionType, Direction, Observation

__all__ = ["MAX_TEXT", "action_schema"]

MAX_TEXT = 32
"""Longest ``text`` / ``app_name`` answered (keeps every answer within the token budget)."""


def _branch(kind: ActionType, **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"const": kind.value}, **properties},
        "required": ["type", *properties],
        "additionalProperties": False,
    }


def _words() -> dict[str, Any]:
    """1 to ``MAX_TEXT`` characters, no quote, backslash or line break, not starting with a
    space (the length is in the pattern: xgrammar ignores ``maxLength`` beside one)."""
    return {"type": "string", "pattern": rf'^[^\s"\\][^"\\\t\n\r]{{0,{MAX_TEXT - 1}}}$'}


def action_schema(observation: Observation) -> dict[str, Any]:
    """The schema of one action on ``observation``'s screen."""
    ids = [element.id for element in observation.ui]
    branches = [
        _branch(ActionType.TYPE, text=_words()),
        _branch(ActionType.SCROLL, direction={"enum": [d.value for d in Direction]}),
        _branch(ActionType.OPEN_APP, app_name=_words()),
        _branch(ActionType.NAVIGATE_BACK),
        _branch(ActionType.WAIT),
    ]
    if ids:
        click = _branch(
            ActionType.CLICK,
            target_id={"enum": ids},
            x={"type": "integer", "minimum": 0, "maximum": observation.width - 1},
            y={"type": "integer", "minimum": 0, "maximum": observation.height - 1},
        )
        branches.insert(0, click)
    return {"anyOf": branches}
