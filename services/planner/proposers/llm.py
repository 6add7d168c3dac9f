"""The ``llm`` proposer: an OpenAI-compatible chat endpoint (vLLM in production).

One ``POST {base_url}/chat/completions`` per :meth:`LLMProposer.propose` asks for ``n``
candidates with structured output (``response_format`` json_schema = Patch.1). Bad answers
are counted and dropped, never raised (a ``<think>`` block or code fence around an answer is
removed first, and the request turns a hybrid model's thinking off); timeouts, connection
failures, 429 and 5xx are retried with exponential backoff, then recorded in ``stats.errors``
and answered with no proposals. :meth:`LLMProposer.check` is the health check a planner runs
before planning: it raises :class:`ProposerError` when the endpoint is down or does not serve
the model.
"""

from __future__ import annotations

from typing import Any

import httpx

from services.common.openai_chat import (
    ChatEndpoint,
    ChatEndpointOwner,
    EndpointRefused,
    EndpointUnavailable,
    UnknownModel,
    strip_reasoning,
    without_thinking,
)
from services.planner.proposers.base import ProposerError
from services.planner.proposers.completion import CompletionProposer
from services.planner.proposers.relations import CutFacts
from services.planner.proposers.schemas import patch_schema
from services.planner.proposers.simple_draft import DraftFn, simple_draft


class LLMProposer(CompletionProposer, ChatEndpointOwner):
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
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._schema = patch_schema()
        self.endpoint = ChatEndpoint(
            base_url,
            model,
            api_key=api_key,
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_s=backoff_s,
            transport=transport,
        )
        self.base_url = self.endpoint.base_url

    def check(self) -> None:
        """Raise :class:`ProposerError` unless ``GET /models`` answers and lists the model
        (503 when the endpoint is down or failing, 422 when it serves other models)."""
        try:
            self.endpoint.check()
        except EndpointUnavailable as error:
            raise ProposerError(error.message, param="proposer") from None
        except UnknownModel as error:
            raise ProposerError(
                error.message, code="unknown_model", status_code=422, param="proposer"
            ) from None

    # -- the proposer contract ------------------------------------------------------------

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        n: int,
        seed: int,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        facts: CutFacts | None = None,
    ) -> list[str | None]:
        """The ``n`` choices' texts (``None`` for a choice without text); ``[]`` after a
        failed request, which is recorded in ``stats.errors``. ``facts`` is not sent: a
        server's structured outputs hold the schema only."""
        self.stats.requests += 1
        body = self.request_body(messages, n=n, seed=seed, schema=schema, max_tokens=max_tokens)
        try:
            response = self.endpoint.post(body)
        except EndpointRefused as error:
            self._error(error.reason)
            return []
        except EndpointUnavailable as error:
            self._error(f"{error.failure} after {error.attempts} attempts")
            return []
        return self._choices(response)

    def request_body(
        self,
        messages: list[dict[str, str]],
        *,
        n: int,
        seed: int,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The chat request: ``n`` candidates under the server's structured outputs
        (``response_format`` json_schema: ``schema``, else the generic Patch.1), thinking off
        (Qwen3 on vLLM); ``max_tokens`` at least the schema's budget."""
        schema = schema if schema is not None else self._schema
        name = "Timeline" if "shots" in schema.get("properties", {}) else "Patch"
        return without_thinking(
            {
                "model": self.model,
                "messages": messages,
                "n": n,
                "seed": seed,
                "temperature": self.temperature,
                "max_tokens": max(self.max_tokens, max_tokens or 0),
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": False},
                },
            }
        )

    def _choices(self, response: httpx.Response) -> list[str | None]:
        try:
            choices = response.json()["choices"]
            texts = [choice["message"].get("content") for choice in choices]
        except (ValueError, KeyError, TypeError, AttributeError):
            self._error("the endpoint answered 200 without chat-completion choices")
            return []
        return [strip_reasoning(text) if isinstance(text, str) else None for text in texts]

    def _error(self, message: str) -> None:
        self.stats.errors.append(f"{self.name} {self.model}: {message}")
