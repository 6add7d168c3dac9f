"""The files of one media-analysis job analysed side by side, one process per core.

Analysis is CPU-bound (ffmpeg decoding on one thread per file, then numpy and OpenCV on
small frames), so the files go to processes, not threads. The processes fork from a
``forkserver`` (``spawn`` where there is none) that imported the analysis once: a job's
workers start in milliseconds and inherit none of the planner's threads, sockets or
database connections. Each task answers with its file's result and the CPU time and peak
memory of its process; while it runs, the fraction of the file decoded comes back on a
queue, which is how the job counts footage seconds done.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import resource
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import cv2

from services.planner.ingest.errors import describe_failure
from services.planner.ingest.music import analyze_music
from services.planner.ingest.video import measure_video

__all__ = ["AnalysisPool", "cores_given", "measure_task", "music_task", "warm_up"]

_progress: Any = None
"""This worker's progress queue (set by :func:`_start_worker`)."""


def cores_given() -> int:
    """The CPU cores this process may run on (its affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _context() -> BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])  # in effect until the server starts
        return context
    return multiprocessing.get_context("spawn")


def warm_up() -> None:
    """Start the forkserver now (it imports the analysis), so a job's first file does
    not wait for it."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _start_worker(progress: Any) -> None:
    global _progress
    _progress = progress
    cv2.setNumThreads(1)  # the pool is the parallelism: one thread per file


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def _answer(key: int, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    started = _cpu_s()
    try:
        found: dict[str, Any] = {"result": compute()}
    except Exception as exc:  # one bad file is reported; the pool goes on
        found = {"error": describe_failure(exc)}
    return {**found, "key": key, "cpu_s": _cpu_s() - started, "peak_mb": _peak_mb(),
            "pid": os.getpid()}  # fmt: skip


def measure_task(
    key: int, path: str, split_shots: bool, digest: str, skim: bool = True
) -> dict[str, Any]:
    """One video's measurement (as :meth:`Measurement.as_dict`), in a worker."""

    def heard(fraction: float) -> None:
        _progress.put((key, fraction))

    return _answer(
        key,
        lambda: measure_video(
            Path(path), split_shots=split_shots, skim=skim, digest=digest, on_progress=heard
        ).as_dict(),
    )


def music_task(key: int, path: str, track_id: str, uri: str) -> dict[str, Any]:
    """One track's beats and tempo, in a worker."""
    return _answer(key, lambda: analyze_music(Path(path), track_id=track_id, uri=uri))


class AnalysisPool:
    """``workers`` analysis processes for one job; closed (and reaped) on exit."""

    def __init__(self, workers: int) -> None:
        context = _context()
        self._progress = context.Queue()
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(self._progress,),
        )

    def submit(self, task: Callable[..., dict[str, Any]], args: tuple[Any, ...]) -> Future:
        return self._executor.submit(task, *args)

    def fractions(self) -> Iterator[tuple[int, float]]:
        """The ``(key, fraction decoded)`` reports that arrived since the last call."""
        while True:
            try:
                yield self._progress.get_nowait()
            except queue.Empty:
                return

    def __enter__(self) -> AnalysisPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        with contextlib.suppress(Exception):
            self._progress.close()
            self._progress.join_thread()
