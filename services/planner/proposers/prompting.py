"""One prompt for every model proposer, and the tolerant reader of what models answer.

The LLM (vLLM, OpenAI-compatible) and local-checkpoint (``hf:<id>``) proposers send the same
chat messages, so a checkpoint trained on planner records sees at inference exactly the text
it was trained on (:func:`render_messages` for the prompt, :func:`patch_text` for the target).

The prompt is deterministic and compact: the brief, the ledger in seconds, the clip pool as
one ``id | dur | orientation | tags | caption`` line per clip, the music, the current timeline
as a Timeline.1 JSON block and the verifier's unmet constraints and errors.

Answers are read by :func:`read_patch` (raises :class:`PatchParseError` with a reason) or
:func:`parse_patch` (``None`` instead): the first JSON object in the text — code fences and
leading prose are skipped — validated as Patch.1, with every clip and track id checked
against the task.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from protocol.verifier.patch import PatchIn, patch_payload
from protocol.verifier.timeline import timeline_payload
from services.planner.proposers.base import Proposal, ProposerStats
from services.planner.proposers.compact import render_compact_prompt
from services.planner.proposers.prompt_lines import (
    caption,
    constraint_line,
    seconds,
    track_line,
)
from services.verifier import patches as P
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline

__all__ = [
    "SYSTEM_PROMPT",
    "PatchParseError",
    "parse_candidates",
    "parse_patch",
    "patch_schema",
    "patch_text",
    "read_patch",
    "render_messages",
    "render_prompt",
]

SYSTEM_PROMPT = """\
You repair video-editing timelines. You receive an editing task (brief, constraint ledger, \
clip pool, music), the current timeline and the verifier's report on it. Answer with ONE \
JSON object, a Patch.1 that makes the timeline satisfy more constraints:
{"schema":"Patch.1","ops":[...]}
Ops (shots are 0-based indexes into the current timeline; times are seconds; in_s/out_s are \
source times inside the clip, 0 <= in_s < out_s <= clip duration):
insert{at,clip_id,in_s,out_s} remove{shot} replace{shot,clip_id,in_s,out_s} \
trim{shot,in_s,out_s} move{from,to} swap{a,b} \
set_transition{shot,type:cut|dissolve|fade_black|wipe,duration_s} \
set_music{track_id,offset_s} snap_to_beats{tolerance_s} fit_duration{target_s}
Ops apply in order, each to the result of the previous one. Use only clip and track ids \
from the task. Answer with the JSON object only."""


# --- rendering -------------------------------------------------------------------------------


def render_messages(
    task: Task, timeline: Timeline, report: Report, *, compact: bool = True
) -> list[dict[str, str]]:
    """The chat messages every model proposer sends: the system rules, then the state
    (:func:`render_compact_prompt` by default, :func:`render_prompt` with ``compact=False``)."""
    render = render_compact_prompt if compact else render_prompt
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": render(task, timeline, report)},
    ]


def render_prompt(task: Task, timeline: Timeline, report: Report) -> str:
    """The state as compact text; the same inputs always give the same string."""
    fps = task.fps
    brief = task.brief
    parts = [
        f"TASK {task.id} | fps {fps} | aspect {brief.aspect} | style {brief.style}",
        f"BRIEF: {brief.text}",
        "LEDGER:",
        *(constraint_line(c, fps) for c in task.ledger),
        f"CLIPS ({len(task.clips)}; id | dur | orientation | tags | caption):",
        *(
            f"{c.id} | {seconds(c.duration, fps)}s | {c.orientation.value} | "
            f"{','.join(sorted(c.tags))} | {caption(c.caption)}"
            for c in task.clips.values()
        ),
    ]
    if task.tracks:
        parts.append("MUSIC (id | dur | bpm | mood | beat grid):")
        parts.extend(track_line(t, fps) for t in task.tracks.values())
    parts.append(
        f"CURRENT TIMELINE ({len(timeline.shots)} shots, {seconds(timeline.length, fps)} s; "
        f"cuts at {_cuts(timeline)}):"
    )
    parts.append("```json\n" + _json(_compact_timeline(timeline)) + "\n```")
    parts.extend(_report_lines(report, fps))
    parts.append("Answer with one Patch.1 JSON object.")
    return "\n".join(parts)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _compact_timeline(timeline: Timeline) -> dict[str, Any]:
    """Timeline.1 without the default cut transitions (still valid Timeline.1)."""
    payload = timeline_payload(timeline)
    for shot in payload["shots"]:
        if shot["transition_in"]["type"] == "cut":
            del shot["transition_in"]
    return payload


def _cuts(timeline: Timeline) -> str:
    cuts = timeline.cut_positions()
    return ", ".join(seconds(c, timeline.fps) for c in cuts) + " s" if cuts else "none"


def _report_lines(report: Report, fps: int) -> list[str]:
    c = report.components
    lines = [
        f"VERIFIER: ves={report.ves:.3f} executable={'yes' if report.executable else 'no'} "
        f"feasible={'yes' if report.feasible else 'no'} duration={seconds(report.duration, fps)}s "
        f"E={c.E} H={c.H:.2f} S={c.S:.2f} Q={c.Q:.2f}"
    ]
    unmet = [r for r in report.constraints if not r.satisfied]
    met = [r.id for r in report.constraints if r.satisfied]
    if unmet:
        lines.append("UNMET:")
        for r in unmet:
            strength = "hard" if r.hard else "soft"
            lines.append(f"- {r.id} {r.kind} {strength}: {r.message or 'not satisfied'}")
    if met:
        lines.append("MET: " + ", ".join(met))
    if report.errors:
        lines.append("NOT EXECUTABLE:")
        for e in report.errors:
            where = "" if e.shot is None else f" shot {e.shot}"
            lines.append(f"- {e.code}{where}: {e.message}")
    return lines


# --- the answer side -------------------------------------------------------------------------


def patch_schema() -> dict[str, Any]:
    """Patch.1 as JSON Schema (``GET /v1/schemas/patch``); decoding narrows it to the task
    (:mod:`~services.planner.proposers.schemas`)."""
    return PatchIn.model_json_schema(by_alias=True)


def patch_text(ops: Iterable[P.Op], fps: int) -> str:
    """Domain ops as the compact Patch.1 text a model should answer (an SFT target)."""
    return _json(patch_payload(list(ops), fps))


class PatchParseError(ValueError):
    """A model answer that is not a usable Patch.1; ``reason`` is a stable short code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def read_patch(text: str, task: Task) -> tuple[P.Op, ...]:
    """The domain ops of the first JSON object in ``text``, or :class:`PatchParseError`.

    Tolerates code fences and prose around the object; accepts a bare op list or a single op.
    """
    document = _first_json(text)
    if isinstance(document, list):
        document = {"ops": document}
    elif "op" in document and "ops" not in document:
        document = {"ops": [document]}
    try:
        patch = PatchIn.model_validate(document)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise PatchParseError("schema", f"not a Patch.1: {where}: {first['msg']}") from None
    ops = tuple(patch.to_ops(task.fps))
    for index, op in enumerate(ops):
        clip_id = getattr(op, "clip_id", None)
        if clip_id is not None and clip_id not in task.clips:
            raise PatchParseError(
                "unknown_clip", f"ops[{index}]: clip {clip_id!r} is not in the pool"
            )
        if isinstance(op, P.SetMusic) and op.track_id not in task.tracks:
            raise PatchParseError(
                "unknown_track", f"ops[{index}]: track {op.track_id!r} is not in the task"
            )
    return ops


