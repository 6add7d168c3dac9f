"""EditBench's small tier: tasks in the exact solver's range (≤ 12 clips, ≤ 10 shots).

Row ``i`` of the tier comes from the EditBench rows of ``seed`` in order: each feasible row
whose planted cut has at most ``max_shots`` shots keeps its planted clips and as many of its
other clips (decoys included) as fit in ``max_clips``, drawn by a generator seeded with the
row's id; the ledger is kept whole. The planted cut is re-verified: it stays feasible.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.editbench import generate_row
from protocol.verifier import TaskIn, TimelineIn
from services.verifier.score import Verifier

MAX_CLIPS = 12
MAX_SHOTS = 10


def shrink(row: dict[str, Any], max_clips: int = MAX_CLIPS) -> dict[str, Any]:
    """The row with its pool cut to ``max_clips`` clips, the planted ones kept."""
    task = row["task"]
    planted = {shot["clip_id"] for shot in row["planted"]["shots"]}
    others = [c["id"] for c in task["clips"] if c["id"] not in planted]
    random.Random(f"small:{task['id']}").shuffle(others)
    keep = planted | set(others[: max(0, max_clips - len(planted))])
    clips = [c for c in task["clips"] if c["id"] in keep]
    return {**row, "task": {**task, "id": f"{task['id']}-small", "clips": clips}}


def small_tier(
    n: int, seed: int = 0, *, max_clips: int = MAX_CLIPS, max_shots: int = MAX_SHOTS
) -> Iterator[dict[str, Any]]:
    """``n`` small feasible rows (see the module docstring)."""
    made, index = 0, 0
    while made < n:
        row = generate_row(seed, index)
        index += 1
        shots = len(row["planted"]["shots"])
        if not row["feasible"] or shots > max_shots or len(row["planted"]["shots"]) > max_clips:
            continue
        small = shrink(row, max_clips)
        task = TaskIn.model_validate(small["task"]).to_task()
        planted = TimelineIn.model_validate(small["planted"]).to_timeline(task)
        if not Verifier(task).verify(planted).feasible:
            continue  # pragma: no cover - shrinking keeps every planted clip
        made += 1
        yield small
