"""Trainer settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from services.common.settings import CommonSettings
from services.trainer.teachers import TeacherEndpoint


class TrainerSettings(CommonSettings):
    service_name: str = "trainer"
    planner_url: str = "http://127.0.0.1:8102"
    """Where scored records are pulled from and checkpoints published (``REFINERY_PLANNER_URL``)."""
    synth_url: str = "http://127.0.0.1:8103"
    """Where verified tool-use examples are pulled from (``REFINERY_SYNTH_URL``)."""
    source_roots: list[Path] = []
    """Folders ``{"path": …}`` sources may read (``REFINERY_SOURCE_ROOTS``, JSON list);
    empty means the data dir and the working directory."""
    pull_page_size: int = 1000
    """Records asked for per page when pulling from a service."""
    max_pull_records: int = 200_000
    """Stop one pull after this many records (the cursor resumes it next time)."""
    max_episodes: int = 10_000
    """The largest ``{"episodes": {"n"}}`` a dataset may generate."""
    train_lease_s: float = 120.0
    """A train job's lease; a worker that stops heartbeating for this long is presumed dead."""
    max_train_rows: int = 1_000_000
    train_device: Literal["auto", "cpu", "cuda"] = "auto"
    """Which train jobs this trainer's worker takes (``REFINERY_TRAIN_DEVICE``): ``cpu`` or
    ``cuda`` jobs only; ``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``."""
    vllm_url: str | None = None
    """vLLM's OpenAI-compatible API (``REFINERY_VLLM_URL``, e.g. ``http://vllm:8000/v1``):
    publishing also loads the model's LoRA adapter there, as ``llm:<model id>``."""
    vllm_api_key: str | None = None
    vllm_adapter_root: Path | None = None
    """Where vLLM sees this trainer's data dir (``REFINERY_VLLM_ADAPTER_ROOT``), when it
    mounts it elsewhere; adapter paths are rewritten from the data dir to it."""

    teachers: list[TeacherEndpoint] = []
    """OpenAI-compatible teacher endpoints (``REFINERY_TEACHERS``, a JSON list of
    ``{"name", "base_url", "model", "api_key"?}``): each is the teacher ``<name>`` in a
    :class:`~services.trainer.teachers.TeacherRegistry`."""

    def resolved_train_device(self) -> str:
        if self.train_device != "auto":
            return self.train_device
        try:
            import torch
        except ImportError:
            return "cpu"
        return "cuda" if torch.cuda.is_available() else "cpu"


@functools.lru_cache
def get_settings() -> TrainerSettings:
    return TrainerSettings()
