"""Sync and async plumbing every Refinery client shares.

A service client describes each endpoint once as a :class:`Call` (method, path, JSON body,
how to parse the answer); :class:`SyncAPIClient` and :class:`AsyncAPIClient` only differ
in how they send it. Both retry connect failures and 503s with a small backoff, and turn
error envelopes into :mod:`clients.errors`.
"""

from __future__ import annotations

import os
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterator,
    Mapping,
)
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

import anyio
import httpx
import orjson
import pydantic

from clients.errors import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    RefineryClientError,
    error_from_response,
)
from protocol.jobs import FINISHED

__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "AsyncAPIClient",
    "Call",
    "SyncAPIClient",
    "poll_job",
    "poll_job_async",
]

T = TypeVar("T")
M = TypeVar("M", bound=pydantic.BaseModel)

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)
DEFAULT_MAX_RETRIES = 2
RETRY_BASE_DELAY = 0.25
"""Seconds before the first retry; doubled each attempt, capped at :data:`RETRY_MAX_DELAY`."""
RETRY_MAX_DELAY = 4.0
USER_AGENT = "refinery-client/0.1.0"
NDJSON = "application/x-ndjson"

_RETRYABLE_TRANSPORT = (httpx.ConnectError, httpx.ConnectTimeout)
"""Failures where the request surely never reached the server, so resending is safe."""


def wire(value: pydantic.BaseModel | Mapping[str, Any]) -> Any:
    """JSON-ready form of a wire model (aliases such as ``schema``) or a mapping."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return dict(value)


def parse_model(cls: type[M]) -> Callable[[httpx.Response], M]:
    """A :class:`Call` parser that validates a 2xx body as ``cls``."""

    def parse(response: httpx.Response) -> M:
        return cls.model_validate_json(response.content)

    return parse


def healthy(response: httpx.Response) -> bool:
    """The parser of ``/healthz``: any 2xx means healthy."""
    return True


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request, described without sending it; ``parse`` turns a 2xx into ``T``."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    json: Any = None
    retry: bool = True
    headers: Mapping[str, str] | None = None
    """Extra headers of this request only (e.g. ``Idempotency-Key``)."""
    timeout: float | None = None
    """Seconds this request may take at most (each phase), within the client's own timeout:
    a caller with a deadline passes what is left of it."""


_Phases = tuple[float | None, float | None, float | None, float | None]


def _phases(timeout: httpx.Timeout) -> _Phases:
    """``timeout`` as (connect, read, write, pool): the form every httpx-compatible client
    takes, including those that do not accept an ``httpx.Timeout`` (Starlette's
    ``TestClient`` is built on ``httpx2`` when that is installed)."""
    return (timeout.connect, timeout.read, timeout.write, timeout.pool)


class _BaseClient:
    """Configuration and the pure halves of a request: build, decide to retry, parse."""

    base_url_env: ClassVar[str | None] = None
    default_base_url: ClassVar[str] = "http://127.0.0.1:8000"

    def __init__(
        self,
        base_url: str | None,
        *,
        api_key: str | None,
        timeout: float | httpx.Timeout | None,
        max_retries: int,
        headers: Mapping[str, str] | None,
    ) -> None:
        env_url = os.environ.get(self.base_url_env) if self.base_url_env else None
        self.base_url = (base_url or env_url or self.default_base_url).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("REFINERY_API_KEY")
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.headers: dict[str, str] = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if self.api_key:
            self.headers["Authorization"] = f"Bearer {self.api_key}"
        self.headers.update(headers or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def _build_request(
        self, client: httpx.Client | httpx.AsyncClient, call: Call[Any]
    ) -> httpx.Request:
        return client.build_request(
            call.method,
            self.base_url + call.path,
            json=call.json,
            headers={**self.headers, **call.headers} if call.headers else self.headers,
            timeout=_phases(self._timeout_for(call)),
        )

    def _timeout_for(self, call: Call[Any]) -> httpx.Timeout:
        """The client's timeout, each phase capped by ``call.timeout`` when it has one."""
        base = httpx.Timeout(self.timeout) if self.timeout is not None else httpx.Timeout(None)
        if call.timeout is None:
            return base
        limit = max(call.timeout, 0.001)

        def cap(value: float | None) -> float:
            return limit if value is None else min(value, limit)

        return httpx.Timeout(
            connect=cap(base.connect),
            read=cap(base.read),
            write=cap(base.write),
            pool=cap(base.pool),
        )

    def _attempts(self, call: Call[Any]) -> int:
        return self.max_retries + 1 if call.retry else 1

    @staticmethod
    def _retry_delay(attempt: int, response: httpx.Response | None = None) -> float:
        """Backoff before retry ``attempt + 1``; a numeric ``Retry-After`` wins (capped)."""
        if response is not None:
            try:
                return min(max(float(response.headers["retry-after"]), 0.0), RETRY_MAX_DELAY)
            except (KeyError, ValueError):
                pass
        return min(RETRY_BASE_DELAY * 2**attempt, RETRY_MAX_DELAY)

    @staticmethod
    def _transport_error(request: httpx.Request, exc: httpx.TransportError) -> APIConnectionError:
        if isinstance(exc, httpx.TimeoutException):
            return APITimeoutError(request)
        return APIConnectionError(request, f"could not reach {request.url}: {exc}")

    @staticmethod
    def _finish(call: Call[T], response: httpx.Response) -> T:
        """Raise the mapped error for a 4xx/5xx; otherwise parse the body."""
        if response.is_error:
            raise error_from_response(response)
        try:
            return call.parse(response)
        except (pydantic.ValidationError, ValueError) as exc:
            raise APIResponseValidationError(
                response, f"unexpected response from {call.method} {call.path}: {exc}"
            ) from exc


