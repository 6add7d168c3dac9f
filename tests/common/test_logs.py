from __future__ import annotations

import logging

import pytest

from services.common.logs import RateLimitedLog


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_one_line_per_distinct_error_per_interval_with_the_suppressed_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    limited = RateLimitedLog(logging.getLogger("test.limited"), interval_s=30, clock=clock)
    with caplog.at_level(logging.WARNING, logger="test.limited"):
        for _ in range(50):  # a worker polling every 0.2 s for 10 s
            limited.log(logging.WARNING, "claim:refused", "claim failed: %s", "refused")
            limited.log(logging.WARNING, "claim:timeout", "claim failed: %s", "timeout")
            clock.now += 0.2
        assert limited.suppressed("claim:refused") == 49
        clock.now = 31.0
        limited.log(logging.WARNING, "claim:refused", "claim failed: %s", "refused")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "claim failed: refused",
        "claim failed: timeout",
        "claim failed: refused (49 similar suppressed in the last 30 s)",
    ]
    assert caplog.records[-1].fields == {"suppressed": 49}  # type: ignore[attr-defined]
    assert limited.suppressed("claim:refused") == 0
