"""The ``llm`` proposer: an OpenAI-compatible chat endpoint (vLLM in production).

One ``POST {base_url}/chat/completions`` per :meth:`LLMProposer.propose` asks for ``n``
candidates with structured output (``response_format`` json_schema = Patch.1). Bad answers
are counted and dropped, never raised; timeouts, connection failures, 429 and 5xx are
retried with exponential backoff, then recorded in ``stats.errors`` and answered with no
proposals. :meth:`LLMProposer.check` is the health check a planner runs before planning: it
raises :class:`ProposerError` when the endpoint is down or does not serve the model.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from services.planner.proposers.base import ProposerError
from services.planner.proposers.completion import CompletionProposer
from services.planner.proposers.prompting import patch_schema
from services.planner.proposers.simple_draft import DraftFn, simple_draft

_RETRYABLE_STATUS = frozenset({408, 409, 429})  # and every 5xx


class LLMProposer(CompletionProposer):
    """Patches sampled from a chat model behind an OpenAI-compatible API.

    ``base_url`` includes the API prefix, e.g. ``http://localhost:8000/v1``. ``transport``
    replaces httpx's network transport (tests, proxies). ``draft`` defaults to
    :func:`~services.planner.proposers.simple_draft.simple_draft`.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 30,
        max_retries: int = 2,
        temperature: float = 0.8,
        max_tokens: int = 512,
        backoff_s: float = 0.5,
        transport: httpx.BaseTransport | None = None,
        draft: DraftFn = simple_draft,
        name: str = "llm",
    ) -> None:
        super().__init__(name, draft=draft)
        self.note = model
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._schema = patch_schema()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url, timeout=timeout_s, headers=headers, transport=transport
        )

    # -- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> LLMProposer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self) -> None:
        """Raise :class:`ProposerError` unless ``GET /models`` answers and lists the model
        (503 when the endpoint is down or failing, 422 when it serves other models)."""
        try:
            response = self._client.get("/models")
        except httpx.HTTPError as error:
            raise ProposerError(
                f"LLM endpoint {self.base_url} is unreachable: {_describe(error)}",
                param="proposer",
            ) from None
        if response.status_code != 200:
            raise ProposerError(
                f"LLM endpoint {self.base_url} answered {response.status_code} to GET /models",
                param="proposer",
            )
        try:
            served = {m["id"] for m in response.json()["data"]}
        except (ValueError, KeyError, TypeError):
            return  # an endpoint without a usable model list: nothing more to check
        if self.model not in served:
            raise ProposerError(
                f"LLM endpoint {self.base_url} does not serve {self.model!r} "
                f"(it serves {', '.join(sorted(served)) or 'nothing'})",
                code="unknown_model",
                status_code=422,
                param="proposer",
            )

    # -- the proposer contract ------------------------------------------------------------

    def complete(self, messages: list[dict[str, str]], *, n: int, seed: int) -> list[str | None]:
        """The ``n`` choices' texts (``None`` for a choice without text); ``[]`` after a
        failed request, which is recorded in ``stats.errors``."""
        self.stats.requests += 1
        body = self.request_body(messages, n=n, seed=seed)
        failure = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                response = self._client.post("/chat/completions", json=body)
            except httpx.HTTPError as error:
                failure = _describe(error)
                continue
            if response.status_code in _RETRYABLE_STATUS or response.status_code >= 500:
                failure = f"HTTP {response.status_code}"
                continue
            if response.status_code != 200:
                self._error(f"HTTP {response.status_code}: {_detail(response)}")
                return []
            return self._choices(response)
        self._error(f"{failure} after {self.max_retries + 1} attempts")
        return []

    def request_body(self, messages: list[dict[str, str]], *, n: int, seed: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": messages,
            "n": n,
            "seed": seed,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "Patch", "schema": self._schema, "strict": False},
            },
        }

    def _choices(self, response: httpx.Response) -> list[str | None]:
        try:
            choices = response.json()["choices"]
            texts = [choice["message"].get("content") for choice in choices]
        except (ValueError, KeyError, TypeError, AttributeError):
            self._error("the endpoint answered 200 without chat-completion choices")
            return []
        return [text if isinstance(text, str) else None for text in texts]

    def _error(self, message: str) -> None:
        self.stats.errors.append(f"{self.name} {self.model}: {message}")


def _describe(error: httpx.HTTPError) -> str:
    kind = "timeout" if isinstance(error, httpx.TimeoutException) else type(error).__name__
    return f"{kind} ({error})" if str(error) else kind


def _detail(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    return text[:200] or response.reason_phrase
