"""Teacher-forced step success rate of a text GUI policy over reference episodes.

Every step is asked with the *reference* history, so one early mistake does not sink the
rest of the episode: this measures the policy's per-step decisions, the quantity SOLAR-RL's
step validity Φ scores. Scoring is delegated to a validity function ``(pred, ref_step) → Φ``
over the wire forms (the action dict and the ``{"observation", "action", …}`` step dict):
SOLAR's ``step_validity`` with its config bound (``functools.partial``), or
:func:`action_match`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from services.common.errors import RefineryError

from .model import Action, ActionType, Episode, Step, centred_click, parse_episode
from .policy import episode_rows, parse_action, render_step_messages

__all__ = ["Policy", "Validity", "action_match", "episode_rows", "step_success_rate"]

Policy = Callable[[list[dict[str, str]]], str]
Validity = Callable[[Mapping[str, Any], Mapping[str, Any]], float]


class EvaluationError(RefineryError):
    status_code = 422
    code = "invalid_evaluation"


def action_match(pred: Action | Mapping[str, Any], ref_step: Step | Mapping[str, Any]) -> float:
    """A strict reference validity: 1.0 when ``pred`` does what the reference action does.

    A click matches when it names the reference target or lands inside its bbox; text and
    app names match case- and whitespace-insensitively; scrolls match on direction. A
    prediction that is not a valid action scores 0.
    """
    if not isinstance(ref_step, Step):
        ref_step = Step.model_validate(ref_step)
    if not isinstance(pred, Action):
        try:
            pred = Action.model_validate(centred_click(pred, ref_step.observation.ui))
        except ValidationError:
            return 0.0
    ref = ref_step.action
    if pred.type is not ref.type:
        return 0.0
    if ref.type is ActionType.CLICK:
        target = ref_step.observation.element(ref.target_id) if ref.target_id else None
        if target is None:
            return float(pred.x == ref.x and pred.y == ref.y)
        hit = pred.target_id == ref.target_id
        inside = pred.x is not None and pred.y is not None and target.contains(pred.x, pred.y)
        return float(hit or inside)

    def norm(value: str | None) -> str:
        return " ".join((value or "").lower().split())

    if ref.type is ActionType.TYPE:
        return float(norm(pred.text) == norm(ref.text))
    if ref.type is ActionType.OPEN_APP:
        return float(norm(pred.app_name) == norm(ref.app_name))
    if ref.type is ActionType.SCROLL:
        return float(pred.direction == ref.direction)
    return 1.0


def _phi(validity: Validity, pred: Mapping[str, Any], step: Mapping[str, Any], where: str) -> float:
    value = float(validity(pred, step))
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise EvaluationError(f"validity returned {value} at {where}; it must lie in [0, 1]")
    return value


def step_success_rate(
    policy: Policy,
    episodes: Iterable[Episode | Mapping[str, Any]],
    *,
    validity: Validity,
    threshold: float = 0.5,
) -> dict[str, Any]:
    """Ask ``policy`` every step of every episode (teacher-forced) and score its answers.

    A step succeeds when its answer parses and ``validity(pred, ref_step) >= threshold``
    (both as wire dicts; an unparsed answer is a failure and never reaches ``validity``); an
    episode succeeds when all its steps do. Returns ``step_sr``, ``steps`` (how many were
    asked), ``parsed_rate`` and ``episode_sr``; rates are 0.0 when there is nothing to score.
    """
    if not 0.0 <= threshold <= 1.0:
        raise EvaluationError(f"threshold must lie in [0, 1], got {threshold}", param="threshold")
    steps = parsed = succeeded = 0
    episodes_seen = episodes_won = 0
    for item in episodes:
        episode = item if isinstance(item, Episode) else parse_episode(item)
        episodes_seen += 1
        history: list[Action] = []
        all_good = True
        for index, step in enumerate(episode.steps):
            answer = policy(render_step_messages(episode.goal, step.observation, history))
            pred = parse_action(answer, step.observation)
            steps += 1
            good = False
            if pred is not None:
                parsed += 1
                where = f"{episode.episode_id} step {index}"
                phi = _phi(validity, pred.to_dict(), step.model_dump(mode="json"), where)
                good = phi >= threshold
            succeeded += good
            all_good = all_good and good
            history.append(step.action)
        episodes_won += all_good
    return {
        "step_sr": succeeded / steps if steps else 0.0,
        "steps": steps,
        "parsed_rate": parsed / steps if steps else 0.0,
        "episode_sr": episodes_won / episodes_seen if episodes_seen else 0.0,
    }
