"""Report.1: the verifier's verdict, in seconds and frames."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.verifier.score import Report
from services.verifier.timeline import to_seconds


class ComponentsOut(BaseModel):
    E: int
    H: float
    S: float
    Q: float
    rubric: dict[str, float]


class ConstraintOut(BaseModel):
    id: str
    kind: str
    hard: bool
    satisfied: bool
    score: float
    violation: float
    message: str | None = None


class ExecErrorOut(BaseModel):
    code: str
    shot: int | None = None
    message: str


class ReportOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["Report.1"] = Field("Report.1", alias="schema")
    executable: bool
    feasible: bool
    ves: float
    duration_s: float
    duration_frames: int
    fps: int
    components: ComponentsOut
    constraints: list[ConstraintOut]
    errors: list[ExecErrorOut]
    ves_upper_bound: float | None = None
    """A proven bound on the VES any timeline for the task can reach (``docs/exact.md``);
    the planner's plan answer sets it, a bare verification leaves it out."""

    @classmethod
    def from_domain(cls, report: Report) -> ReportOut:
        return cls.model_validate(report_payload(report))


def report_payload(report: Report) -> dict[str, Any]:
    """Report.1 as JSON-ready data, built directly (the hot path of every verify answer)."""
    c = report.components
    return {
        "schema": "Report.1",
        "executable": report.executable,
        "feasible": report.feasible,
        "ves": round(report.ves, 4),
        "duration_s": to_seconds(report.duration, report.fps),
        "duration_frames": report.duration,
        "fps": report.fps,
        "components": {
            "E": c.E,
            "H": round(c.H, 4),
            "S": round(c.S, 4),
            "Q": round(c.Q, 4),
            "rubric": {
                "relevance": round(c.relevance, 4),
                "beats": round(c.beats, 4),
                "pacing": round(c.pacing, 4),
                "variety": round(c.variety, 4),
            },
        },
        "constraints": [
            {
                "id": r.id,
                "kind": r.kind,
                "hard": r.hard,
                "satisfied": r.satisfied,
                "score": round(r.score, 4),
                "violation": round(r.violation, 4),
                "message": r.message,
            }
            for r in report.constraints
        ],
        "errors": [{"code": e.code, "shot": e.shot, "message": e.message} for e in report.errors],
    }
