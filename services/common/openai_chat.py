"""One OpenAI-compatible chat endpoint (vLLM in production): its health check and retried POSTs.

Every service that samples from a chat model talks to it the same way: the ``openai`` SDK
pointed at ``base_url`` (API prefix included, e.g. ``http://localhost:8000/v1``) over an
``httpx.Client`` whose transport a caller may replace, ``GET /models`` before work starts,
and ``POST /chat/completions`` retried with exponential backoff on timeouts, refused
connections, 408/409/429 and 5xx. Callers build the request body and read the answer; the
three ways the endpoint itself can fail arrive as the exceptions below, each with a ready
message, for the caller to map onto its own typed errors.

The SDK sends, authenticates and classifies failures (``openai.APIStatusError``,
``APITimeoutError``, ``APIConnectionError``); the retry loop stays here, with the SDK's own
retries off, because callers rely on its contract: ``on_retry`` is told of every retry and the
backoff is exactly ``backoff_s * 2**(retry - 1)`` (the SDK's is jittered and has no hook).

Models that think aloud (Qwen3) are asked not to: :func:`without_thinking` adds vLLM's
``chat_template_kwargs: {"enable_thinking": false}`` to a body, and :func:`strip_reasoning`
removes what a model may still wrap around its answer (``<think>…</think>``, code fences).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, Self

import httpx
import openai

__all__ = [
    "NO_THINKING",
    "RETRYABLE_STATUS",
    "ChatEndpoint",
    "ChatEndpointError",
    "ChatEndpointOwner",
    "EndpointRefused",
    "EndpointUnavailable",
    "UnknownModel",
    "strip_reasoning",
    "without_thinking",
]

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""Statuses worth another attempt, besides every 5xx."""

NO_THINKING: dict[str, Any] = {"chat_template_kwargs": {"enable_thinking": False}}
"""The ``extra_body`` that turns a hybrid-reasoning chat template's thinking off (Qwen3 on
vLLM); servers and templates without the switch ignore it."""

