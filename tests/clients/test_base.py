"""Helpers every client shares."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clients.base import poll_job
from clients.errors import RefineryClientError


def test_poll_job_waits_for_a_finished_status_and_times_out() -> None:
    statuses = iter(["queued", "running", "succeeded"])
    seen: list[str] = []
    job = poll_job(
        lambda: SimpleNamespace(status=next(statuses)),
        "j1",
        poll_s=0,
        timeout=None,
        on_progress=lambda j: seen.append(j.status),
    )
    assert job.status == "succeeded" and seen == ["queued", "running", "succeeded"]
    with pytest.raises(RefineryClientError, match="job j2 still running after 0 s"):
        poll_job(lambda: SimpleNamespace(status="running"), "j2", poll_s=0, timeout=0)
