"""A model's first cut: the draft prompt, and the reader of the Timeline.1 it answers.

A model proposer drafts by sampling ``n`` answers to :func:`render_draft_messages` under the
cut-only Timeline.1 schema of :func:`~services.planner.proposers.schemas.task_timeline_schema`
and keeping the one the local verifier scores best (proposers may use the pure verifier
modules; the loop still has the verifier service judge the chosen cut).

:func:`read_timeline` reads an answer as Timeline.1 for the task. A schema cannot say that a
shot's ``out_s`` lies after its ``in_s``, so the reader is tolerant there, and says so: a shot
written backwards is read with its two points swapped, and one shorter than a frame is left
out (each counted in ``DraftStats.fixed_shots``). What still fails is an answer with no JSON,
one that is not Timeline.1, or one left with no shot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from protocol.verifier.timeline import TimelineIn
from services.planner.proposers.compact import render_task
from services.planner.proposers.prompt_lines import constraint_line, seconds, track_line
from services.planner.proposers.prompting import PatchParseError, _first_json
from services.verifier.errors import UnknownReference
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import Timeline, to_frames

__all__ = [
    "DRAFT_SYSTEM_PROMPT",
    "DraftStats",
    "best_draft",
    "read_timeline",
    "render_draft_messages",
]

DRAFT_SYSTEM_PROMPT = """\
You cut video-editing timelines. You receive an editing task (brief, constraint ledger, clip \
pool, music). Answer with ONE JSON object, a Timeline.1 first cut that satisfies the ledger:
{"schema":"Timeline.1","fps":<task fps>,"shots":[{"clip_id","in_s","out_s"},...],\
"music":{"track_id","offset_s","fade_out_s"} or null}
Shots play in order, joined by cuts; in_s/out_s are source times inside the clip in seconds, \
0 <= in_s < out_s <= clip duration. Use only clip and track ids from the task. Answer with \
the JSON object only."""


@dataclass(slots=True)
class DraftStats:
    """How a proposer's drafts went: answers sampled, answers read as a cut, shots fixed."""

    answers: int = 0
    parsed: int = 0
    fixed_shots: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "draft_answers": self.answers,
            "draft_parsed": self.parsed,
            "draft_fixed_shots": self.fixed_shots,
            "draft_drop_reasons": dict(self.reasons),
        }


def render_draft_messages(task: Task) -> list[dict[str, str]]:
    """The chat messages a model drafts from: the rules, then the task (ledger, pool as
    ``id | dur | orientation | tags`` lines, music)."""
    fps = task.fps
    parts = [*render_task(task), "LEDGER:", *(constraint_line(c, fps) for c in task.ledger)]
    parts.append(f"CLIPS ({len(task.clips)}; id | dur | orientation | tags):")
    parts.extend(
        f"{c.id} | {seconds(c.duration, fps)}s | {c.orientation.value} | {','.join(sorted(c.tags))}"
        for c in task.clips.values()
    )
    if task.tracks:
        parts.append("MUSIC (id | dur | bpm | mood | beat grid):")
        parts.extend(track_line(t, fps) for t in task.tracks.values())
    parts.append("Answer with one Timeline.1 JSON object.")
    return [
        {"role": "system", "content": DRAFT_SYSTEM_PROMPT},
        {"role": "user", "content": "\n".join(parts)},
    ]


def _fix_shots(document: dict[str, Any], fps: int) -> int:
    """Swap backwards shots and drop sub-frame ones in place; how many were touched."""
    shots = document.get("shots")
    if not isinstance(shots, list):
        return 0
    kept, fixed = [], 0
    for shot in shots:
        if not isinstance(shot, dict):
            kept.append(shot)
            continue
        start, end = shot.get("in_s"), shot.get("out_s")
        if isinstance(start, int | float) and isinstance(end, int | float):
            if to_frames(float(end), fps) == to_frames(float(start), fps):
                fixed += 1
                continue  # shorter than a frame: nothing to play
            if end < start:
                shot = {**shot, "in_s": end, "out_s": start}
                fixed += 1
        kept.append(shot)
    document["shots"] = kept
    return fixed


def read_timeline(text: str, task: Task) -> tuple[Timeline, int]:
    """The cut in ``text`` and how many shots were fixed, or :class:`PatchParseError`
    (reasons ``no_json``, ``schema``, ``unknown_id``, ``no_shots``)."""
    document = _first_json(text)
    if not isinstance(document, dict):
        raise PatchParseError("schema", "the answer is not a Timeline.1 object")
    fixed = _fix_shots(document, task.fps)
    try:
        timeline = TimelineIn.model_validate(document).to_timeline(task)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise PatchParseError("schema", f"not a Timeline.1: {where}: {first['msg']}") from None
    except UnknownReference as error:
        raise PatchParseError("unknown_id", str(error)) from None
    if not timeline.shots:
        raise PatchParseError("no_shots", "the cut has no shot")
    return timeline, fixed


def best_draft(texts: Iterable[str | None], task: Task, stats: DraftStats) -> Timeline | None:
    """The answer the local verifier scores best (the first on ties); None when none reads."""
    verifier = Verifier(task)
    best: tuple[float, Timeline] | None = None
    for text in texts:
        stats.answers += 1
        try:
            if not text:
                raise PatchParseError("empty", "the model returned no text")
            timeline, fixed = read_timeline(text, task)
        except PatchParseError as error:
            stats.reasons[error.reason] += 1
            continue
        stats.parsed += 1
        stats.fixed_shots += fixed
        ves = verifier.verify(timeline).ves
        if best is None or ves > best[0]:
            best = (ves, timeline)
    return None if best is None else best[1]
