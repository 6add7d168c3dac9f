"""Request and response bodies of the planner's HTTP API."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from services.planner.ingest.paths import AUDIO_EXTENSIONS, VIDEO_EXTENSIONS, expand
from services.verifier.protocol import ReportOut, TaskIn, TimelineIn, TimelineOut
from services.verifier.protocol.task import ClipIn, MusicTrackIn


class PlanOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    proposer: str = "search"
    """``search``, ``llm``, or ``hf:<registered id or path>``."""
    teachers: list[str] = []
    """Run each as its own branch on the same task; the verifier-best branch wins."""
    max_rounds: int = Field(8, ge=0)
    candidates: int = Field(8, ge=1)
    seed: int = 0
    time_budget_s: float | None = Field(None, gt=0, allow_inf_nan=False)


class PlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: TaskIn
    timeline: TimelineIn | None = None
    """Repair mode: start from this cut instead of a draft."""
    options: PlanOptions = PlanOptions()


class RoundOut(BaseModel):
    round: int
    proposer: str
    patch: dict[str, Any] | None
    ves_before: float
    ves_after: float
    accepted: bool


class BranchOut(BaseModel):
    proposer: str
    final_ves: float
    feasible: bool
    rounds: int
    error: str | None = None
    stats: dict[str, Any] = {}


class PlanResponse(BaseModel):
    plan_id: str
    task_id: str
    timeline: TimelineOut
    report: ReportOut
    ves: float
    feasible: bool
    infeasible_constraints: list[str] = []
    """Hard constraints still unmet when the loop ended (the task may be infeasible)."""
    rounds: list[RoundOut]
    branches: list[BranchOut]
    draft_ves: float
    elapsed_s: float


class ProposerOut(BaseModel):
    name: str
    kind: str
    available: bool
    detail: str = ""


class RegisterProposer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._\-]+$")
    path: str = Field(min_length=1)
    """A local checkpoint folder (what the trainer publishes)."""


class AnalyzeRequest(BaseModel):
    """``POST /v1/media:analyze``: footage and music under ``REFINERY_MEDIA_ROOT``."""

    model_config = ConfigDict(extra="forbid")

    paths: list[str] = []
    """Video files or folders (a folder: every video file in it and below)."""
    music: list[str] = []
    """Music files or folders."""
    split_shots: bool = True
    """Split each file into shots (one clip per shot); false: one clip per file."""
    captions: Literal["auto", "sidecar", "llm", "none"] = "auto"
    """``auto``: a sidecar, else the vision model (when configured), else the file name."""

    @model_validator(mode="after")
    def _something(self) -> AnalyzeRequest:
        if not self.paths and not self.music:
            raise ValueError("give footage in paths or tracks in music (both are empty)")
        return self

    def to_payload(self, media_root: Path) -> dict[str, Any]:
        """The job's payload: every file, relative to the root; raises for a path outside it
        or one that does not exist (naming ``paths[i]`` / ``music[i]``)."""
        files = expand(self.paths, media_root, field="paths", extensions=VIDEO_EXTENSIONS)
        music = expand(self.music, media_root, field="music", extensions=AUDIO_EXTENSIONS)
        return {
            "files": files,
            "music": music,
            "split_shots": self.split_shots,
            "captions": self.captions,
        }


class AnalysisError(BaseModel):
    path: str
    code: str
    message: str


class AnalysisOutput(BaseModel):
    """``GET /v1/jobs/{id}/output`` of an analysis: Task.1 clips and music, and what failed."""

    clips: list[ClipIn]
    music: list[MusicTrackIn]
    errors: list[AnalysisError] = []
