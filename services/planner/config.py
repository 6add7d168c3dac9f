"""Planner settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from services.common.settings import CommonSettings


class PlannerSettings(CommonSettings):
    service_name: str = "planner"
    verifier_url: str = "http://127.0.0.1:8101"
    """Where the verifier service answers (``REFINERY_VERIFIER_URL``); it decides every verdict."""
    llm_base_url: str | None = None
    """OpenAI-compatible endpoint for the ``llm`` proposer (``REFINERY_LLM_BASE_URL``)."""
    llm_model: str | None = None
    """Model name sent to that endpoint (``REFINERY_LLM_MODEL``)."""
    llm_api_key: str | None = None
    hf_device: Literal["auto", "cuda", "mps", "cpu"] = "auto"
    """Where ``hf:<id>`` checkpoints run (``REFINERY_HF_DEVICE``): ``auto`` picks CUDA when
    present (bfloat16), else MPS, else the CPU."""
    relevance: Literal["auto", "minilm", "tfidf"] = "auto"
    """How the ``search`` proposer ranks clips against the brief (``REFINERY_RELEVANCE``):
    ``auto`` uses MiniLM when the ``relevance`` extra is installed, else TF-IDF."""
    media_root: Path = Path(".")
    """Media URIs resolve only inside this folder (``REFINERY_MEDIA_ROOT``)."""
    max_rounds_limit: int = 64
    max_candidates_limit: int = 64
    max_teachers: int = 8


@functools.lru_cache
def get_settings() -> PlannerSettings:
    return PlannerSettings()
