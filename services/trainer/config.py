"""Trainer settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools
from pathlib import Path

from services.common.settings import CommonSettings


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


@functools.lru_cache
def get_settings() -> TrainerSettings:
    return TrainerSettings()
