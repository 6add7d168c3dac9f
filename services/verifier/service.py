"""Adapts wire requests to the pure verifier and answers JSON-ready payloads.

Answers are built as plain data and serialised once (the typed ``ReportOut`` /
``TimelineOut`` models validate the same payloads for Python callers).
"""

from __future__ import annotations

from typing import Any

from services.verifier.errors import PatchRejected, VerifierError
from services.verifier.patches import apply_patch
from services.verifier.protocol import BatchRequest, PatchIn, TaskIn, TimelineIn
from services.verifier.protocol.report import report_payload
from services.verifier.protocol.timeline import timeline_payload
from services.verifier.score import Verifier


def verify(task_in: TaskIn, timeline_in: TimelineIn) -> dict[str, Any]:
    task = task_in.to_task()
    return report_payload(Verifier(task).verify(timeline_in.to_timeline(task)))


def apply(task_in: TaskIn, timeline_in: TimelineIn, patch_in: PatchIn) -> dict[str, Any]:
    task = task_in.to_task()
    timeline = apply_patch(task, timeline_in.to_timeline(task), patch_in.to_ops(task.fps))
    report = Verifier(task).verify(timeline)
    return {"timeline": timeline_payload(timeline), "report": report_payload(report)}


def verify_batch(request: BatchRequest, *, max_patches: int) -> dict[str, Any]:
    if len(request.patches) > max_patches:
        raise VerifierError(
            f"{len(request.patches)} patches; at most {max_patches} per call",
            param="patches",
            code="too_many_patches",
        )
    task = request.task.to_task()
    verifier = Verifier(task)
    timeline = request.timeline.to_timeline(task)
    results: list[dict[str, Any]] = []
    for index, patch in enumerate(request.patches):
        try:
            patched = apply_patch(task, timeline, patch.to_ops(task.fps))
        except PatchRejected as rejected:
            error = rejected.envelope()["error"]
            error["param"] = f"patches[{index}].{error['param'].removeprefix('patch.')}"
            results.append({"ok": False, "timeline": None, "report": None, "error": error})
            continue
        results.append(
            {
                "ok": True,
                "timeline": timeline_payload(patched) if request.include_timelines else None,
                "report": report_payload(verifier.verify(patched)),
                "error": None,
            }
        )
    return {"base": report_payload(verifier.verify(timeline)), "results": results}
