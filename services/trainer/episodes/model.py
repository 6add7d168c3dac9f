"""GUI episodes for SOLAR-RL: a goal, a text UI tree per step, and one action per step.

The wire form is DESIGN.md's ``Episodes (SOLAR-RL)``::

    {"episode_id", "goal",
     "steps": [{"observation": {"ui": [{"id", "text", "bbox": [x1, y1, x2, y2], "clickable"}]},
                "action": {"type": "click|type|scroll|open_app|navigate_back|wait", ...}}],
     "success": true}

Coordinates are integer screen pixels with the origin at the top-left; a bbox is half-open
(``x1 <= x < x2``). The screen size lives on each observation as ``"screen": [w, h]``
(default 1080 × 2400, a common portrait phone), because AndroidControl records it per
screenshot; SOLAR's validity divides by it to normalise coordinates.

Action fields, by ``type`` (the AndroidControl action space on a text UI tree):

* ``click``         ``target_id`` (the element's id, or null when nothing lies under the
  point), ``x``, ``y`` (the centre of the target's bbox, integer division).
* ``type``          ``text`` — typed into the focused element.
* ``scroll``        ``direction``: up | down | left | right (the way the finger moves the
  content into view: ``down`` reveals what is below).
* ``open_app``      ``app_name``.
* ``navigate_back`` and ``wait`` take no fields.

Documented extensions (absent from the wire form unless set): ``UIElement.focused`` (the
element that receives ``type``), ``Step.alternatives`` (other acceptable or sampled actions,
SOLAR's rollout candidates), ``Step.instruction`` (a low-level step instruction),
``Episode.final_observation`` (the screen after the last action) and ``Episode.meta``.
On input a click may say ``element_id`` for ``target_id`` and omit x, y (see :class:`Step`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from services.common.errors import RefineryError

SCREEN_WIDTH = 1080
SCREEN_HEIGHT = 2400
HOME_APP = "Home"
"""The launcher's name: ``open_app`` of it is how an episode goes to the home screen."""

__all__ = [
    "HOME_APP",
    "SCREEN_HEIGHT",
    "SCREEN_WIDTH",
    "Action",
    "ActionType",
    "Direction",
    "Episode",
    "EpisodeError",
    "Observation",
    "Step",
    "UIElement",
    "centred_click",
    "parse_episode",
]


class EpisodeError(RefineryError):
    """An episode (or a record converted into one) is malformed; ``param`` names the field."""

    status_code = 422
    code = "invalid_episode"


class ActionType(StrEnum):
    CLICK = "click"
    TYPE = "type"
    SCROLL = "scroll"
    OPEN_APP = "open_app"
    NAVIGATE_BACK = "navigate_back"
    WAIT = "wait"


class Direction(StrEnum):
    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"


