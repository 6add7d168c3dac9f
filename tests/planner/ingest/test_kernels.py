"""librosa's numba kernels: processes that compile them at once on a fresh cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("librosa")

ROOT = Path(__file__).resolve().parents[3]

ANALYSE = """
import numpy as np
from services.planner.ingest.music import measure_music
samples = np.random.default_rng(0).standard_normal(22_050 * 5).astype(np.float32)
print(measure_music(samples).bpm)
"""


def _analysers(count: int, cache: Path) -> list[subprocess.CompletedProcess]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ANALYSE], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(count)
    ]
    return [
        subprocess.CompletedProcess(p.args, p.wait(timeout=600), p.stdout.read(), None)
        for p in procs
    ]


def test_processes_compiling_at_once_leave_a_cache_every_later_process_loads(tmp_path):
    cache = tmp_path / "numba"
    racing = _analysers(3, cache)
    assert [p.returncode for p in racing] == [0, 0, 0]
    assert len({p.stdout for p in racing}) == 1
    assert any(cache.rglob("guf-*.nbi")), "the kernels were cached"
    (later,) = _analysers(1, cache)
    assert later.returncode == 0
    assert later.stdout == racing[0].stdout
