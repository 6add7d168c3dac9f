"""Prometheus metrics: HTTP traffic per app, domain metrics per process, multiprocess-safe.

Under ``uvicorn --workers N`` every worker is its own process with its own counters, so a
scrape would read whichever worker answered. With ``PROMETHEUS_MULTIPROC_DIR`` set (as
:mod:`services.common.serve` does, on a clean folder, before the workers start),
prometheus_client writes each process's values to files there and :meth:`HttpMetrics.render`
aggregates them with ``MultiProcessCollector``: counters and histograms add up across
workers. Collectors that read shared state at scrape time (the job queue's depth from
the database) are registered with :meth:`HttpMetrics.add_live` and asked directly.

Domain metrics (:data:`PLAN_ROUNDS`, :data:`JOB_SECONDS`, ...) are module-level: the code
that does the work records them wherever it runs (a request, a job thread).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = [
    "CONTENT_TYPE_LATEST",
    "DOMAIN",
    "JOB_SECONDS",
    "PLAN_ROUNDS",
    "PLAN_VES",
    "RENDER_SECONDS",
    "SYNTH_CANDIDATES",
    "HttpMetrics",
    "QueueDepth",
    "mark_process_dead",
    "multiprocess_dir",
]

log = logging.getLogger("refinery.metrics")
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_LABELS = ("method", "route", "status")

DOMAIN = CollectorRegistry(auto_describe=True)
"""The process's domain metrics; every app's ``/metrics`` includes them."""

PLAN_ROUNDS = Histogram(
    "refinery_plan_rounds",
    "Planner rounds a plan ran before it stopped.",
    buckets=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64),
    registry=DOMAIN,
)
PLAN_VES = Histogram(
    "refinery_plan_ves",
    "VES of each plan's best timeline.",
    buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0),
    registry=DOMAIN,
)
JOB_SECONDS = Histogram(
    "refinery_job_duration_seconds",
    "Time a worker ran a job's handler, by job kind and outcome (succeeded, failed).",
    ("kind", "outcome"),
    buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 14400),
    registry=DOMAIN,
)
RENDER_SECONDS = Histogram(
    "refinery_render_seconds",
    "Wall time of each ffmpeg render of a plan.",
    buckets=(0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600),
    registry=DOMAIN,
)
SYNTH_CANDIDATES = Counter(
    "refinery_synth_candidates",
    "Synth candidates by the checker's verdict (accepted, rejected).",
    ("outcome",),
    registry=DOMAIN,
)


def multiprocess_dir() -> str | None:
    """The multiprocess folder when this process runs in multiprocess mode."""
    return os.environ.get(MULTIPROC_ENV) or None


def mark_process_dead(pid: int | None = None) -> None:
    """Drop this (exiting) worker's live gauge files; a no-op outside multiprocess mode."""
    path = multiprocess_dir()
    if path is not None:
        multiprocess.mark_process_dead(pid or os.getpid(), path)


class _Forward:
    """Collector yielding another registry's metrics (the process-wide domain ones)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterable:
        return self.registry.collect()


class HttpMetrics:
    """``refinery_http_requests_total`` and ``refinery_http_request_duration_seconds``.

    Labelled by method, route template and status; call :meth:`observe` from the
    middleware. Services may register their own metrics on ``registry`` (single process)
    or, for values read at scrape time, with :meth:`add_live` (any mode).
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.requests = Counter(
            "refinery_http_requests", "HTTP requests served.", _LABELS, registry=self.registry
        )
        self.latency = Histogram(
            "refinery_http_request_duration_seconds",
            "Time from request start to response end.",
            _LABELS,
            buckets=BUCKETS,
            registry=self.registry,
        )
        self._children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self._live: list[Collector] = []
        if multiprocess_dir() is None:  # per-process figures mean nothing aggregated
            ProcessCollector(registry=self.registry)
            self.registry.register(_Forward(DOMAIN))  # type: ignore[arg-type]

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        if method not in _METHODS:
            method = "OTHER"
        key = (method, route, status)
        children = self._children.get(key)
        if children is None:
            labels = (method, route, str(status))
            children = (self.requests.labels(*labels), self.latency.labels(*labels))
            self._children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def add_live(self, collector: Collector) -> None:
        """A collector asked at every scrape (e.g. a database query), in any mode."""
        self._live.append(collector)
        self.registry.register(collector)

    def render(self) -> bytes:
        """The metrics in Prometheus text format; every worker's, in multiprocess mode."""
        path = multiprocess_dir()
        if path is None:
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=path)
        for collector in self._live:
            registry.register(collector)
        return generate_latest(registry)


class QueueDepth:
    """``refinery_job_queue_depth`` (queued) and ``refinery_jobs_running`` per job kind,
    read from the shared job table at scrape time, so every worker reports the same."""

    def __init__(self, counts: Callable[[], Mapping[tuple[str, str], int]]) -> None:
        self.counts = counts

    def collect(self) -> Iterator[Metric]:
        queued = GaugeMetricFamily(
            "refinery_job_queue_depth", "Jobs waiting to be claimed, by kind.", labels=["kind"]
        )
        running = GaugeMetricFamily(
            "refinery_jobs_running", "Jobs a worker holds, by kind.", labels=["kind"]
        )
        try:
            counts = self.counts()
        except Exception:  # the database is down: /metrics still answers, without these
            log.warning("job queue depth unavailable", exc_info=True)
            return
        for (kind, status), n in sorted(counts.items()):
            family = queued if status == "queued" else running if status == "running" else None
            if family is not None:
                family.add_metric([kind], n)
        yield queued
        yield running
