"""Adapts parsed requests to the pure verifier and answers JSON-ready payloads.

Answers are built as plain data and serialised once (the typed ``ReportOut`` /
``TimelineOut`` models validate the same payloads for Python callers).
"""

from __future__ import annotations

from typing import Any

from protocol.verifier import ApplyBody, BatchBody, VerifyBody
from protocol.verifier.report import report_payload
from protocol.verifier.timeline import timeline_payload
from services.verifier.errors import PatchRejected, VerifierError
from services.verifier.patches import apply_patch
from services.verifier.score import Verifier


def verify(verifier: Verifier, body: VerifyBody) -> dict[str, Any]:
    return report_payload(verifier.verify(body.timeline.to_timeline(verifier.task)))


def apply(verifier: Verifier, body: ApplyBody) -> dict[str, Any]:
    task = verifier.task
    timeline = apply_patch(task, body.timeline.to_timeline(task), body.patch.to_ops(task.fps))
    report = verifier.verify(timeline)
    return {"timeline": timeline_payload(timeline), "report": report_payload(report)}


def verify_batch(verifier: Verifier, body: BatchBody, *, max_patches: int) -> dict[str, Any]:
    if len(body.patches) > max_patches:
        raise VerifierError(
            f"{len(body.patches)} patches; at most {max_patches} per call",
            param="patches",
            code="too_many_patches",
        )
    task = verifier.task
    timeline = body.timeline.to_timeline(task)
    results: list[dict[str, Any]] = []
    for index, patch in enumerate(body.patches):
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
                "timeline": timeline_payload(patched) if body.include_timelines else None,
                "report": report_payload(verifier.verify(patched)),
                "error": None,
            }
        )
    return {"base": report_payload(verifier.verify(timeline)), "results": results}
