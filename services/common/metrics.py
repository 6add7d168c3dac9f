"""Prometheus metrics for HTTP traffic, one registry per app."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

__all__ = ["CONTENT_TYPE_LATEST", "HttpMetrics"]

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_LABELS = ("method", "route", "status")


class HttpMetrics:
    """``refinery_http_requests_total`` and ``refinery_http_request_duration_seconds``.

    Labelled by method, route template and status. Recording is a dict look-up and
    three integer bumps, without locks: call :meth:`observe` from the event loop only
    (the middleware does). Services may register their own metrics on ``registry``.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        ProcessCollector(registry=self.registry)
        # (method, route, status) -> [count, sum, n(le b0), n(b0 < x <= b1), ..., n(> last)]
        self._series: dict[tuple[str, str, int], list[float]] = {}
        self.registry.register(self)  # type: ignore[arg-type]

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        if method not in _METHODS:
            method = "OTHER"
        key = (method, route, status)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = [0, 0.0] + [0] * (len(BUCKETS) + 1)
        series[0] += 1
        series[1] += seconds
        series[2 + bisect_left(BUCKETS, seconds)] += 1

    def collect(self) -> Iterator[Metric]:
        """Prometheus collector protocol: build the families at scrape time."""
        total = CounterMetricFamily(
            "refinery_http_requests", "HTTP requests served.", labels=_LABELS
        )
        latency = HistogramMetricFamily(
            "refinery_http_request_duration_seconds",
            "Time from request start to response end.",
            labels=_LABELS,
        )
        bounds = [floatToGoString(b) for b in BUCKETS] + ["+Inf"]
        for (method, route, status), series in list(self._series.items()):
            labels = [method, route, str(status)]
            total.add_metric(labels, series[0])
            running, buckets = 0.0, []
            for bound, count in zip(bounds, series[2:], strict=True):
                running += count
                buckets.append((bound, running))
            latency.add_metric(labels, buckets, series[1])
        yield total
        yield latency

    def describe(self) -> list[Metric]:
        return []

    def render(self) -> bytes:
        """The registry in Prometheus text format."""
        return generate_latest(self.registry)
