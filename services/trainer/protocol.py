"""Request and response bodies of the trainer's HTTP API."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from services.common.protocol import JobOut

DatasetKind = Literal["repair_sft", "tool_sft", "evo_pairs", "solar", "grpo_sparse", "gui_sft"]
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


class ServiceSourceIn(BaseModel):
    """Records of a running service, pulled from its last cursor first."""

    model_config = ConfigDict(extra="forbid")

    service: Literal["planner", "synth"]
    url: str | None = Field(None, min_length=1)
    """Default: ``REFINERY_PLANNER_URL`` / ``REFINERY_SYNTH_URL``."""


class FileSourceIn(BaseModel):
    """Rows of a JSONL file under the data dir or ``REFINERY_SOURCE_ROOTS``."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1)


class EpisodeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(ge=1)
    seed: int = 0


class EpisodesSourceIn(BaseModel):
    """Generated GUI episodes (SOLAR-RL's AndroidControl action space on a text UI tree)."""

    model_config = ConfigDict(extra="forbid")

    episodes: EpisodeSpec


SourceIn = ServiceSourceIn | FileSourceIn | EpisodesSourceIn


class DatasetFilters(BaseModel):
    """What a builder keeps; each kind reads the filters that concern it."""

    model_config = ConfigDict(extra="forbid")

    margin: float | None = Field(None, ge=0, allow_inf_nan=False)
    """evo_pairs: the least VES gap between chosen and rejected."""
    min_ves_gain: float | None = Field(None, allow_inf_nan=False)
    """repair_sft: keep patches that raised VES at least this much."""
    proposers: list[str] | None = None
    """planner records: keep only these proposers' candidates."""
    max_rows: int | None = Field(None, ge=1)
    """Keep the first rows only (after the other filters)."""
    solar: dict[str, Any] | None = None
    """solar / grpo_sparse: SolarConfig fields (n_candidates, w1, fail_threshold, …)."""


class BuildDatasetRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: DatasetKind
    sources: list[SourceIn] = Field(min_length=1)
    filters: DatasetFilters = DatasetFilters()
    pull: bool = True
    """Pull new records from each service source before building."""


class PullRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sources: list[ServiceSourceIn] = Field(min_length=1)


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
    data: str = Field(min_length=1)
    """A dataset id from ``POST /v1/datasets:build``."""
    base: str = "tiny"
    """``tiny`` (built from config with a locally trained tokenizer), a local path or a hub id."""
    hyper: dict[str, Any] = {}
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

    planner_url: str | None = Field(None, min_length=1)
    """Default: ``REFINERY_PLANNER_URL``."""


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
    "ServiceSourceIn",
    "SourceIn",
    "TrainDevice",
    "TrainKind",
    "TrainRequest",
]