class SyncAPIClient(_BaseClient):
    """Blocking client; pass ``transport`` (tests) or a ready ``http_client`` (not closed)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        if transport is not None and http_client is not None:
            raise ValueError("pass transport or http_client, not both")
        super().__init__(
            base_url, api_key=api_key, timeout=timeout, max_retries=max_retries, headers=headers
        )
        self._owns_client = http_client is None
        self._client = http_client or httpx.Client(transport=transport)

    def _call(self, call: Call[T]) -> T:
        request = self._build_request(self._client, call)
        attempts = self._attempts(call)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = self._client.send(request)
            except httpx.TransportError as exc:
                if last or not isinstance(exc, _RETRYABLE_TRANSPORT):
                    raise self._transport_error(request, exc) from exc
                time.sleep(self._retry_delay(attempt))
                continue
            if response.status_code == 503 and not last:
                response.close()
                time.sleep(self._retry_delay(attempt, response))
                continue
            return self._finish(call, response)
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def _stream(self, call: Call[Any], *, accept: str | None = None) -> Iterator[httpx.Response]:
        """The answer to ``call`` opened as a stream (no retries: it may have side effects):
        an error status raises as :meth:`_call` would, and so does a transport failure while
        the body is read; the response is closed on the way out."""
        request = self._build_request(self._client, call)
        if accept is not None:
            request.headers["Accept"] = accept
        try:
            response = self._client.send(request, stream=True)
        except httpx.TransportError as exc:
            raise self._transport_error(request, exc) from exc
        try:
            if response.is_error:
                response.read()
                raise error_from_response(response)
            yield response
        except httpx.TransportError as exc:
            raise self._transport_error(request, exc) from exc
        finally:
            response.close()

    def _lines(self, call: Call[Any]) -> Generator[Any, None, None]:
        """Each JSON line of an NDJSON answer as it arrives; see :meth:`_stream`."""
        with self._stream(call, accept=NDJSON) as response:
            for line in response.iter_lines():
                if line.strip():
                    yield orjson.loads(line)

    def close(self) -> None:
        """Close the connection pool (not an ``http_client`` that was passed in)."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncAPIClient(_BaseClient):
    """Asyncio/trio client; pass ``transport`` (e.g. ``httpx.ASGITransport(app)``)."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        if transport is not None and http_client is not None:
            raise ValueError("pass transport or http_client, not both")
        super().__init__(
            base_url, api_key=api_key, timeout=timeout, max_retries=max_retries, headers=headers
        )
        self._owns_client = http_client is None
        self._client = http_client or httpx.AsyncClient(transport=transport)

    async def _call(self, call: Call[T]) -> T:
        request = self._build_request(self._client, call)
        attempts = self._attempts(call)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = await self._client.send(request)
            except httpx.TransportError as exc:
                if last or not isinstance(exc, _RETRYABLE_TRANSPORT):
                    raise self._transport_error(request, exc) from exc
                await anyio.sleep(self._retry_delay(attempt))
                continue
            if response.status_code == 503 and not last:
                await response.aclose()
                await anyio.sleep(self._retry_delay(attempt, response))
                continue
            return self._finish(call, response)
        raise AssertionError("unreachable")  # pragma: no cover

    @asynccontextmanager
    async def _stream(
        self, call: Call[Any], *, accept: str | None = None
    ) -> AsyncIterator[httpx.Response]:
        """See ``SyncAPIClient._stream``."""
        request = self._build_request(self._client, call)
        if accept is not None:
            request.headers["Accept"] = accept
        try:
            response = await self._client.send(request, stream=True)
        except httpx.TransportError as exc:
            raise self._transport_error(request, exc) from exc
        try:
            if response.is_error:
                await response.aread()
                raise error_from_response(response)
            yield response
        except httpx.TransportError as exc:
            raise self._transport_error(request, exc) from exc
        finally:
            await response.aclose()

    async def _lines(self, call: Call[Any]) -> AsyncGenerator[Any, None]:
        """Each JSON line of an NDJSON answer as it arrives; see ``SyncAPIClient._stream``."""
        async with self._stream(call, accept=NDJSON) as response:
            async for line in response.aiter_lines():
                if line.strip():
                    yield orjson.loads(line)

    async def close(self) -> None:
        """Close the connection pool (not an ``http_client`` that was passed in)."""
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


class _HasStatus(Protocol):
    status: str


J = TypeVar("J", bound=_HasStatus)


def _overdue(job: _HasStatus, job_id: str, deadline: float | None, timeout: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise RefineryClientError(f"job {job_id} still {job.status} after {timeout} s")


def poll_job(
    fetch: Callable[[], J],
    job_id: str,
    *,
    poll_s: float,
    timeout: float | None,
    on_progress: Callable[[J], None] | None = None,
) -> J:
    """Call ``fetch`` every ``poll_s`` until the job it returns has finished (any status);
    ``on_progress`` sees every poll; a :class:`RefineryClientError` after ``timeout`` s."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        job = fetch()
        if on_progress is not None:
            on_progress(job)
        if job.status in FINISHED:
            return job
        _overdue(job, job_id, deadline, timeout)
        time.sleep(poll_s)


async def poll_job_async(
    fetch: Callable[[], Awaitable[J]], job_id: str, *, poll_s: float, timeout: float | None
) -> J:
    """:func:`poll_job` for async clients."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        job = await fetch()
        if job.status in FINISHED:
            return job
        _overdue(job, job_id, deadline, timeout)
        await anyio.sleep(poll_s)
