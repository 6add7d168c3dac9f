"""Typed clients for the synth service (catalogs, synth jobs, exports, records, BFCL).

::

    from clients.synth import SynthClient

    with SynthClient() as synth:                     # REFINERY_SYNTH_URL or :8103
        job = synth.synthesize(n=200, seed=1, mix={"simple": 0.5, "parallel": 0.5})
        job = synth.wait(job.job_id)
        with open("data.jsonl", "wb") as out:
            synth.stream_export(job.job_id, out, format="trl")
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Literal
from urllib.parse import quote, urlencode

import httpx

from clients.base import (
    AsyncAPIClient,
    Call,
    SyncAPIClient,
    healthy,
    parse_model,
    poll_job,
)
from clients.errors import RefineryClientError
from clients.planner import RecordsPage, _records
from protocol.synth import (
    CatalogOut,
    CatalogSummary,
    EvaluateResponse,
    ExamplesPage,
    SynthJobOut,
)

__all__ = ["DEFAULT_SYNTH_URL", "AsyncSynthClient", "RecordsPage", "SynthClient"]

DEFAULT_SYNTH_URL = "http://127.0.0.1:8103"
EVALUATE_TIMEOUT = httpx.Timeout(900.0, connect=5.0)
Format = Literal["trl", "bfcl"]


def _summaries(response: httpx.Response) -> list[CatalogSummary]:
    return [CatalogSummary.model_validate(item) for item in response.json()]


def _bytes(response: httpx.Response) -> bytes:
    return response.content


def _job_path(job_id: str, tail: str = "") -> str:
    return f"/v1/jobs/{quote(job_id, safe='')}{tail}"


class _Calls:
    @staticmethod
    def catalogs() -> Call[list[CatalogSummary]]:
        return Call("GET", "/v1/catalogs", _summaries)

    @staticmethod
    def catalog(name: str) -> Call[CatalogOut]:
        return Call("GET", f"/v1/catalogs/{quote(name, safe='')}", parse_model(CatalogOut))

    @staticmethod
    def create_catalog(name: str, tools: Sequence[Mapping[str, Any]]) -> Call[CatalogOut]:
        body = {"name": name, "tools": [dict(t) for t in tools]}
        return Call("POST", "/v1/catalogs", parse_model(CatalogOut), body)

    @staticmethod
    def synthesize(body: dict[str, Any], key: str) -> Call[SynthJobOut]:
        headers = {"Idempotency-Key": key}  # makes resending after a failure safe
        return Call("POST", "/v1/synthesize", parse_model(SynthJobOut), body, headers=headers)

    @staticmethod
    def job(job_id: str) -> Call[SynthJobOut]:
        return Call("GET", _job_path(job_id), parse_model(SynthJobOut))

    @staticmethod
    def cancel(job_id: str) -> Call[SynthJobOut]:
        return Call("DELETE", _job_path(job_id), parse_model(SynthJobOut))

    @staticmethod
    def retry(job_id: str) -> Call[SynthJobOut]:
        return Call("POST", _job_path(job_id, ":retry"), parse_model(SynthJobOut))

    @staticmethod
    def examples(job_id: str, after: int, limit: int) -> Call[ExamplesPage]:
        query = urlencode({"after": after, "limit": limit})
        return Call("GET", _job_path(job_id, f"/examples?{query}"), parse_model(ExamplesPage))

    @staticmethod
    def export(job_id: str, fmt: Format) -> Call[bytes]:
        return Call("GET", _job_path(job_id, f"/export?format={fmt}"), _bytes)

    @staticmethod
    def records(after: int, limit: int) -> Call[RecordsPage]:
        return Call("GET", f"/v1/records?after={after}&limit={limit}", _records)

    @staticmethod
    def evaluate(body: dict[str, Any]) -> Call[EvaluateResponse]:
        return Call("POST", "/v1/evaluate", parse_model(EvaluateResponse), body, retry=False)

    @staticmethod
    def health() -> Call[bool]:
        return Call("GET", "/healthz", healthy, retry=False)


def _synth_body(catalog: str | Sequence[Mapping[str, Any]], options: dict[str, Any]) -> dict:
    wire_catalog = catalog if isinstance(catalog, str) else [dict(t) for t in catalog]
    body = {"catalog": wire_catalog, **options}
    return {k: v for k, v in body.items() if v is not None}


def _evaluate_body(categories: Sequence[str], limit: int, **given: Any) -> dict[str, Any]:
    body = {"categories": list(categories), "limit": limit, **given}
    return {k: v for k, v in body.items() if v is not None}


class SynthClient(SyncAPIClient):
    """Blocking synth client; see :class:`clients.base.SyncAPIClient` for options."""

    base_url_env = "REFINERY_SYNTH_URL"
    default_base_url = DEFAULT_SYNTH_URL

    def catalogs(self) -> list[CatalogSummary]:
        return self._call(_Calls.catalogs())

    def catalog(self, name: str) -> CatalogOut:
        return self._call(_Calls.catalog(name))

    def create_catalog(self, name: str, tools: Sequence[Mapping[str, Any]]) -> CatalogOut:
        return self._call(_Calls.create_catalog(name, tools))

    def synthesize(
        self,
        catalog: str | Sequence[Mapping[str, Any]] = "builtin",
        *,
        idempotency_key: str | None = None,
        **options: Any,
    ) -> SynthJobOut:
        """Queue a job; ``options``: n, mix, generator, reader, rank_queries, seed,
        max_refine_rounds, isolate, feedback (None leaves an option to the service). A fresh
        ``Idempotency-Key`` is sent when none is given."""
        key = idempotency_key or uuid.uuid4().hex
        return self._call(_Calls.synthesize(_synth_body(catalog, options), key))

    def job(self, job_id: str) -> SynthJobOut:
        return self._call(_Calls.job(job_id))

    def cancel(self, job_id: str) -> SynthJobOut:
        return self._call(_Calls.cancel(job_id))

    def retry(self, job_id: str) -> SynthJobOut:
        """Queue a failed job again; it resumes from its last committed item (409 if not failed)."""
        return self._call(_Calls.retry(job_id))

    def wait(
        self,
        job_id: str,
        *,
        poll_s: float = 0.5,
        timeout_s: float | None = None,
        on_progress: Callable[[SynthJobOut], None] | None = None,
    ) -> SynthJobOut:
        """Poll until the job finishes (any status); ``on_progress`` sees every poll."""
        return poll_job(
            lambda: self.job(job_id),
            job_id,
            poll_s=poll_s,
            timeout=timeout_s,
            on_progress=on_progress,
        )

    def examples(self, job_id: str, *, after: int = 0, limit: int = 100) -> ExamplesPage:
        return self._call(_Calls.examples(job_id, after, limit))

    def export(self, job_id: str, *, format: Format = "trl") -> bytes:
        """The whole export in memory; prefer :meth:`stream_export` for large jobs."""
        return self._call(_Calls.export(job_id, format))

    def stream_export(self, job_id: str, out: IO[bytes], *, format: Format = "trl") -> int:
        """Stream the JSONL export into ``out``; returns the bytes written."""
        written = 0
        with self._stream(_Calls.export(job_id, format)) as response:
            for chunk in response.iter_bytes():
                out.write(chunk)
                written += len(chunk)
        return written

    def records(self, *, after: int = 0, limit: int = 1000) -> RecordsPage:
        return self._call(_Calls.records(after, limit))

    def evaluate(
        self,
        *,
        categories: Sequence[str] = ("simple",),
        limit: int = 50,
        base_url: str | None = None,
        model: str | None = None,
    ) -> EvaluateResponse:
        body = _evaluate_body(categories, limit, base_url=base_url, model=model)
        return self._call(_Calls.evaluate(body))

    def health(self) -> bool:
        try:
            return self._call(_Calls.health())
        except RefineryClientError:
            return False


class AsyncSynthClient(AsyncAPIClient):
    """Async synth client; see :class:`clients.base.AsyncAPIClient` for options."""

    base_url_env = "REFINERY_SYNTH_URL"
    default_base_url = DEFAULT_SYNTH_URL

    async def catalogs(self) -> list[CatalogSummary]:
        return await self._call(_Calls.catalogs())

    async def catalog(self, name: str) -> CatalogOut:
        return await self._call(_Calls.catalog(name))

    async def create_catalog(self, name: str, tools: Sequence[Mapping[str, Any]]) -> CatalogOut:
        return await self._call(_Calls.create_catalog(name, tools))

    async def synthesize(
        self,
        catalog: str | Sequence[Mapping[str, Any]] = "builtin",
        *,
        idempotency_key: str | None = None,
        **options: Any,
    ) -> SynthJobOut:
        key = idempotency_key or uuid.uuid4().hex
        return await self._call(_Calls.synthesize(_synth_body(catalog, options), key))

    async def job(self, job_id: str) -> SynthJobOut:
        return await self._call(_Calls.job(job_id))

    async def cancel(self, job_id: str) -> SynthJobOut:
        return await self._call(_Calls.cancel(job_id))

    async def retry(self, job_id: str) -> SynthJobOut:
        """Queue a failed job again; it resumes from its last committed item (409 if not failed)."""
        return await self._call(_Calls.retry(job_id))

    async def examples(self, job_id: str, *, after: int = 0, limit: int = 100) -> ExamplesPage:
        return await self._call(_Calls.examples(job_id, after, limit))

    async def export(self, job_id: str, *, format: Format = "trl") -> bytes:
        return await self._call(_Calls.export(job_id, format))

    async def stream_export(self, job_id: str, out: IO[bytes], *, format: Format = "trl") -> int:
        """Stream the JSONL export into ``out``; returns the bytes written."""
        written = 0
        async with self._stream(_Calls.export(job_id, format)) as response:
            async for chunk in response.aiter_bytes():
                out.write(chunk)
                written += len(chunk)
        return written

    async def records(self, *, after: int = 0, limit: int = 1000) -> RecordsPage:
        return await self._call(_Calls.records(after, limit))

    async def evaluate(
        self,
        *,
        categories: Sequence[str] = ("simple",),
        limit: int = 50,
        base_url: str | None = None,
        model: str | None = None,
    ) -> EvaluateResponse:
        body = _evaluate_body(categories, limit, base_url=base_url, model=model)
        return await self._call(_Calls.evaluate(body))

    async def health(self) -> bool:
        try:
            return await self._call(_Calls.health())
        except RefineryClientError:
            return False