_THINK = re.compile(r"<think>.*?(?:</think>|$)\s*", re.S)
_FENCED = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```$", re.S)


def without_thinking(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with :data:`NO_THINKING` merged into its ``chat_template_kwargs``."""
    kwargs = {**body.get("chat_template_kwargs", {}), **NO_THINKING["chat_template_kwargs"]}
    return {**body, "chat_template_kwargs": kwargs}


def strip_reasoning(text: str) -> str:
    """The answer without ``<think>…</think>`` blocks (an unclosed one runs to the end) and
    without one code fence wrapping all of it: ``"<think>…</think>```json\n{…}\n```"``
    → ``"{…}"``. Text in neither form comes back stripped of surrounding blanks."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCED.match(text)
    return fenced.group(1).strip() if fenced else text


class ChatEndpointError(Exception):
    """The endpoint could not serve a request; ``message`` says why, naming the endpoint."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EndpointUnavailable(ChatEndpointError):
    """Unreachable, or still failing (transport error, 408/409/429, 5xx) after the retries.

    ``failure`` is the last attempt's failure (``"HTTP 500"``, ``"timeout (…)"``) and
    ``attempts`` how many were made.
    """

    def __init__(self, message: str, *, failure: str, attempts: int) -> None:
        super().__init__(message)
        self.failure = failure
        self.attempts = attempts


class EndpointRefused(ChatEndpointError):
    """A non-retryable answer (a 4xx other than 408/409/429): sending it again cannot help.

    ``reason`` is ``"HTTP <status>: <start of the body>"``.
    """

    def __init__(self, message: str, *, status_code: int, reason: str) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.reason = reason


class UnknownModel(ChatEndpointError):
    """``GET /models`` answered with a model list that lacks the configured model."""

    def __init__(self, message: str, *, served: tuple[str, ...]) -> None:
        super().__init__(message)
        self.served = served


class _Closeable:
    """``with`` support for anything with a ``close``."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ChatEndpoint(_Closeable):
    """A chat-completions endpoint for one ``model``; close it (or use ``with``) when done.

    ``transport`` replaces httpx's network transport (tests, proxies). ``on_retry`` is called
    with the attempt number (1 for the first retry) before each backoff sleep, for callers
    that count retries.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 30,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        transport: httpx.BaseTransport | None = None,
        on_retry: Callable[[int], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.on_retry = on_retry
        self._http = httpx.Client(timeout=timeout_s, transport=transport)
        self._client = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or "EMPTY",
            timeout=timeout_s,
            max_retries=0,
            http_client=self._http,
        )
        # no key: no Authorization header at all (vLLM without --api-key)
        self._options: Any = {} if api_key else {"headers": {"Authorization": openai.Omit()}}

    def close(self) -> None:
        self._client.close()
        self._http.close()
        self._closed = True

    def _ensure_open(self) -> None:
        if getattr(self, "_closed", False):
            raise RuntimeError(f"the client for {self.base_url} has been closed")

    def check(self) -> None:
        """Raise unless ``GET /models`` answers 200 and, when it lists models, lists ours.

        :class:`EndpointUnavailable` when down or failing, :class:`UnknownModel` when it
        serves other models; an answer without a usable model list passes.
        """
        self._ensure_open()
        try:
            response = self._client.get("/models", cast_to=httpx.Response, options=self._options)
        except openai.APIStatusError as error:
            response = error.response
        except openai.APIConnectionError as error:
            failure = describe(error)
            message = f"LLM endpoint {self.base_url} is unreachable: {failure}"
            raise EndpointUnavailable(message, failure=failure, attempts=1) from None
        if response.status_code != 200:
            code = response.status_code
            message = f"LLM endpoint {self.base_url} answered {code} to GET /models"
            raise EndpointUnavailable(message, failure=f"HTTP {code}", attempts=1)
        try:
            served = {m["id"] for m in response.json()["data"]}
        except (ValueError, KeyError, TypeError):
            return  # no usable model list: nothing more to check
        if self.model not in served:
            raise UnknownModel(
                f"LLM endpoint {self.base_url} does not serve {self.model!r} "
                f"(it serves {', '.join(sorted(served)) or 'nothing'})",
                served=tuple(sorted(served)),
            )

    def post(self, body: dict[str, Any]) -> httpx.Response:
        """``POST /chat/completions`` with ``body``; the 200 response, whatever its content.

        Retries up to ``max_retries`` times, sleeping ``backoff_s * 2**(retry - 1)`` first;
        raises :class:`EndpointRefused` on a non-retryable status and
        :class:`EndpointUnavailable` once the attempts are spent.
        """
        self._ensure_open()
        failure = ""
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            if attempt:
                if self.on_retry is not None:
                    self.on_retry(attempt)
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                response = self._client.post(
                    "/chat/completions", body=body, cast_to=httpx.Response, options=self._options
                )
            except openai.APIStatusError as error:
                response = error.response
            except openai.APIConnectionError as error:
                failure = describe(error)
                continue
            status = response.status_code
            if status in RETRYABLE_STATUS or status >= 500:
                failure = f"HTTP {status}"
                continue
            if status != 200:
                reason = f"HTTP {status}: {detail(response)}"
                message = f"LLM endpoint {self.base_url} refused the request: {reason}"
                raise EndpointRefused(message, status_code=status, reason=reason)
            return response
        raise EndpointUnavailable(
            f"LLM endpoint {self.base_url} failed: {failure} after {attempts} attempt(s)",
            failure=failure,
            attempts=attempts,
        )


class ChatEndpointOwner(_Closeable):
    """A mixin for classes built on a :class:`ChatEndpoint` they own: ``close`` and ``with``."""

    endpoint: ChatEndpoint

    def close(self) -> None:
        self.endpoint.close()


def describe(error: BaseException) -> str:
    """A transport failure in a few words: ``timeout`` or the exception's class, and its text.

    An SDK connection error is described by the transport error it wraps."""
    if isinstance(error, openai.APIConnectionError) and error.__cause__ is not None:
        cause: BaseException = error.__cause__
    else:
        cause = error
    timeout = isinstance(cause, (httpx.TimeoutException, openai.APITimeoutError))
    kind = "timeout" if timeout else type(cause).__name__
    return f"{kind} ({cause})" if str(cause) else kind


def detail(response: httpx.Response) -> str:
    """The start of an error answer's body on one line (its reason phrase when empty)."""
    text = response.text.strip().replace("\n", " ")
    return text[:200] or response.reason_phrase
