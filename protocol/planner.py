"""Request and response bodies of the planner's HTTP API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, field_validator, model_validator

from protocol.common import Seed, StrictBool
from protocol.verifier import ReportOut, TaskIn, TimelineIn, TimelineOut
from protocol.verifier.base import (
    MAX_ITEMS,
    MAX_TEXT,
    Count,
    Fps,
    Id,
    PositiveCount,
    Tag,
)
from protocol.verifier.task import ClipIn, MusicTrackIn

ProposerName = Annotated[str, Field(min_length=1, max_length=500)]
MIN_BUDGET_S = 1.0
"""The shortest plan time budget: less cannot cover one verifier call under load, and a
budget that ends before the first cut is judged fails the plan (503) as a hung verifier
would."""
Budget = Annotated[float, Strict(), Field(ge=MIN_BUDGET_S, le=86_400, allow_inf_nan=False)]


class PlanOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    proposer: ProposerName = "search"
    """``search``, ``llm``, or ``hf:<registered id or path>``."""
    teachers: list[ProposerName] = Field([], max_length=64)
    """Run each as its own branch on the same task; the verifier-best branch wins."""
    max_rounds: Count = 8
    candidates: PositiveCount = 8
    patience: PositiveCount = 1
    """Rounds in a row without an accepted patch before a branch stops: 1 stops at the first
    (a deterministic proposer asked again at the same cut answers the same); a sampling
    model proposer may be asked again, each round with a new sampling seed."""
    seed: Seed = 0
    time_budget_s: Budget | None = None
    relax: StrictBool = True
    """When the ledger cannot be met (the pre-checks, or the exact proposer's deletion filter,
    find conflicting entries): plan under the ledger with one entry of each conflict made soft
    and answer ``infeasible``. ``false`` plans under the ledger as written, so the answer never
    scores below a given ``timeline`` under it (the learning benchmarks compare cuts so)."""
    draft: Literal["model", "heuristic"] | None = None
    """The first cut when no ``timeline`` is given: ``model`` (the proposer's model writes it
    under the Timeline.1 schema; only for ``llm`` / ``hf:`` proposers), ``heuristic`` (the
    proposer's built-in draft: ``simple_draft`` for model proposers, search's constructive
    draft). Default: ``model`` for a proposer with a model, ``heuristic`` for one without."""


class PlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: TaskIn
    """A task without a ``ledger`` key is compiled from its brief first (``rules``);
    ``"ledger": []`` means no constraints."""
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
    stopped: str | None = None
    """``"time_budget"`` when ``time_budget_s`` ended the branch before it converged."""
    draft: Literal["model", "heuristic", "given"] | None = None
    """Where the branch's first cut came from (None when the branch failed)."""


class SpanOut(BaseModel):
    start: int
    end: int
    text: str


class ProvenanceOut(BaseModel):
    """Where a ledger entry came from: the brief's characters ``start``–``end`` (``text``),
    or, with ``source`` ``default`` / ``aspect``, no words (``start``/``end``/``text`` null)."""

    constraint_id: str
    start: int | None
    end: int | None
    text: str | None
    source: Literal["brief", "aspect", "default"] = "brief"
    note: str | None = None


class ConflictSpanOut(BaseModel):
    start: int | None
    end: int | None
    text: str | None


class ConflictOut(BaseModel):
    """Words of the brief that contradict each other (or the pool), and what was kept; or
    ledger ``entries`` no cut can meet together with the pool and music, and the ``facts``
    that forbid it (``spans``: the words those entries came from)."""

    message: str
    spans: list[ConflictSpanOut] = []
    kept: str | None = None
    entries: list[str] = []
    facts: list[str] = []


