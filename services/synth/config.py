"""Synth settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import Field

from services.common.settings import CommonSettings


class SynthSettings(CommonSettings):
    service_name: str = "synth"
    llm_base_url: str | None = None
    """OpenAI-compatible endpoint of the ``llm`` generator (``REFINERY_LLM_BASE_URL``),
    including the API prefix, e.g. ``http://127.0.0.1:8000/v1``; also what ``/v1/evaluate``
    scores by default."""
    llm_model: str | None = None
    """Model name sent to that endpoint (``REFINERY_LLM_MODEL``)."""
    llm_api_key: str | None = None
    llm_timeout_s: float = 60.0
    """Per request to the endpoint (``REFINERY_LLM_TIMEOUT_S``)."""
    llm_max_retries: int = 2
    """Retries of a timed-out, refused or 5xx request before the job fails."""
    synth_max_n: int = 100_000
    """Largest ``n`` one job may ask for (``REFINERY_SYNTH_MAX_N``)."""
    synth_max_refine_rounds: int = 8
    """Largest ``max_refine_rounds`` a job may ask for."""
    synth_sample_factor: float = 3.0
    """A job draws at most ``ceil(n × factor)`` ground truths while collecting ``n``
    accepted examples, so a catalog nothing can be accepted from still finishes."""
    synth_batch_size: int = 8
    """Examples written per transaction (and per progress heartbeat)."""
    synth_workers: int = 1
    """Worker threads this process runs on the job queue (``REFINERY_SYNTH_WORKERS``)."""
    synth_lease_s: float = 120.0
    """A job's lease; a worker silent for this long loses the job to another one."""
    synth_max_catalog_tools: int = 2_000
    hf_device: Literal["auto", "cuda", "mps", "cpu"] = "auto"
    """Where a model ``reader`` runs (``REFINERY_HF_DEVICE``, as for the planner's ``hf:``
    proposers): ``auto`` picks CUDA when present, else MPS, else the CPU. Its dtype is
    ``REFINERY_MODEL_DTYPE``, its threads ``REFINERY_TORCH_THREADS``."""
    synth_reader_max_new_tokens: int = Field(default=256, ge=16, le=4096)
    """Tokens a model reader may write for one answer (``REFINERY_SYNTH_READER_MAX_NEW_TOKENS``)."""
    evaluate_max_limit: int = 2_000


@functools.lru_cache
def get_settings() -> SynthSettings:
    return SynthSettings()
