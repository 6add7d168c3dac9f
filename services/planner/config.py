"""Planner settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from services.verifier.config import TaskLimitSettings


class PlannerSettings(TaskLimitSettings):
    """The task caps (``REFINERY_MAX_CLIPS``, ``REFINERY_MAX_SHOTS``...) apply to plan
    requests too; keep them at or under the verifier's, which judges every candidate."""

    service_name: str = "planner"
    verifier_url: str = "http://127.0.0.1:8101"
    """Where the verifier service answers (``REFINERY_VERIFIER_URL``); it decides every verdict."""
    llm_base_url: str | None = None
    """OpenAI-compatible endpoint for the ``llm`` proposer (``REFINERY_LLM_BASE_URL``)."""
    llm_model: str | None = None
    """Model name sent to that endpoint (``REFINERY_LLM_MODEL``)."""
    llm_api_key: str | None = None
    vlm_model: str | None = None
    """Vision-language model that captions footage in ``POST /v1/media:analyze``
    (``REFINERY_VLM_MODEL``); unset: captions come from sidecars or file names."""
    vlm_base_url: str | None = None
    """Its OpenAI-compatible endpoint (``REFINERY_VLM_BASE_URL``); default the LLM endpoint."""
    vlm_api_key: str | None = None
    hf_device: Literal["auto", "cuda", "mps", "cpu"] = "auto"
    """Where ``hf:<id>`` checkpoints run (``REFINERY_HF_DEVICE``): ``auto`` picks CUDA when
    present (bfloat16), else MPS, else the CPU."""
    relevance: Literal["auto", "minilm", "tfidf"] = "auto"
    """How the ``search`` proposer ranks clips against the brief (``REFINERY_RELEVANCE``):
    ``auto`` uses MiniLM when the ``relevance`` extra is installed, else TF-IDF."""
    exact_time_limit_s: float = Field(default=10.0, gt=0)
    """Wall-clock seconds the ``exact`` proposer searches per task
    (``REFINERY_EXACT_TIME_LIMIT_S``)."""
    exact_work_limit: float | None = Field(default=None, gt=0)
    """Also cap its CP-SAT deterministic work per task (``REFINERY_EXACT_WORK_LIMIT``): a
    search stopped by this limit gives the same plan on a loaded machine as on an idle one."""
    media_root: Path = Path(".")
    """Media URIs resolve only inside this folder (``REFINERY_MEDIA_ROOT``)."""
    media_url_base: str | None = None
    """The media root as editing apps see it (``REFINERY_MEDIA_URL_BASE``, e.g. a shared drive
    ``/Volumes/Projects/reel`` or ``smb://nas/reel``): OTIO exports name media under it.
    Unset: absolute ``file://`` URLs under the media root."""
    warm_up: bool = True
    """Load at start-up what the first plan would load lazily (the relevance model, CP-SAT,
    the output schemas, the analysis pool's server); ``/readyz`` answers 503 until done
    (``REFINERY_WARM_UP``)."""
    analyze_workers: int = Field(default=0, ge=0)
    """Files a media-analysis job analyses at once, each in its own process
    (``REFINERY_ANALYZE_WORKERS``); 0: as many as the cores this planner may run on."""
    analyze_skim: bool = True
    """Leave undecoded the footage between two alike keyframes under 2.5 s apart, where no
    cut can hide unless it cuts away and back (``REFINERY_ANALYZE_SKIM``); false: decode
    every reference frame."""
    max_rounds_limit: int = 64
    max_candidates_limit: int = 64
    max_teachers: int = 8

    @field_validator("media_url_base")
    @classmethod
    def _absolute_base(cls, value: str | None) -> str | None:
        if value:
            from services.planner.export.errors import BadMediaUrlBase
            from services.planner.export.urls import url_base

            try:
                url_base(value)
            except BadMediaUrlBase as error:
                raise ValueError(error.message) from None
        return value or None


@functools.lru_cache
def get_settings() -> PlannerSettings:
    return PlannerSettings()
