"""Request and response bodies of the verifier's HTTP API.

``*Body`` models are a request without its ``task``, which the service compiles separately
(and caches); ``*Request`` models are the whole body, as documented and as clients send it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from protocol.common import StrictBool
from protocol.verifier.base import MAX_ITEMS, Wire
from protocol.verifier.patch import PatchIn
from protocol.verifier.report import ReportOut
from protocol.verifier.task import TaskIn
from protocol.verifier.timeline import TimelineIn, TimelineOut


class VerifyBody(Wire):
    timeline: TimelineIn


class VerifyRequest(VerifyBody):
    task: TaskIn


class ApplyBody(Wire):
    timeline: TimelineIn
    patch: PatchIn


class ApplyRequest(ApplyBody):
    task: TaskIn


class ApplyResponse(BaseModel):
    timeline: TimelineOut
    report: ReportOut


class BatchBody(Wire):
    timeline: TimelineIn
    patches: list[PatchIn] = Field(min_length=1, max_length=MAX_ITEMS)
    include_timelines: StrictBool = True


class BatchRequest(BatchBody):
    task: TaskIn


class PatchResult(BaseModel):
    """One patch's outcome: applied (timeline and report) or rejected (the envelope's error)."""

    ok: bool
    timeline: TimelineOut | None = None
    report: ReportOut | None = None
    error: dict[str, Any] | None = None


class BatchResponse(BaseModel):
    base: ReportOut
    results: list[PatchResult]
