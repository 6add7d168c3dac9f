"""Planner scored records built the way the closed loop writes them, for the builder tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from protocol.verifier import PatchIn, TaskIn, TimelineIn
from protocol.verifier.report import report_payload
from protocol.verifier.timeline import timeline_payload
from services.verifier.errors import PatchRejected
from services.verifier.patches import apply_patch
from services.verifier.score import Verifier

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str = "surf-reel") -> tuple[dict[str, Any], dict[str, Any]]:
    """(Task.1, Timeline.1) of a shipped example."""
    folder = EXAMPLES / name
    return json.loads((folder / "task.json").read_text()), json.loads(
        (folder / "timeline.json").read_text()
    )


def record(
    task_wire: dict[str, Any],
    state: dict[str, Any],
    ops: list[dict[str, Any]],
    *,
    record_id: int,
    plan_id: str = "plan-a",
    branch_id: int = 0,
    round: int = 1,
    proposer: str = "search",
    accepted: bool = False,
) -> dict[str, Any]:
    """One scored record: the patch verified against ``state`` by the real verifier."""
    task = TaskIn.model_validate(task_wire).to_task()
    verifier = Verifier(task)
    timeline = TimelineIn.model_validate(state).to_timeline(task)
    state = timeline_payload(timeline)
    before = report_payload(verifier.verify(timeline))
    patch = {"schema": "Patch.1", "ops": ops}
    after = rejection = None
    try:
        new = apply_patch(task, timeline, PatchIn.model_validate(patch).to_ops(task.fps))
        after = report_payload(verifier.verify(new))
    except PatchRejected as error:
        rejection = error.envelope()["error"]
    return {
        "record_id": record_id,
        "plan_id": plan_id,
        "task_id": task_wire["id"],
        "branch_id": branch_id,
        "round": round,
        "proposer": proposer,
        "state_timeline": state,
        "report_before": before,
        "patch": patch,
        "report_after": after,
        "rejection": rejection,
        "ves_before": before["ves"],
        "ves_after": None if after is None else after["ves"],
        "accepted": accepted,
        "created_at": "2025-01-01T00:00:00Z",
    }


def next_state(task_wire: dict[str, Any], rec: dict[str, Any]) -> dict[str, Any]:
    """The timeline an applied record's patch produced."""
    task = TaskIn.model_validate(task_wire).to_task()
    timeline = TimelineIn.model_validate(rec["state_timeline"]).to_timeline(task)
    ops = PatchIn.model_validate(rec["patch"]).to_ops(task.fps)
    return timeline_payload(apply_patch(task, timeline, ops))
