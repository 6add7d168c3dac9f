"""The answer schemas a model proposer decodes under: Patch.1 and Timeline.1, narrowed to a task.

The generic schemas are exactly what the verifier serves at ``GET /v1/schemas/patch`` and
``GET /v1/schemas/timeline`` (the same pydantic models). For decoding they are narrowed to the
task at hand, so that every answer the grammar lets through also reads as a usable answer:

- clip and track ids are the task's own (an ``enum`` of tracks, a branch per clip): an
  invented id cannot be written;
- shot indexes stop where a patch's own inserts can reach (the current timeline's length plus
  a draft's worth of shots), track times at the longest track;
- an op or shot that names a clip is one branch per clip (:func:`_per_clip`), so its in point
  stops a frame before that clip's end and its out point at the end: a source range past the
  clip cannot be written (a ``trim`` names no clip, and its times stop at the longest clip);
- lists are bounded (a patch at most :func:`patch_op_cap` ops: enough to rewrite the timeline
  whole, what the teachers' patches do; a draft at most :func:`draft_shot_cap` shots),
  so an answer always fits in the token budget :func:`patch_token_budget` /
  :func:`draft_token_budget` gives it;
- the draft schema is the cut-only part of Timeline.1: shots without ``transition_in``
  (every join is a cut; transitions are repair ops), music placed or ``null``.

A narrowed schema is still a restriction of the wire schema: what validates against it
validates as Patch.1 / Timeline.1.
"""

from __future__ import annotations

import copy
import math
from functools import lru_cache
from typing import Any

from protocol.verifier.patch import PatchIn
from protocol.verifier.timeline import TimelineIn
from services.verifier.ledger import Duration, ShotLength
from services.verifier.task import Task
from services.verifier.timeline import Timeline, to_seconds

__all__ = [
    "MAX_DRAFT_SHOTS",
    "MAX_PATCH_OPS",
    "SHOT_FIELDS",
    "draft_shot_cap",
    "draft_token_budget",
    "patch_op_cap",
    "patch_schema",
    "patch_token_budget",
    "task_patch_schema",
    "task_timeline_schema",
    "timeline_schema",
]

MAX_PATCH_OPS = 64
"""Ops in one constrained patch, whatever the timeline (see :func:`patch_op_cap`)."""
MAX_DRAFT_SHOTS = 24
"""Shots in one constrained draft, whatever the ledger allows."""
TOKENS_PER_OP = 48
"""A worst-case op (``insert`` with six-decimal times, single-byte tokens) in tokens."""
TOKENS_PER_SHOT = 40
TOKENS_OVERHEAD = 48
"""The wrapper (``{"schema":"Patch.1","ops":[`` … or a music placement) and the eos."""

SHOT_FIELDS = ("shot", "at", "from", "to", "a", "b")
"""The Patch.1 fields that hold a shot index."""


@lru_cache(maxsize=1)
def _patch_wire() -> dict[str, Any]:
    return PatchIn.model_json_schema(by_alias=True)


@lru_cache(maxsize=1)
def _timeline_wire() -> dict[str, Any]:
    return TimelineIn.model_json_schema(by_alias=True)


def patch_schema() -> dict[str, Any]:
    """Patch.1 as JSON Schema (``GET /v1/schemas/patch``)."""
    return copy.deepcopy(_patch_wire())


def timeline_schema() -> dict[str, Any]:
    """Timeline.1 as JSON Schema (``GET /v1/schemas/timeline``)."""
    return copy.deepcopy(_timeline_wire())


def _longest_clip_s(task: Task) -> float:
    return to_seconds(max((c.duration for c in task.clips.values()), default=task.fps), task.fps)


def _longest_track_s(task: Task) -> float:
    return to_seconds(max((t.duration for t in task.tracks.values()), default=0), task.fps)


def _per_clip(shape: dict[str, Any], task: Task) -> dict[str, Any]:
    """``shape`` (an object with ``clip_id``, ``in_s`` and ``out_s``) as one branch per clip of
    ``task``, each with that clip's source range: ``in_s`` ≤ its last frame, ``out_s`` ≤ its
    end. The grammar commits to a branch when it writes the id, so the times that follow are
    bounded by the clip named."""
    branches = []
    for clip_id in sorted(task.clips):
        frames = task.clips[clip_id].duration
        branch = copy.deepcopy(shape)
        props = branch["properties"]
        props["clip_id"] = {"const": clip_id}
        props["in_s"]["maximum"] = to_seconds(max(frames - 1, 0), task.fps)
        props["out_s"]["maximum"] = to_seconds(frames, task.fps)
        branches.append(branch)
    return {"anyOf": branches}


