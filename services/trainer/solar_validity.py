"""Per-step validity Φ ∈ [0, 1] of a predicted action against a reference step. Pure.

The action space is AndroidControl's on a text UI tree (DESIGN.md, Episodes) plus the
planner's ``patch``:

* ``click`` — 1 when the predicted point lies inside the target element's box enlarged
  ``box_scale`` times about its centre, or within ``radius`` (Euclidean, normalised screen
  units) of the reference point; else 0. A click names a point (``x``, ``y``) or an element
  (``element_id``, meaning its box centre). The target box is the reference element's box,
  or, for a reference point, the smallest clickable element containing it (none: only the
  radius applies); the reference point is the given point, else the target box's centre.
* ``type`` — token F1 of ``text`` (lower-cased ``\\w+`` tokens, bag of words; both empty: 1).
* ``scroll`` — 1 when ``direction`` matches (case-insensitive).
* ``open_app`` — 1 when ``app_name`` matches after case folding and collapsing whitespace.
* ``navigate_back``, ``wait`` — 1 when the type matches.
* ``patch`` — 1 when the verifier applied it (``applied``) and it broke no hard constraint
  that held before (``broken_hard`` empty); else 0.

A type mismatch is 0. **Coordinates** are normalised to the screen before any distance:
x / width, y / height, with the screen taken from the observation's ``screen: [w, h]``;
without one, a UI tree whose every bbox coordinate lies in [0, 1] is already normalised,
and otherwise the screen is the tree's extent (the largest x2 and y2).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "ACTION_TYPES",
    "click_validity",
    "normalise_app",
    "screen_size",
    "token_f1",
    "tokens",
    "validity",
]

ACTION_TYPES = frozenset({"click", "type", "scroll", "open_app", "navigate_back", "wait", "patch"})

Box = tuple[float, float, float, float]
Point = tuple[float, float]


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def token_f1(pred: str, ref: str) -> float:
    """Bag-of-tokens F1 (SQuAD style); two empty texts match fully."""
    p, r = tokens(pred), tokens(ref)
    if not p or not r:
        return float(p == r)
    common = sum(min(p.count(t), r.count(t)) for t in set(p) & set(r))
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(r)
    return 2 * precision * recall / (precision + recall)


def normalise_app(name: str) -> str:
    return " ".join(name.casefold().split())


def screen_size(observation: Mapping[str, Any]) -> tuple[float, float]:
    """(width, height) that map the observation's coordinates to [0, 1]."""
    screen = observation.get("screen")
    if isinstance(screen, Sequence) and len(screen) == 2 and min(screen) > 0:
        return float(screen[0]), float(screen[1])
    boxes = [e["bbox"] for e in observation.get("ui", ()) if "bbox" in e]
    if not boxes or all(0 <= v <= 1 for box in boxes for v in box):
        return 1.0, 1.0
    return float(max(b[2] for b in boxes)) or 1.0, float(max(b[3] for b in boxes)) or 1.0


def _element(observation: Mapping[str, Any], element_id: Any) -> Mapping[str, Any] | None:
    return next((e for e in observation.get("ui", ()) if e.get("id") == element_id), None)


def _normalised_box(bbox: Sequence[float], size: tuple[float, float]) -> Box:
    w, h = size
    return bbox[0] / w, bbox[1] / h, bbox[2] / w, bbox[3] / h


def _point(action: Mapping[str, Any], observation: Mapping[str, Any]) -> Point | None:
    """The action's click point in normalised coordinates (an element means its centre)."""
    size = screen_size(observation)
    if isinstance(action.get("x"), int | float) and isinstance(action.get("y"), int | float):
        return action["x"] / size[0], action["y"] / size[1]
    element = _element(observation, action.get("element_id"))
    if element is None or "bbox" not in element:
        return None
    x1, y1, x2, y2 = _normalised_box(element["bbox"], size)
    return (x1 + x2) / 2, (y1 + y2) / 2


def _target_box(ref: Mapping[str, Any], observation: Mapping[str, Any], point: Point) -> Box | None:
    size = screen_size(observation)
    element = _element(observation, ref.get("element_id"))
    if element is not None and "bbox" in element:
        return _normalised_box(element["bbox"], size)
    boxes = [
        _normalised_box(e["bbox"], size)
        for e in observation.get("ui", ())
        if e.get("clickable") and "bbox" in e
    ]
    inside = [b for b in boxes if _inside(point, b)]
    return min(inside, key=lambda b: (b[2] - b[0]) * (b[3] - b[1])) if inside else None


def _inside(point: Point, box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _enlarged(box: Box, scale: float) -> Box:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    hw, hh = (box[2] - box[0]) * scale / 2, (box[3] - box[1]) * scale / 2
    return cx - hw, cy - hh, cx + hw, cy + hh


def click_validity(
    pred: Mapping[str, Any],
    ref: Mapping[str, Any],
    observation: Mapping[str, Any],
    *,
    box_scale: float,
    radius: float,
) -> float:
    """Φ of a click (see the module docstring); a reference without a target is a
    ``ValueError``, a prediction without one scores 0."""
    ref_point = _point(ref, observation)
    if ref_point is None:
        raise ValueError("the reference click names neither a point nor a known element")
    box = _target_box(ref, observation, ref_point)
    point = _point(pred, observation)
    if point is None:
        return 0.0
    if box is not None and _inside(point, _enlarged(box, box_scale)):
        return 1.0
    return float(math.dist(point, ref_point) <= radius)


def validity(
    pred: Mapping[str, Any],
    ref_step: Mapping[str, Any],
    *,
    box_scale: float,
    radius: float,
) -> float:
    """Φ of ``pred`` against ``ref_step`` (``{"observation", "action"}``)."""
    ref = ref_step["action"]
    kind = ref.get("type")
    if kind not in ACTION_TYPES:
        raise ValueError(f"unknown reference action type {kind!r}")
    if not isinstance(pred, Mapping) or pred.get("type") != kind:
        return 0.0
    if kind == "click":
        observation = ref_step.get("observation") or {}
        return click_validity(pred, ref, observation, box_scale=box_scale, radius=radius)
    if kind == "type":
        return token_f1(str(pred.get("text") or ""), str(ref.get("text") or ""))
    if kind == "scroll":
        return float(
            str(pred.get("direction", "")).casefold() == str(ref.get("direction", "")).casefold()
        )
    if kind == "open_app":
        return float(
            normalise_app(str(pred.get("app_name", "")))
            == normalise_app(str(ref.get("app_name", "")))
        )
    if kind == "patch":
        return float(bool(pred.get("applied")) and not pred.get("broken_hard"))
    return 1.0  # navigate_back, wait: the type is the whole action