_FIELDS: dict[ActionType, tuple[str, ...]] = {
    ActionType.CLICK: ("target_id", "x", "y"),
    ActionType.TYPE: ("text",),
    ActionType.SCROLL: ("direction",),
    ActionType.OPEN_APP: ("app_name",),
    ActionType.NAVIGATE_BACK: (),
    ActionType.WAIT: (),
}
_OPTIONAL = {"target_id"}
_PARAMS = ("target_id", "x", "y", "text", "direction", "app_name")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class UIElement(_Frozen):
    """One node of the text UI tree."""

    id: str = Field(min_length=1)
    text: str = ""
    bbox: tuple[int, int, int, int]
    clickable: bool = False
    focused: bool = False

    @field_validator("bbox")
    @classmethod
    def _non_empty(cls, bbox: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        x1, y1, x2, y2 = bbox
        if not (0 <= x1 < x2 and 0 <= y1 < y2):
            raise ValueError(f"bbox must satisfy 0 <= x1 < x2 and 0 <= y1 < y2, got {list(bbox)}")
        return bbox

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if not self.focused:
            data.pop("focused", None)
        return data

    @property
    def centre(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bbox
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def area(self) -> int:
        x1, y1, x2, y2 = self.bbox
        return (x2 - x1) * (y2 - y1)

    def contains(self, x: int, y: int) -> bool:
        x1, y1, x2, y2 = self.bbox
        return x1 <= x < x2 and y1 <= y < y2


class Observation(_Frozen):
    """What the policy sees before acting: the UI elements and the screen size ``[w, h]``."""

    ui: tuple[UIElement, ...]
    screen: tuple[int, int] = (SCREEN_WIDTH, SCREEN_HEIGHT)

    @model_validator(mode="after")
    def _consistent(self) -> Observation:
        if min(self.screen) <= 0:
            raise ValueError(f"screen must be positive, got {list(self.screen)}")
        seen: set[str] = set()
        for index, element in enumerate(self.ui):
            if element.id in seen:
                raise ValueError(f"ui[{index}]: duplicate element id {element.id!r}")
            seen.add(element.id)
            if element.bbox[2] > self.width or element.bbox[3] > self.height:
                raise ValueError(f"ui[{index}]: bbox {list(element.bbox)} leaves the screen")
        return self

    @property
    def width(self) -> int:
        return self.screen[0]

    @property
    def height(self) -> int:
        return self.screen[1]

    def element(self, element_id: str) -> UIElement | None:
        return next((e for e in self.ui if e.id == element_id), None)

    def element_at(self, x: int, y: int, *, clickable_only: bool = True) -> UIElement | None:
        """The smallest (clickable) element under the point — what a tap there would hit."""
        hits = [e for e in self.ui if e.contains(x, y) and (e.clickable or not clickable_only)]
        return min(hits, key=lambda e: e.area, default=None)

    def focused(self) -> UIElement | None:
        return next((e for e in self.ui if e.focused), None)


class Action(_Frozen):
    """One action; only the fields of its ``type`` may be set (see the module docstring)."""

    type: ActionType
    target_id: str | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: Direction | None = None
    app_name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _element_id_alias(cls, data: Any) -> Any:
        """Accept ``element_id`` (SOLAR's spelling) for ``target_id``."""
        if isinstance(data, Mapping) and "element_id" in data and "target_id" not in data:
            data = {("target_id" if k == "element_id" else k): v for k, v in data.items()}
        return data

    @model_validator(mode="after")
    def _fields_match_type(self) -> Action:
        wanted = _FIELDS[self.type]
        for name in _PARAMS:
            value = getattr(self, name)
            if name in wanted and value is None and name not in _OPTIONAL:
                raise ValueError(f"{self.type.value} needs {name!r}")
            if name not in wanted and value is not None:
                raise ValueError(f"{self.type.value} takes no {name!r}")
        if self.type is ActionType.OPEN_APP and not (self.app_name or "").strip():
            raise ValueError("open_app needs a non-empty 'app_name'")
        return self

    @model_serializer(mode="wrap")
    def _drop_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        return {k: v for k, v in data.items() if k == "type" or k in _FIELDS[self.type]}

    @classmethod
    def click(cls, element: UIElement) -> Action:
        x, y = element.centre
        return cls(type=ActionType.CLICK, target_id=element.id, x=x, y=y)

    @classmethod
    def type_text(cls, text: str) -> Action:
        return cls(type=ActionType.TYPE, text=text)

    @classmethod
    def scroll(cls, direction: Direction | str) -> Action:
        return cls(type=ActionType.SCROLL, direction=Direction(direction))

    @classmethod
    def open_app(cls, app_name: str) -> Action:
        return cls(type=ActionType.OPEN_APP, app_name=app_name)

    @classmethod
    def back(cls) -> Action:
        return cls(type=ActionType.NAVIGATE_BACK)

    @classmethod
    def wait(cls) -> Action:
        return cls(type=ActionType.WAIT)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def centred_click(action: Any, ui: Any) -> Any:
    """A wire click naming only its target gets the target's centre as x, y."""
    if not (isinstance(action, Mapping) and action.get("type") == "click"):
        return action
    target = action.get("target_id", action.get("element_id"))
    if target is None or (action.get("x") is not None and action.get("y") is not None):
        return action
    for element in ui if isinstance(ui, Sequence) else ():
        node = element.model_dump() if isinstance(element, UIElement) else element
        if isinstance(node, Mapping) and node.get("id") == target and "bbox" in node:
            x1, y1, x2, y2 = node["bbox"]
            return {**action, "x": (x1 + x2) // 2, "y": (y1 + y2) // 2}
    return action


class Step(_Frozen):
    """An observation, the reference action taken on it, and optional recorded alternatives.

    On input, a click that names only its target (``target_id`` or ``element_id``) is
    completed with the target's centre.
    """

    observation: Observation
    action: Action
    alternatives: tuple[Action, ...] = ()
    instruction: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _complete_clicks(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        observation = data.get("observation")
        ui = observation.ui if isinstance(observation, Observation) else None
        if isinstance(observation, Mapping):
            ui = observation.get("ui")
        data = dict(data)
        data["action"] = centred_click(data.get("action"), ui)
        if isinstance(data.get("alternatives"), Sequence):
            data["alternatives"] = [centred_click(a, ui) for a in data["alternatives"]]
        return data

    @model_validator(mode="after")
    def _click_on_screen(self) -> Step:
        action = self.action
        if action.type is not ActionType.CLICK:
            return self
        assert action.x is not None and action.y is not None
        if not (0 <= action.x < self.observation.width and 0 <= action.y < self.observation.height):
            raise ValueError(f"click ({action.x}, {action.y}) lies off the screen")
        if action.target_id is None:
            return self
        target = self.observation.element(action.target_id)
        if target is None:
            raise ValueError(f"click target {action.target_id!r} is not in the observation")
        if not target.contains(action.x, action.y):
            raise ValueError(f"click ({action.x}, {action.y}) lies outside {action.target_id!r}")
        return self

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if self.instruction is None:
            data.pop("instruction", None)
        if not self.alternatives:
            data.pop("alternatives", None)
        return data


class Episode(_Frozen):
    """A goal and the steps that reach it (``success`` says whether they did)."""

    episode_id: str = Field(min_length=1)
    goal: str = Field(min_length=1)
    steps: tuple[Step, ...] = Field(min_length=1)
    success: bool = True
    final_observation: Observation | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if self.final_observation is None:
            data.pop("final_observation", None)
        if not self.meta:
            data.pop("meta", None)
        return data

    @property
    def actions(self) -> list[Action]:
        return [step.action for step in self.steps]

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def parse_episode(data: Mapping[str, Any]) -> Episode:
    """Validate a wire-form episode, naming the first offending field in the error."""
    try:
        return Episode.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]
        ).lstrip(".")
        raise EpisodeError(f"invalid episode: {first['msg']}", param=param or None) from exc
