"""Request and response bodies of the synth service's HTTP API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from protocol.common import FiniteFloat, Seed, StrictBool, StrictInt, UpstreamUrl
from protocol.jobs import JobOut, JobRecord

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
MAX_TOOLS = 10_000
"""Tools one catalog may carry on the wire (``REFINERY_SYNTH_MAX_CATALOG_TOOLS`` may lower it)."""
MAX_N = 10_000_000
MAX_WEIGHT = 1e6
MixWeight = Annotated[FiniteFloat, Field(ge=0, le=MAX_WEIGHT)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
MAX_READER = 300
"""Characters of a ``reader`` (a named base or a checkpoint folder's path)."""


_PING = {
    "type": "function",
    "function": {
        "name": "ping_host",
        "description": "Check that a host answers.",
        "parameters": {
            "type": "object",
            "properties": {
                "host": {"type": "string", "description": "Host name to ping"},
                "count": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["host"],
        },
    },
}


class CatalogIn(BaseModel):
    """``POST /v1/catalogs``: a named list of OpenAI function schemas."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"name": "net", "tools": [_PING]}]}
    )

    name: str = Field(pattern=CATALOG_NAME)
    tools: list[Any] = Field(min_length=1, max_length=MAX_TOOLS)
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

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"catalog": "builtin", "n": 5, "mix": {"simple": 1, "parallel": 1}, "seed": 7},
                {"catalog": [_PING], "n": 2, "mix": {"simple": 1}},
            ]
        },
    )

    catalog: str | list[Any] = "builtin"
    """A stored catalog's name (``builtin`` always exists, at most 100 characters) or an
    inline list of at most 10 000 tools."""
    n: StrictInt = Field(100, ge=1, le=MAX_N)
    """Accepted examples wanted (at most ``REFINERY_SYNTH_MAX_N``)."""
    mix: dict[Annotated[str, Field(max_length=50)], MixWeight] | None = Field(None, max_length=16)
    """Category weights in [0, 1e6], at least one positive, e.g.
    ``{"simple": 0.4, "parallel": 0.6}``; None: the sampler's."""
    generator: Annotated[str, Field(max_length=50)] = "template"
    """``template`` (built in, no network) or ``llm`` (``REFINERY_LLM_BASE_URL``)."""
    reader: Annotated[str, Field(min_length=1, max_length=MAX_READER)] | None = None
    """Who answers stage 3 (the calls, read from the query): ``rules``, the hand-written
    rule reader; or a model decoding under the candidates' schema, named as a real base
    (``smollm2-135m``) or a local checkpoint folder. None: the generator's own (``rules``
    for ``template``, the endpoint for ``llm``). The generator still writes the queries."""
    rank_queries: StrictInt = Field(1, ge=1, le=16)
    """Stage-2 drafts written per query. Above 1, the real base ``smollm2-135m`` reads the
    drafts that pass stage 2's check and the most natural (lowest mean per-token NLL) is
    kept: more natural questions for about 0.3 s of CPU per draft. 1: the first draft."""
    seed: Seed = 0
    """The same seed, catalog and options draw the same ground truths in the same order."""
    max_refine_rounds: StrictInt = Field(3, ge=0, le=100)
    """At most ``REFINERY_SYNTH_MAX_REFINE_ROUNDS``."""
    isolate: StrictBool = False
    """Drop tools that overlap BFCL's own functions first (the job reports them)."""
    feedback: StrictBool = True
    """Pass the checkers' issues to each refinement round (off: plain resampling)."""

    @field_validator("catalog")
    @classmethod
    def _bounded_catalog(cls, value: str | list[Any]) -> str | list[Any]:
        if isinstance(value, str) and len(value) > 100:
            raise ValueError("a catalog name has at most 100 characters")
        if isinstance(value, list) and len(value) > MAX_TOOLS:
            raise ValueError(f"an inline catalog holds at most {MAX_TOOLS} tools")
        return value


class SynthJobOut(JobOut):
    """A synth job: the common job view plus its request and what ``isolate`` dropped.

    ``progress`` while it runs (and after): ``target``, ``max_samples``,
    ``stage1.sampled``, ``stage2.{passes,refines,failures}``,
    ``stage3.{passes,refines,failures}``, ``accepted``, ``acceptance_rate``, ``fraction``.
    ``result`` when done: the same, plus ``complete``, ``resumed_from``, ``function_usage``
    (calls per function over the accepted examples), ``function_usage_entropy`` (1.0 = even),
    ``functions_never_used`` (names) and ``unrealisable`` (``[{name, reason}]``: functions,
    or optional parameters, whose values cannot be drawn, left out of sampling).
    """

    request: dict[str, Any] = {}
    dropped: list[Any] = []

    @classmethod
    def from_job(cls, job: JobRecord) -> SynthJobOut:
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

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"categories": ["simple"], "limit": 10}]}
    )

    base_url: UpstreamUrl | None = None
    """OpenAI-compatible endpoint (with ``/v1``); default ``REFINERY_LLM_BASE_URL``. Another
    endpoint must be allowed by ``REFINERY_ALLOWED_UPSTREAMS`` and gets no API key."""
    model: Name | None = None
    """Default ``REFINERY_LLM_MODEL``."""
    categories: list[Annotated[str, Field(min_length=1, max_length=50)]] = Field(
        default_factory=lambda: ["simple"], min_length=1, max_length=16
    )
    limit: StrictInt = Field(50, ge=1, le=1_000_000)
    """Questions per category at most (``REFINERY_EVALUATE_MAX_LIMIT``)."""
    timeout_s: FiniteFloat = Field(60.0, gt=0, le=600)


class EvaluateResponse(BaseModel):
    base_url: str
    model: str
    results: dict[str, Any]
