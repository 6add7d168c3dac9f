"""Typed clients for the verifier service (``POST /v1/verify``, ``/v1/apply``, …).

::

    from clients import VerifierClient

    with VerifierClient() as verifier:               # REFINERY_VERIFIER_URL or :8101
        report = verifier.verify(task, timeline)     # dicts or TaskIn / TimelineIn
        print(report.feasible, report.ves)

Inputs may be the wire models or plain dicts (the server validates either way and
answers a 422 naming the field); outputs are always the typed wire models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import httpx

from clients.base import AsyncAPIClient, Call, SyncAPIClient, healthy, parse_model, wire
from clients.errors import RefineryClientError
from protocol.verifier import (
    ApplyResponse,
    BatchResponse,
    PatchIn,
    ReportOut,
    TaskIn,
    TimelineIn,
)

__all__ = [
    "DEFAULT_VERIFIER_URL",
    "AsyncVerifierClient",
    "PatchLike",
    "TaskLike",
    "TimelineLike",
    "VerifierClient",
]

DEFAULT_VERIFIER_URL = "http://127.0.0.1:8101"

TaskLike = TaskIn | Mapping[str, Any]
TimelineLike = TimelineIn | Mapping[str, Any]
PatchLike = PatchIn | Mapping[str, Any]


def _json_object(response: httpx.Response) -> dict[str, Any]:
    data = response.json()
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    return data


class _Calls:
    """The verifier's endpoints as :class:`Call` values, shared by both clients."""

    @staticmethod
    def verify(task: TaskLike, timeline: TimelineLike) -> Call[ReportOut]:
        body = {"task": wire(task), "timeline": wire(timeline)}
        return Call("POST", "/v1/verify", parse_model(ReportOut), body)

    @staticmethod
    def apply(task: TaskLike, timeline: TimelineLike, patch: PatchLike) -> Call[ApplyResponse]:
        body = {"task": wire(task), "timeline": wire(timeline), "patch": wire(patch)}
        return Call("POST", "/v1/apply", parse_model(ApplyResponse), body)

    @staticmethod
    def verify_batch(
        task: TaskLike,
        timeline: TimelineLike,
        patches: Iterable[PatchLike],
        include_timelines: bool,
    ) -> Call[BatchResponse]:
        body = {
            "task": wire(task),
            "timeline": wire(timeline),
            "patches": [wire(p) for p in patches],
            "include_timelines": include_timelines,
        }
        return Call("POST", "/v1/verify:batch", parse_model(BatchResponse), body)

    @staticmethod
    def schema(name: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/schemas/{quote(name, safe='')}", _json_object)

    @staticmethod
    def health() -> Call[bool]:
        return Call("GET", "/healthz", healthy, retry=False)


class VerifierClient(SyncAPIClient):
    """Blocking verifier client; see :class:`clients.base.SyncAPIClient` for options."""

    base_url_env = "REFINERY_VERIFIER_URL"
    default_base_url = DEFAULT_VERIFIER_URL

    def verify(
        self, task: TaskLike, timeline: TimelineLike, *, timeout: float | None = None
    ) -> ReportOut:
        """Judge ``timeline`` against ``task``: executability, every constraint, VES.
        ``timeout``: seconds this call may take at most (e.g. what is left of a budget)."""
        return self._call(replace(_Calls.verify(task, timeline), timeout=timeout))

    def apply(self, task: TaskLike, timeline: TimelineLike, patch: PatchLike) -> ApplyResponse:
        """Apply ``patch`` atomically and verify; a rejected op raises PatchRejectedError."""
        return self._call(_Calls.apply(task, timeline, patch))

    def verify_batch(
        self,
        task: TaskLike,
        timeline: TimelineLike,
        patches: Iterable[PatchLike],
        *,
        include_timelines: bool = True,
        timeout: float | None = None,
    ) -> BatchResponse:
        """Apply each patch to ``timeline`` independently; one result per patch, in order.
        ``timeout``: seconds this call may take at most."""
        call = _Calls.verify_batch(task, timeline, patches, include_timelines)
        return self._call(replace(call, timeout=timeout))

    def schema(self, name: str) -> dict[str, Any]:
        """JSON Schema of ``Task``, ``Timeline``, ``Patch`` or ``Report``."""
        return self._call(_Calls.schema(name))

    def health(self) -> bool:
        """True when ``/healthz`` answers 2xx; never raises."""
        try:
            return self._call(_Calls.health())
        except RefineryClientError:
            return False


class AsyncVerifierClient(AsyncAPIClient):
    """Async verifier client; see :class:`clients.base.AsyncAPIClient` for options."""

    base_url_env = "REFINERY_VERIFIER_URL"
    default_base_url = DEFAULT_VERIFIER_URL

    async def verify(
        self, task: TaskLike, timeline: TimelineLike, *, timeout: float | None = None
    ) -> ReportOut:
        """Judge ``timeline`` against ``task``: executability, every constraint, VES.
        ``timeout``: seconds this call may take at most (e.g. what is left of a budget)."""
        return await self._call(replace(_Calls.verify(task, timeline), timeout=timeout))

    async def apply(
        self, task: TaskLike, timeline: TimelineLike, patch: PatchLike
    ) -> ApplyResponse:
        """Apply ``patch`` atomically and verify; a rejected op raises PatchRejectedError."""
        return await self._call(_Calls.apply(task, timeline, patch))

    async def verify_batch(
        self,
        task: TaskLike,
        timeline: TimelineLike,
        patches: Iterable[PatchLike],
        *,
        include_timelines: bool = True,
        timeout: float | None = None,
    ) -> BatchResponse:
        """Apply each patch to ``timeline`` independently; one result per patch, in order.
        ``timeout``: seconds this call may take at most."""
        call = _Calls.verify_batch(task, timeline, patches, include_timelines)
        return await self._call(replace(call, timeout=timeout))

    async def schema(self, name: str) -> dict[str, Any]:
        """JSON Schema of ``Task``, ``Timeline``, ``Patch`` or ``Report``."""
        return await self._call(_Calls.schema(name))

    async def health(self) -> bool:
        """True when ``/healthz`` answers 2xx; never raises."""
        try:
            return await self._call(_Calls.health())
        except RefineryClientError:
            return False
