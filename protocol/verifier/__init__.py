"""Wire models of the verifier: Task.1, Timeline.1, Patch.1, Report.1 and the HTTP bodies."""

from protocol.verifier.patch import OpUnion, PatchIn
from protocol.verifier.report import ReportOut
from protocol.verifier.requests import (
    ApplyBody,
    ApplyRequest,
    ApplyResponse,
    BatchBody,
    BatchRequest,
    BatchResponse,
    PatchResult,
    VerifyBody,
    VerifyRequest,
)
from protocol.verifier.task import ConstraintUnion, TaskIn
from protocol.verifier.timeline import TimelineIn, TimelineOut

__all__ = [
    "ApplyBody",
    "ApplyRequest",
    "ApplyResponse",
    "BatchBody",
    "BatchRequest",
    "BatchResponse",
    "ConstraintUnion",
    "OpUnion",
    "PatchIn",
    "PatchResult",
    "ReportOut",
    "TaskIn",
    "TimelineIn",
    "TimelineOut",
    "VerifyBody",
    "VerifyRequest",
]