def parse_patch(text: str, task: Task) -> tuple[P.Op, ...] | None:
    """:func:`read_patch`, or ``None`` for an answer that is not a usable patch."""
    try:
        return read_patch(text, task)
    except PatchParseError:
        return None


def _first_json(text: str) -> dict[str, Any] | list[Any]:
    """The first JSON object (or list of objects) that decodes, scanning past prose, fences
    and bracketed words."""
    decoder = json.JSONDecoder()
    start = 0
    while True:
        braces = [i for i in (text.find("{", start), text.find("[", start)) if i >= 0]
        if not braces:
            raise PatchParseError("no_json", "no JSON object in the answer")
        i = min(braces)
        try:
            value, _ = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            start = i + 1
            continue
        if isinstance(value, dict):
            return value
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            return value  # a bare op list
        start = i + 1


def parse_candidates(
    texts: Iterable[str | None],
    task: Task,
    *,
    source: str,
    stats: ProposerStats,
    reasons: Counter[str] | None = None,
    note: str = "",
) -> list[Proposal]:
    """Completions → proposals. Each text counts in ``stats.candidates``; unusable ones
    (no text, no JSON, schema violations, unknown ids) count in ``stats.dropped`` and, by
    reason, in ``reasons``; none raises."""
    proposals = []
    for index, text in enumerate(texts):
        stats.candidates += 1
        try:
            if not text:
                raise PatchParseError("empty", "the model returned no text")
            ops = read_patch(text, task)
        except PatchParseError as error:
            stats.dropped += 1
            if reasons is not None:
                reasons[error.reason] += 1
            continue
        proposals.append(Proposal(ops, source, f"{note}#{index}" if note else f"#{index}"))
    return proposals
