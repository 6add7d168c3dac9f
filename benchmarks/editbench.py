"""EditBench: editing tasks built around a planted timeline, in the spirit of RefineCut-Bench.

Each row is ``{"schema": "EditBench.1", "task": Task.1, "planted": Timeline.1, "feasible",
"infeasible_reason", "kinds"}``. A task is built *backwards*: shots first (distinct clips,
lengths on the beat grid, the end on a downbeat, transitions with their media handles), then
the clip pool around them (decoys with the right subject but the wrong orientation, a defect,
or too little media), then a ledger derived so the planted timeline meets every constraint,
hard and soft, then a brief that says what the ledger says. About one task in ten is then made
infeasible by a contradiction provable from the task alone (see ``INFEASIBLE_REASONS``); its
planted timeline stays in the row and breaks the contradicting constraint.

Row ``i`` depends only on ``(seed, i)``: ``python -m benchmarks editbench --n 500 --seed 0
--out tasks.jsonl``. See ``docs/editbench.md``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import Progress

from benchmarks.editbench_ledger import (
    INFEASIBLE_REASONS,
    KINDS,
    build_ledger,
    find,
    make_infeasible,
    number,
)
from benchmarks.editbench_plan import (
    FPS_CHOICES,
    PERIODS,
    TARGETS_S,
    Draft,
    build_pool,
    plan_music,
    plan_shots,
)
from benchmarks.editbench_vocab import ASPECTS, STYLES, THEMES
from protocol.verifier import TaskIn, TimelineIn
from services.verifier.score import Verifier

__all__ = [
    "INFEASIBLE_REASONS",
    "KINDS",
    "SCHEMA",
    "GenerationError",
    "check_row",
    "cli",
    "dumps",
    "generate",
    "generate_row",
    "task_rng",
]

SCHEMA = "EditBench.1"
INFEASIBLE_RATE = 0.10


class GenerationError(RuntimeError):
    """The generator built a row that breaks its own promise (a bug in this module)."""


# --------------------------------------------------------------------------- brief & wire


def _describe(selector: dict[str, Any]) -> str:
    if selector.get("clip_ids"):
        return "clip " + " or ".join(selector["clip_ids"])
    return "the " + " or ".join(selector["tags"])


def _say_order(c: dict[str, Any]) -> str:
    if "before" in c:
        return f"show {_describe(c['before'])} before any of {_describe(c['after'])}"
    parts = []
    if "first" in c:
        parts.append(f"open on {_describe(c['first'])}")
    if "last" in c:
        parts.append(f"end on {_describe(c['last'])}")
    return " and ".join(parts)


def _say_include(c: dict[str, Any]) -> str:
    if c.get("clip_ids"):
        return "use " + " and ".join(c["clip_ids"])
    n = c.get("min_count", 1)
    return f"include at least {n} shot{'s' if n > 1 else ''} of {_describe(c)}"


def _say_exclude(c: dict[str, Any]) -> str:
    if c.get("clip_ids"):
        return "do not use " + ", ".join(c["clip_ids"])
    return "leave out anything showing " + " or ".join(c["tags"])


def _say_transitions(c: dict[str, Any]) -> str:
    kinds = [t.replace("_", " ") for t in c.get("allowed", ()) if t != "cut"]
    if not kinds or c.get("max_count") == 0:
        return "hard cuts only"
    text = f"at most {c['max_count']} transitions ({', '.join(kinds)})"
    return text + f", {c['min_duration_s']}–{c['max_duration_s']} s long"


def _say(draft: Draft, c: dict[str, Any]) -> str:
    tracks = {t.id: t for t in draft.tracks}
    kind = c["kind"]
    if kind == "music":
        track = tracks[c["track_id"]]
        tempo = f", {track.bpm} bpm" if track.period else ""
        return f"score it with {track.id} ({track.mood}{tempo})"
    return {
        "duration": lambda: f"keep it {c['min_s']}–{c['max_s']} s long",
        "shot_length": lambda: f"keep every shot {c['min_s']}–{c['max_s']} s",
        "must_include": lambda: _say_include(c),
        "must_exclude": lambda: _say_exclude(c),
        "no_reuse": lambda: (
            "never reuse a clip"
            if c.get("max_uses", 1) == 1
            else f"use no clip more than {c['max_uses']} times"
        ),
        "order": lambda: _say_order(c),
        "transitions": lambda: _say_transitions(c),
        "beat_alignment": lambda: (
            f"cut on the beat ({c['min_fraction']:.0%} of cuts within {c['tolerance_s']} s)"
        ),
        "end_on_downbeat": lambda: "end on a downbeat",
        "orientation": lambda: f"{c['value']} clips only",
        "max_consecutive_tag": lambda: f"no more than {c['max_run']} {c['tag']} shots in a row",
        "coverage": lambda: (
            f"cover {', '.join(c['topics'])}"
            + ("" if c["min_fraction"] >= 1 else f" (at least {c['min_fraction']:.0%} of them)")
        ),
    }[kind]()


def _brief(draft: Draft) -> str:
    duration = find(draft, "duration")
    assert duration is not None
    target = duration.get("target_s")
    if target is not None:
        length = f"{round(target)}-second"
    else:
        length = f"{duration['min_s']}–{duration['max_s']} s"
    label = ASPECTS[draft.aspect][1]
    text = f"{draft.style.capitalize()} {length} {label} ({draft.aspect}) of a {draft.theme.name}."
    musts = [_say(draft, c) for c in draft.ledger if c["hard"]]
    wishes = [_say(draft, c) for c in draft.ledger if not c["hard"]]
    if musts:
        text += " Must: " + "; ".join(musts) + "."
    if wishes:
        text += " Ideally: " + "; ".join(wishes) + "."
    return text


def _task_dict(draft: Draft) -> dict[str, Any]:
    fps, sec = draft.fps, draft.seconds
    clips = [
        {
            "id": c.id,
            "uri": f"media/{draft.task_id}/{c.id}.mp4",
            "duration_s": sec(c.duration),
            "caption": c.caption,
            "tags": c.tags,
            "orientation": c.orientation,
            "quality": c.quality,
        }
        for c in draft.pool
    ]
    music = []
    for t in draft.tracks:
        beats = [sec(b) for b in t.beats()]
        music.append(
            {
                "id": t.id,
                "uri": f"media/{draft.task_id}/{t.id}.wav",
                "duration_s": sec(t.duration),
                "bpm": t.bpm,
                "beats_s": beats,
                "downbeats_s": beats[::4],
                "mood": t.mood,
            }
        )
    return {
        "schema": "Task.1",
        "id": draft.task_id,
        "fps": fps,
        "brief": {"text": _brief(draft), "aspect": draft.aspect, "style": draft.style},
        "clips": clips,
        "music": music,
        "ledger": draft.ledger,
    }


def _timeline_dict(draft: Draft) -> dict[str, Any]:
    sec = draft.seconds
    shots = []
    for shot in draft.shots:
        kind, frames = shot.transition
        transition = {"type": kind} if kind == "cut" else {"type": kind, "duration_s": sec(frames)}
        shots.append(
            {
                "clip_id": shot.clip.id,
                "in_s": sec(shot.start),
                "out_s": sec(shot.start + shot.length),
                "transition_in": transition,
            }
        )
    assert draft.track is not None
    return {
        "schema": "Timeline.1",
        "fps": draft.fps,
        "shots": shots,
        "music": {
            "track_id": draft.track.id,
            "offset_s": sec(draft.offset),
            "fade_out_s": sec(draft.fade_out),
        },
    }


# --------------------------------------------------------------------------- rows


def task_rng(seed: int, index: int) -> random.Random:
    """The generator of row ``index``: depends on ``(seed, index)`` only, never on ``n``."""
    return random.Random(f"editbench:{seed}:{index}")


def generate_row(seed: int, index: int) -> dict[str, Any]:
    """Row ``index`` of the benchmark for ``seed``; checked against the verifier before return."""
    rng = task_rng(seed, index)
    aspect = rng.choice(("9:16", "9:16", "16:9", "16:9", "1:1"))
    draft = Draft(
        index=index,
        task_id=f"eb{seed}-{index:05d}",
        fps=rng.choice(FPS_CHOICES),
        theme=rng.choice(THEMES),
        aspect=aspect,
        orientation=ASPECTS[aspect][0],
        style=rng.choice(STYLES),
        target_s=rng.choice(TARGETS_S),
    )
    period = rng.choice(PERIODS[draft.fps])
    plan_shots(rng, draft, period)
    plan_music(rng, draft, period)
    build_pool(rng, draft)
    build_ledger(rng, draft)
    reason = make_infeasible(rng, draft) if rng.random() < INFEASIBLE_RATE else None
    number(draft)
    present = {c["kind"] for c in draft.ledger}
    row = {
        "schema": SCHEMA,
        "task": _task_dict(draft),
        "planted": _timeline_dict(draft),
        "feasible": reason is None,
        "infeasible_reason": reason,
        "kinds": [kind for kind in KINDS if kind in present],
    }
    check_row(row)
    return row


def check_row(row: dict[str, Any]) -> None:
    """Raise :class:`GenerationError` unless the planted timeline behaves as the row claims:
    executable always; for a feasible task every constraint, hard and soft, satisfied; for an
    infeasible one at least one hard constraint unmet."""
    task = TaskIn.model_validate(row["task"]).to_task()
    report = Verifier(task).verify(TimelineIn.model_validate(row["planted"]).to_timeline(task))
    task_id = row["task"]["id"]
    if not report.executable:
        raise GenerationError(f"{task_id}: planted timeline not executable: {report.errors}")
    unmet = [c for c in report.constraints if not c.satisfied]
    if row["feasible"] and unmet:
        raise GenerationError(f"{task_id}: planted timeline misses {[c.message for c in unmet]}")
    if not row["feasible"] and report.feasible:
        raise GenerationError(f"{task_id}: infeasible task, yet its planted timeline is feasible")


def generate(n: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    for index in range(n):
        yield generate_row(seed, index)


def dumps(row: dict[str, Any]) -> str:
    """One JSONL line: compact, key order as built, UTF-8."""
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def cli(
    n: int = typer.Option(500, help="How many tasks to write."),
    seed: int = typer.Option(0, help="Benchmark seed; row i depends only on (seed, i)."),
    out: Path = typer.Option(..., help="Where to write the JSONL rows."),
) -> None:
    """Write EditBench rows (Task.1 + planted Timeline.1) as JSONL."""
    console = Console(stderr=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    feasible = 0
    kinds: set[str] = set()
    started = time.perf_counter()
    with (
        out.open("w", encoding="utf-8") as sink,
        Progress(console=console, transient=True) as progress,
    ):
        job = progress.add_task("generating", total=n)
        for row in generate(n, seed):
            sink.write(dumps(row) + "\n")
            feasible += row["feasible"]
            kinds.update(row["kinds"])
            progress.advance(job)
    elapsed = time.perf_counter() - started
    console.print(
        f"wrote {n} tasks to {out}: {feasible} feasible, {n - feasible} infeasible, "
        f"{len(kinds)}/{len(KINDS)} kinds covered ({n / elapsed:.0f} tasks/s)",
        soft_wrap=True,
    )
