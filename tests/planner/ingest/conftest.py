"""Generated footage shared by the ingest tests (made once per test session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.planner.ingest import footage


@pytest.fixture(scope="session")
def media(tmp_path_factory) -> Path:
    """A media root with one file of each kind (see :mod:`tests.planner.ingest.footage`)."""
    root = tmp_path_factory.mktemp("media")
    footage.hard_cuts(root / "cuts.mp4")
    footage.dissolve(root / "dissolve.mp4")
    footage.mixed(root / "trip" / "mixed.mp4")
    footage.shaky(root / "handheld.mp4")
    footage.tripod(root / "tripod.mp4")
    footage.pan(root / "pan.mp4")
    footage.dark(root / "night.mp4")
    footage.lit(root / "day.mp4")
    footage.portrait(root / "portrait.mp4")
    footage.rotated(root / "rotated.mp4")
    footage.slowmo(root / "slowmo.mp4")
    return root