class InfeasibleOut(BaseModel):
    """Why no cut meets the ledger as written, and what the plan relaxed to make one."""

    conflicts: list[ConflictOut]
    """Each a smallest set of ledger entries that cannot all hold, with the facts why."""
    relaxed: list[str]
    """Hard entries planned as soft (one per conflict): the cut comes as close as it can."""
    relaxed_ves: float
    """The cut's VES under the relaxed ledger (``ves`` is under the ledger as written)."""
    relaxed_feasible: bool
    """The cut meets every entry of the relaxed ledger that is still hard."""
    source: Literal["precheck", "exact"] = "precheck"
    """Who found the conflicts: the verifier's pre-checks, or the exact solver's deletion
    filter (on its discretisation)."""


class RejectedOut(BaseModel):
    """What a compiler proposed that did not pass the checks, and why."""

    item: dict[str, Any]
    reason: str


class CompiledOut(BaseModel):
    ledger: list[dict[str, Any]]
    provenance: list[ProvenanceOut]
    unparsed: list[SpanOut]
    conflicts: list[ConflictOut] = []
    rejected: list[RejectedOut] = []


class CompileBrief(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_TEXT, json_schema_extra={"pattern": r"\S"})
    """Documented as holding a non-space character; the validator says what to do."""
    aspect: str | None = Field(None, max_length=20, pattern=r"^\d+:\d+$")
    """Only when the user chose one: it becomes a soft ``orientation`` unless the words
    say otherwise."""
    style: Tag | None = None

    @field_validator("text")
    @classmethod
    def _words(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("the brief is empty: write what the edit should be")
        return text


class CompileRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    brief: CompileBrief
    clips: list[ClipIn] = Field(min_length=1, max_length=MAX_ITEMS)
    music: list[MusicTrackIn] = Field([], max_length=MAX_ITEMS)
    fps: Fps = 30
    compiler: Literal["rules", "llm"] = "rules"
    id: Id | None = None
    """The task's id (default: derived from the brief and the pool)."""


class CompileResponse(BaseModel):
    task: dict[str, Any]
    """Task.1 with the compiled ledger."""
    provenance: list[ProvenanceOut]
    unparsed: list[SpanOut]
    conflicts: list[ConflictOut] = []
    rejected: list[RejectedOut] = []
    compiler: str


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
    draft: Literal["model", "heuristic", "given"] = "heuristic"
    """Where the winning branch's first cut came from: its model, a heuristic draft, or the
    request's ``timeline``."""
    elapsed_s: float
    ves_upper_bound: float | None = None
    """A proven bound on the VES of any timeline for the task (``docs/exact.md``)."""
    gap_to_bound: float | None = None
    """``ves_upper_bound − ves``: how far the plan can at most be from the best cut."""
    compiled: CompiledOut | None = None
    """The ledger compiled from the brief when the task came without one."""
    infeasible: InfeasibleOut | None = None
    """Set when no cut can meet the ledger as written: the conflicts and what was relaxed."""


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

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={  # documents the validator below: at least one of the two
            "anyOf": [
                {"required": ["paths"], "properties": {"paths": {"minItems": 1}}},
                {"required": ["music"], "properties": {"music": {"minItems": 1}}},
            ]
        },
    )

    paths: list[str] = []
    """Video files or folders (a folder: every video file in it and below)."""
    music: list[str] = []
    """Music files or folders."""
    split_shots: StrictBool = True
    """Split each file into shots (one clip per shot); false: one clip per file."""
    captions: Literal["auto", "sidecar", "llm", "none"] = "auto"
    """``auto``: a sidecar, else the vision model (when configured), else the file name."""

    @model_validator(mode="after")
    def _something(self) -> AnalyzeRequest:
        if not self.paths and not self.music:
            raise ValueError("give footage in paths or tracks in music (both are empty)")
        return self


class AnalysisError(BaseModel):
    path: str
    code: str
    message: str


class AnalysisOutput(BaseModel):
    """``GET /v1/jobs/{id}/output`` of an analysis: Task.1 clips and music, and what failed."""

    clips: list[ClipIn]
    music: list[MusicTrackIn]
    errors: list[AnalysisError] = []
