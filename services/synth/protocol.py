"""Request and response bodies of the synth service's HTTP API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.common.protocol import JobOut

if TYPE_CHECKING:
    from services.common.jobs import Job

__all__ = [
    "CatalogIn",
    "CatalogOut",
    "CatalogSummary",
    "EvaluateRequest",
    "EvaluateResponse",
    "ExamplesPage",
    "SynthJobOut",
    "SynthesizeRequest",
]

CATALOG_NAME = r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,99}$"
ExportFormat = Literal["trl", "bfcl"]


class CatalogIn(BaseModel):
    """``POST /v1/catalogs``: a named list of OpenAI function schemas."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=CATALOG_NAME)
    tools: list[Any]
    """Validated by :func:`services.synth.catalog.validate_catalog` (422 names the field)."""


class CatalogSummary(BaseModel):
    name: str
    builtin: bool
    size: int
    functions: list[str]


class CatalogOut(CatalogSummary):
    tools: list[dict[str, Any]]


class SynthesizeRequest(BaseModel):
    """``POST /v1/synthesize``: what to synthesize from, how many, how."""

    model_config = ConfigDict(extra="forbid")

    catalog: str | list[Any] = "builtin"
    """A stored catalog's name (``builtin`` always exists) or an inline list of tools."""
    n: int = Field(100, ge=1)
    """Accepted examples wanted (at most ``REFINERY_SYNTH_MAX_N``)."""
    mix: dict[str, float] | None = None
    """Category weights, e.g. ``{"simple": 0.4, "parallel": 0.6}``; None: the sampler's."""
    generator: str = "template"
    """``template`` (built in, no network) or ``llm`` (``REFINERY_LLM_BASE_URL``)."""
    seed: int = 0
    """The same seed, catalog and options draw the same ground truths in the same order."""
    max_refine_rounds: int = Field(3, ge=0)
    isolate: bool = False
    """Drop tools that overlap BFCL's own functions first (the job reports them)."""
    feedback: bool = True
    """Pass the checkers' issues to each refinement round (off: plain resampling)."""


class SynthJobOut(JobOut):
    """A synth job: the common job view plus its request and what ``isolate`` dropped.

    ``progress`` while it runs (and after): ``target``, ``max_samples``,
    ``stage1.sampled``, ``stage2.{passes,refines,failures}``,
    ``stage3.{passes,refines,failures}``, ``accepted``, ``acceptance_rate``, ``fraction``.
    """

    request: dict[str, Any] = {}
    dropped: list[Any] = []

    @classmethod
    def from_job(cls, job: Job) -> SynthJobOut:
        base = JobOut.from_job(job).model_dump()
        payload = job.payload or {}
        return cls(**base, request=payload.get("request", {}), dropped=payload.get("dropped", []))


class ExamplesPage(BaseModel):
    """Accepted examples after a cursor (a ``seq``); pass ``next_cursor`` as ``after``."""

    job_id: str
    examples: list[dict[str, Any]]
    next_cursor: int
    has_more: bool


class EvaluateRequest(BaseModel):
    """``POST /v1/evaluate``: score a served model on BFCL categories."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    """OpenAI-compatible endpoint (with ``/v1``); default ``REFINERY_LLM_BASE_URL``."""
    model: str | None = None
    """Default ``REFINERY_LLM_MODEL``."""
    categories: list[str] = Field(default_factory=lambda: ["simple"], min_length=1)
    limit: int = Field(50, ge=1)
    """Questions per category at most."""
    timeout_s: float = Field(60.0, gt=0, le=600)


class EvaluateResponse(BaseModel):
    base_url: str
    model: str
    results: dict[str, Any]
