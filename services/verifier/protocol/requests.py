"""Request and response bodies of the verifier's HTTP API."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from services.verifier.protocol.base import Wire
from services.verifier.protocol.patch import PatchIn
from services.verifier.protocol.report import ReportOut
from services.verifier.protocol.task import TaskIn
from services.verifier.protocol.timeline import TimelineIn, TimelineOut


class VerifyRequest(Wire):
    task: TaskIn
    timeline: TimelineIn


class ApplyRequest(Wire):
    task: TaskIn
    timeline: TimelineIn
    patch: PatchIn


class ApplyResponse(BaseModel):
    timeline: TimelineOut
    report: ReportOut


class BatchRequest(Wire):
    task: TaskIn
    timeline: TimelineIn
    patches: list[PatchIn] = Field(min_length=1, max_length=256)
    include_timelines: bool = True


class PatchResult(BaseModel):
    """One patch's outcome: applied (timeline and report) or rejected (the envelope's error)."""

    ok: bool
    timeline: TimelineOut | None = None
    report: ReportOut | None = None
    error: dict[str, Any] | None = None


class BatchResponse(BaseModel):
    base: ReportOut
    results: list[PatchResult]
