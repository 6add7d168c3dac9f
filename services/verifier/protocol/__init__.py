"""Wire models of the verifier: Task.1, Timeline.1, Patch.1, Report.1 and the HTTP bodies."""

from services.verifier.protocol.patch import OpUnion, PatchIn
from services.verifier.protocol.report import ReportOut
from services.verifier.protocol.requests import (
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
from services.verifier.protocol.task import ConstraintUnion, TaskIn
from services.verifier.protocol.timeline import TimelineIn, TimelineOut

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
