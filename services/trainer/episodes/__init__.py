"""GUI episodes for SOLAR-RL: the model, a synthetic generator, the AndroidControl converter,
and the text policy interface (prompts, action text, parsing, step success rate)."""

from .androidcontrol import (
    AndroidControlFormatError,
    UnknownActionType,
    convert_episode,
    load_episodes,
)
from .evaluate import action_match, step_success_rate
from .generator import KINDS, generate_episodes
from .model import (
    HOME_APP,
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    Action,
    ActionType,
    Direction,
    Episode,
    EpisodeError,
    Observation,
    Step,
    UIElement,
    parse_episode,
)
from .policy import (
    action_text,
    episode_rows,
    parse_action,
    render_messages,
    render_step_messages,
)
from .schema import action_schema

__all__ = [
    "HOME_APP",
    "KINDS",
    "SCREEN_HEIGHT",
    "SCREEN_WIDTH",
    "Action",
    "ActionType",
    "AndroidControlFormatError",
    "Direction",
    "Episode",
    "EpisodeError",
    "Observation",
    "Step",
    "UIElement",
    "UnknownActionType",
    "action_match",
    "action_schema",
    "action_text",
    "convert_episode",
    "episode_rows",
    "generate_episodes",
    "load_episodes",
    "parse_action",
    "parse_episode",
    "render_messages",
    "render_step_messages",
    "step_success_rate",
]
