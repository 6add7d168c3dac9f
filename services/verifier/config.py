"""Verifier settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools

from services.common.settings import CommonSettings


class VerifierSettings(CommonSettings):
    service_name: str = "verifier"
    max_batch_patches: int = 256
    """Most patches one ``/v1/verify:batch`` call may carry (``REFINERY_MAX_BATCH_PATCHES``)."""
    task_cache_size: int = 256
    """Compiled tasks kept between requests (``REFINERY_TASK_CACHE_SIZE``; 0 disables)."""


@functools.lru_cache
def get_settings() -> VerifierSettings:
    return VerifierSettings()
