"""The compact repair prompt: what is wrong, where, and what could fix it.

The full prompt (:func:`~services.planner.proposers.prompting.render_prompt`) carries the
whole ledger, pool and timeline: 3–14k characters on EditBench, past a CPU student's context.
The compact one keeps what a repair needs:

- the task line, the brief, the verifier's one-line verdict;
- the unmet constraints with the verifier's messages (they say what to do, e.g. ``add ≥ 5 s``);
- the shots those messages name (``index | clip | in–out s | tags``), and the cut's first and
  last shots, at most :data:`MAX_SHOTS`;
- the clips the unmet constraints' selectors name, then unused clips no hard
  ``must_exclude`` rules out, at most :data:`MAX_CLIPS` (``id | dur | tags``);
- the music tracks (one line each) and the execution errors, if any.

The same text goes to a tiny CPU student and to an 8B model on a GPU: both read it through
their tokenizer's chat template (:func:`~services.planner.proposers.hf.prompt_text`).
"""

from __future__ import annotations

import re

from services.planner.proposers.prompt_lines import caption, constraint_line, seconds, track_line
from services.verifier.ledger import MustExclude
from services.verifier.pool import Selector
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline

__all__ = ["MAX_CLIPS", "MAX_SHOTS", "named_shots", "render_compact_prompt", "render_task"]

MAX_SHOTS = 12
MAX_CLIPS = 12
_SHOTS = re.compile(r"\bshots? ((?:\d+(?:[–-]\d+)?)(?:(?:, | and )\d+(?:[–-]\d+)?)*)")
_SELECTOR_FIELDS = ("selector", "first", "last")


def named_shots(messages: list[str], count: int) -> list[int]:
    """Shot indexes the messages name (``shot 3``, ``shots 4–6``, ``shots 1, 7``), in order,
    each once, only those below ``count``."""
    found: list[int] = []
    for message in messages:
        for match in _SHOTS.finditer(message):
            for item in re.split(r", | and ", match.group(1)):
                low, _, high = item.replace("–", "-").partition("-")
                end = int(high) if high else int(low)
                for shot in range(int(low), min(end, int(low) + MAX_SHOTS) + 1):
                    if shot < count and shot not in found:
                        found.append(shot)
    return found


def _shot_lines(task: Task, timeline: Timeline, report: Report) -> list[str]:
    messages = [r.message or "" for r in report.constraints if not r.satisfied]
    messages += [e.message for e in report.errors]
    count = len(timeline.shots)
    shots = named_shots(messages, count)[: MAX_SHOTS - 2]
    for edge in (0, count - 1):
        if count and edge not in shots:
            shots.append(edge)
    lines = []
    for index in sorted(shots):
        shot = timeline.shots[index]
        clip = task.clips.get(shot.clip_id)
        tags = ",".join(sorted(clip.tags)) if clip else "?"
        lines.append(
            f"{index} | {shot.clip_id} | {seconds(shot.source.start, task.fps)}–"
            f"{seconds(shot.source.end, task.fps)}s | {tags}"
        )
    return lines


def _named_clips(task: Task, timeline: Timeline, report: Report) -> list[str]:
    """Clips the unmet constraints' selectors match, then unused allowed clips."""
    unmet = {r.id for r in report.constraints if not r.satisfied}
    named: list[str] = []
    excluded: set[str] = set()
    for rule in task.ledger:
        selectors = [getattr(rule, f, None) for f in _SELECTOR_FIELDS]
        for selector in (s for s in selectors if isinstance(s, Selector)):
            matching = [c.id for c in task.clips.values() if selector.matches(c)]
            if isinstance(rule, MustExclude) and rule.hard:
                excluded.update(matching)
            elif rule.id in unmet:
                named.extend(c for c in matching if c not in named)
    used = {shot.clip_id for shot in timeline.shots}
    spare = [c for c in task.clips if c not in used and c not in excluded and c not in named]
    return (named + spare)[:MAX_CLIPS]


def render_task(task: Task) -> list[str]:
    """The task's header lines: id, frame rate, aspect, style and the brief."""
    brief = task.brief
    return [
        f"TASK {task.id} | fps {task.fps} | aspect {brief.aspect} | style {brief.style}",
        f"BRIEF: {brief.text}",
    ]


def render_compact_prompt(task: Task, timeline: Timeline, report: Report) -> str:
    """The compact state (see the module doc); the same inputs give the same string."""
    fps = task.fps
    parts = render_task(task)
    parts.append(
        f"VERIFIER: ves={report.ves:.3f} feasible={'yes' if report.feasible else 'no'} "
        f"timeline {len(timeline.shots)} shots, {seconds(timeline.length, fps)}s"
    )
    unmet = [r for r in report.constraints if not r.satisfied]
    by_id = {c.id: c for c in task.ledger}
    if unmet:
        parts.append("UNMET:")
        for result in unmet:
            rule = by_id.get(result.id)
            head = constraint_line(rule, fps) if rule else f"{result.id} {result.kind}"
            parts.append(f"- {head} | {result.message or 'not satisfied'}")
    if report.errors:
        parts.append("NOT EXECUTABLE:")
        for e in report.errors:
            where = "" if e.shot is None else f" shot {e.shot}"
            parts.append(f"- {e.code}{where}: {e.message}")
    if shots := _shot_lines(task, timeline, report):
        parts.append("SHOTS (index | clip | in–out | tags):")
        parts.extend(shots)
    if clips := _named_clips(task, timeline, report):
        parts.append("CLIPS (id | dur | tags | caption):")
        for cid in clips:
            clip = task.clips[cid]
            parts.append(
                f"{cid} | {seconds(clip.duration, fps)}s | {','.join(sorted(clip.tags))} | "
                f"{caption(clip.caption)}"
            )
    if task.tracks:
        placed = timeline.music.track_id if timeline.music else "none"
        parts.append(f"MUSIC (placed: {placed}; id | dur | bpm | mood | beat grid):")
        parts.extend(track_line(t, fps) for t in task.tracks.values())
    parts.append("Answer with one Patch.1 JSON object.")
    return "\n".join(parts)