def _shot_reach(task: Task, timeline: Timeline) -> int:
    """The longest cut a patch of ``timeline`` can make: its shots plus a draft's worth
    (:func:`draft_shot_cap`) of inserts."""
    return len(timeline.shots) + draft_shot_cap(task)


def patch_op_cap(task: Task, timeline: Timeline) -> int:
    """The most ops a constrained patch of ``timeline`` may have: a whole rewrite, i.e. remove
    every shot, insert a draft's worth, place the music and one transition (capped at
    :data:`MAX_PATCH_OPS`). The teachers' patches are such rewrites (the exact solver's
    always), so a student trained on them can write them again."""
    return min(MAX_PATCH_OPS, _shot_reach(task, timeline) + 2)


def task_patch_schema(
    task: Task, timeline: Timeline, *, max_ops: int | None = None
) -> dict[str, Any]:
    """Patch.1 narrowed to ``task``'s ids and ``timeline``'s shots, at most ``max_ops`` ops
    (default :func:`patch_op_cap`; see the module doc)."""
    schema = patch_schema()
    defs = schema["$defs"]
    reach = _shot_reach(task, timeline)
    clip_s = _longest_clip_s(task)
    for name, op in list(defs.items()):
        props = op.get("properties", {})
        if "track_id" in props:
            if not task.tracks:
                del defs[name]  # no music to set: the op is not offered
                continue
            props["track_id"] = {"enum": sorted(task.tracks)}
            props["offset_s"]["maximum"] = max(_longest_track_s(task), 0.0)
        for field in SHOT_FIELDS:
            if field in props:
                limit = reach if field == "at" else reach - 1
                props[field] = {"type": "integer", "minimum": 0, "maximum": limit}
        if "clip_id" in props:
            defs[name] = _per_clip(op, task)
            continue
        for field in ("in_s", "out_s"):  # a trim: no clip named, so the pool's longest
            if field in props:
                props[field]["maximum"] = clip_s
    ops = schema["properties"]["ops"]
    ops["maxItems"] = patch_op_cap(task, timeline) if max_ops is None else max_ops
    items = ops["items"]
    # the "op" consts make the branches disjoint: anyOf says the same to a grammar engine
    items["anyOf"] = [ref for ref in items.pop("oneOf") if ref["$ref"].rsplit("/", 1)[-1] in defs]
    items.pop("discriminator", None)
    return schema


def draft_shot_cap(task: Task) -> int:
    """The most shots a draft may have: the longest allowed cut over the shortest allowed
    shot (capped at :data:`MAX_DRAFT_SHOTS`)."""
    fps = task.fps
    longest = next((r.max for r in task.ledger if isinstance(r, Duration)), 60 * fps)
    shortest = next((r.min for r in task.ledger if isinstance(r, ShotLength)), fps)
    return max(1, min(MAX_DRAFT_SHOTS, math.ceil(longest / max(shortest, 1))))


def task_timeline_schema(task: Task, *, max_shots: int | None = None) -> dict[str, Any]:
    """The cut-only Timeline.1 for ``task`` (see the module doc)."""
    schema = timeline_schema()
    defs = schema["$defs"]
    shot = defs["ShotIn"]
    shot["properties"].pop("transition_in", None)
    defs["ShotIn"] = _per_clip(shot, task)
    defs.pop("TransitionIn", None)
    defs.pop("TransitionType", None)
    props = schema["properties"]
    props["fps"] = {"const": task.fps}
    props["shots"] = {
        "type": "array",
        "items": {"$ref": "#/$defs/ShotIn"},
        "minItems": 1,
        "maxItems": max_shots or draft_shot_cap(task),
    }
    schema["required"] = ["schema", "fps", "shots", "music"]
    if task.tracks:
        music = defs["MusicPlacementIn"]["properties"]
        music["track_id"] = {"enum": sorted(task.tracks)}
        longest = _longest_track_s(task)
        music["offset_s"]["maximum"] = longest
        music["fade_out_s"]["maximum"] = longest
    else:
        props["music"] = {"type": "null"}
        defs.pop("MusicPlacementIn", None)
    return schema


def patch_token_budget(max_ops: int) -> int:
    """``max_new_tokens`` that fits any answer of :func:`task_patch_schema` with ``max_ops``."""
    return TOKENS_OVERHEAD + TOKENS_PER_OP * max_ops


def draft_token_budget(task: Task) -> int:
    """``max_new_tokens`` that fits any answer of :func:`task_timeline_schema`."""
    return TOKENS_OVERHEAD * 2 + TOKENS_PER_SHOT * draft_shot_cap(task)
