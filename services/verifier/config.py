"""Verifier settings (``REFINERY_*``), injected through :func:`get_settings`."""

from __future__ import annotations

import functools

from services.common.settings import CommonSettings, MiB
from services.verifier.limits import Limits


class TaskLimitSettings(CommonSettings):
    """Caps on what one request may carry; the planner, which takes the same Task.1, shares
    them. Past a cap a request is a 422 naming the field and the cap."""

    max_shots: int = 2_000
    """Shots in a timeline (``REFINERY_MAX_SHOTS``)."""
    max_clips: int = 5_000
    """Clips in a task's pool (``REFINERY_MAX_CLIPS``)."""
    max_music_tracks: int = 64
    """Music tracks in a task (``REFINERY_MAX_MUSIC_TRACKS``)."""
    max_ledger: int = 256
    """Ledger entries in a task (``REFINERY_MAX_LEDGER``)."""
    max_beats: int = 20_000
    """Beats (and downbeats) of one music track (``REFINERY_MAX_BEATS``)."""
    max_patch_ops: int = 256
    """Ops in one patch (``REFINERY_MAX_PATCH_OPS``)."""
    max_batch_patches: int = 256
    """Most patches one ``/v1/verify:batch`` call may carry (``REFINERY_MAX_BATCH_PATCHES``)."""
    max_shot_work: int = 32_768
    """Timeline shots × (patches + ops) one apply or batch call may cost
    (``REFINERY_MAX_SHOT_WORK``): 2,000 shots allow 16 patches and ops, 30 shots 1,092."""

    def limits(self) -> Limits:
        return Limits(
            shots=self.max_shots,
            clips=self.max_clips,
            music=self.max_music_tracks,
            ledger=self.max_ledger,
            beats=self.max_beats,
            ops=self.max_patch_ops,
            patches=self.max_batch_patches,
            work=self.max_shot_work,
        )


class VerifierSettings(TaskLimitSettings):
    service_name: str = "verifier"
    task_cache_size: int = 256
    """Compiled tasks kept between requests (``REFINERY_TASK_CACHE_SIZE``; 0 disables)."""
    task_cache_bytes: int = 256 * MiB
    """Memory the compiled tasks may hold in all (``REFINERY_TASK_CACHE_BYTES``), each
    estimated at 16× its JSON size; least recently used ones go first."""


@functools.lru_cache
def get_settings() -> VerifierSettings:
    return VerifierSettings()
