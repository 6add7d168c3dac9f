"""Seeded synthetic GUI episodes: settings toggles, form filling, search-and-open, navigation.

Each episode comes from its own ``random.Random`` seeded by ``(seed, index)``, so episode
``i`` of a seed never depends on how many were asked for. Kinds are dealt round-robin, so
any ``n`` is balanced to within one episode per kind. Every action is computed from the
screen it is taken on (see :mod:`.flows`), and the next observation is rendered from the
screen that action leads to.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from services.common.errors import RefineryError

from . import apps
from .browse import navigation_flow, search_flow
from .flows import Trace, form_flow, settings_flow
from .model import Action, ActionType, Direction, Episode, Observation, Step, UIElement
from .screens import Screen, Style, render

__all__ = ["KINDS", "MAX_STEPS", "MIN_STEPS", "generate_episodes"]

KINDS: tuple[str, ...] = ("settings", "form", "search", "navigation")
MIN_STEPS = 3
MAX_STEPS = 15
_FLOWS: dict[str, Callable[[Trace], None]] = {
    "settings": settings_flow,
    "form": form_flow,
    "search": search_flow,
    "navigation": navigation_flow,
}
_ATTEMPTS = 20


class GeneratorError(RefineryError):
    status_code = 422
    code = "invalid_generator_request"


def generate_episodes(
    n: int, *, seed: int, kinds: Sequence[str] | None = None, alternatives: int = 3
) -> list[Episode]:
    """``n`` episodes, deterministic in ``seed``; ``kinds`` restricts (and orders) the mix.

    Every step also records up to ``alternatives`` other actions on the same screen — near
    misses (another element, a typo, the wrong direction) and equivalents (an off-centre tap,
    different casing) — the static rollout candidates SOLAR-RL rebuilds trajectories from.
    """
    if n < 0:
        raise GeneratorError(f"n must be >= 0, got {n}", param="n")
    if alternatives < 0:
        raise GeneratorError(f"alternatives must be >= 0, got {alternatives}", param="alternatives")
    chosen = tuple(kinds) if kinds is not None else KINDS
    unknown = [kind for kind in chosen if kind not in _FLOWS]
    if unknown or not chosen:
        raise GeneratorError(
            f"unknown episode kinds {unknown}; choose from {list(KINDS)}", param="kinds"
        )
    return [_episode(seed, index, chosen[index % len(chosen)], alternatives) for index in range(n)]


def _episode(seed: int, index: int, kind: str, alternatives: int) -> Episode:
    rng = random.Random(f"{seed}:{index}:{kind}")
    for _ in range(_ATTEMPTS):
        trace = Trace(rng=rng, style=_style(rng))
        _FLOWS[kind](trace)
        if MIN_STEPS <= len(trace.frames) <= MAX_STEPS:
            others = random.Random(f"{seed}:{index}:{kind}:alternatives")
            return _assemble(f"syn-{seed}-{index:05d}", kind, trace, others, alternatives)
    raise AssertionError(f"{kind} flow kept leaving {MIN_STEPS}-{MAX_STEPS} steps")


def _style(rng: random.Random) -> Style:
    hour, minute = rng.randint(6, 23), rng.randint(0, 59)
    return Style(
        row_height=rng.choice((144, 156, 168, 184, 200)),
        clock=f"{hour}:{minute:02d}",
        battery=rng.randint(12, 100),
        signal=rng.choice(("Signal full", "Signal 3 bars", "Wi-Fi signal full", "LTE")),
    )


def _action(screen: Screen, op: tuple[str, str]) -> Action:
    verb, arg = op
    if verb == "click":
        _, keyed = render(screen)
        return Action.click(keyed[arg])
    if verb == "type":
        return Action.type_text(arg)
    if verb == "scroll":
        return Action.scroll(arg)
    if verb == "open_app":
        return Action.open_app(arg)
    return Action.back() if verb == "back" else Action.wait()


def _assemble(
    episode_id: str, kind: str, trace: Trace, rng: random.Random, alternatives: int
) -> Episode:
    steps = []
    for screen, op in trace.frames:
        observation, action = render(screen)[0], _action(screen, op)
        others = _alternatives(rng, observation, action)[:alternatives]
        steps.append(Step(observation=observation, action=action, alternatives=tuple(others)))
    final = render(trace.final)[0] if trace.final is not None else None
    return Episode(
        episode_id=episode_id,
        goal=trace.goal,
        steps=tuple(steps),
        success=True,
        final_observation=final,
        meta={"kind": kind, "app": trace.app, "source": "synthetic"},
    )


def _off_centre(rng: random.Random, element: UIElement) -> Action:
    x1, y1, x2, y2 = element.bbox
    x = rng.randint(x1 + (x2 - x1) // 4, x2 - 1 - (x2 - x1) // 4)
    y = rng.randint(y1 + (y2 - y1) // 4, y2 - 1 - (y2 - y1) // 4)
    return Action(type=ActionType.CLICK, target_id=element.id, x=x, y=y)


def _typo(rng: random.Random, text: str) -> str:
    if len(text) < 2:
        return text + text
    cut = rng.randrange(len(text))
    return text[:cut] + text[cut + 1 :]


def _alternatives(rng: random.Random, observation: Observation, action: Action) -> list[Action]:
    """Distinct other actions on this screen, shuffled: some equivalent, most not."""
    others = [e for e in observation.ui if e.clickable and e.id != action.target_id]
    labels = [e for e in observation.ui if not e.clickable]
    pool: list[Action] = [Action.wait(), Action.back(), Action.scroll(rng.choice(list(Direction)))]
    pool += [Action.click(e) for e in rng.sample(others, min(2, len(others)))]
    pool += [Action.click(rng.choice(labels))] if labels else []
    if action.type is ActionType.CLICK and action.target_id is not None:
        target = observation.element(action.target_id)
        pool += [_off_centre(rng, target)] if target is not None else []
    elif action.type is ActionType.TYPE:
        text = action.text or ""
        pool += [
            Action.type_text(_typo(rng, text)),
            Action.type_text(text.split()[0] if text.strip() else "x"),
        ]
    elif action.type is ActionType.OPEN_APP:
        name = action.app_name or ""
        pool += [Action.open_app(name.lower()), Action.open_app(rng.choice(apps.LAUNCHER_APPS))]
    unique = {a.model_dump_json(): a for a in pool if a != action}
    chosen = list(unique.values())
    rng.shuffle(chosen)
    return chosen
