"""The ``llm`` generator: a chat model behind an OpenAI-compatible API (vLLM in production).

Stage 2 (:meth:`LLMGenerator.query`) shows the model the candidate functions and the calls
that must answer the request, and asks for the user's message; on refinement the previous
message and the checker's issues are appended. Stage 3 (:meth:`LLMGenerator.calls`) sends
the query with ``tools`` and reads ``tool_calls``: arguments arrive as JSON strings and are
decoded; a malformed answer means *no calls* and is counted in :attr:`LLMGenerator.stats`,
never raised. Timeouts, refused connections, 429 and 5xx are retried with exponential
backoff; an endpoint still failing then raises :class:`LLMUnavailableError`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

import httpx

from services.common.errors import RefineryError
from services.common.openai_chat import (
    ChatEndpoint,
    ChatEndpointOwner,
    EndpointRefused,
    EndpointUnavailable,
    UnknownModel,
    strip_reasoning,
    without_thinking,
)
from services.synth.calls import Call, GroundTruth, Issue, Tool

__all__ = ["LLMError", "LLMGenerator", "LLMStats", "LLMUnavailableError"]

QUERY_SYSTEM = (
    "You write realistic messages from a user to an assistant that can call functions. "
    "Given the available functions and the exact calls that must answer the message, write "
    "the one user message those calls answer: state every argument value the calls use, "
    "verbatim, ask for nothing the calls do not do, and do not name the functions. "
    "Answer with the message only."
)
IRRELEVANT_SYSTEM = (
    "You write realistic messages from a user to an assistant that can call functions. "
    "None of the available functions may serve the message: write a plausible request in a "
    "nearby domain that none of them can answer. Answer with the message only."
)
CALLS_SYSTEM = (
    "You are an assistant with function calling. Call the functions that answer the user's "
    "message, taking every argument from it; call several when it asks for several things; "
    "call none when no function fits."
)


class LLMError(RefineryError):
    """The endpoint refused a request (a 4xx other than 408/409/429)."""

    status_code = 502
    code = "llm_error"


class LLMUnavailableError(RefineryError):
    """The endpoint is down, unconfigured, or kept failing after the retries."""

    status_code = 503
    code = "llm_unavailable"


@dataclass
class LLMStats:
    """What the generator saw: requests sent, retries, answers it could not use."""

    requests: int = 0
    retries: int = 0
    malformed: int = 0
    """Stage-3 answers whose ``tool_calls`` could not be decoded (taken as no calls)."""
    empty: int = 0
    """Stage-2 answers without text."""

    def wire(self) -> dict[str, int]:
        return asdict(self)


def _issue_lines(issues: Sequence[Issue]) -> str:
    lines = []
    for issue in issues:
        where = [f"call {issue.call}" if issue.call is not None else "", issue.param or ""]
        place = ", ".join(w for w in where if w)
        lines.append(f"- {issue.code}: {issue.message}" + (f" ({place})" if place else ""))
    return "\n".join(lines)


def _fenced(value: Any) -> str:
    return "```json\n" + json.dumps(value, ensure_ascii=False, indent=1) + "\n```"


def query_messages(
    truth: GroundTruth, *, previous: str | None = None, issues: Sequence[Issue] = ()
) -> list[dict[str, str]]:
    """Stage 2's chat: the functions, the calls to answer, and any feedback to act on."""
    functions = [tool["function"] for tool in truth.tools]
    calls = [{"name": c.name, "arguments": c.arguments} for c in truth.calls]
    irrelevant = truth.category == "irrelevance" or not calls
    text = f"Available functions:\n{_fenced(functions)}\n"
    if not irrelevant:
        text += f"Calls that must answer the message:\n{_fenced(calls)}\n"
    if previous is not None:
        text += f"\nYour previous message was:\n{previous}\n"
    if issues:
        text += "A checker found these problems; write it again without them:\n"
        text += _issue_lines(issues) + "\n"
    system = IRRELEVANT_SYSTEM if irrelevant else QUERY_SYSTEM
    return [{"role": "system", "content": system}, {"role": "user", "content": text.rstrip()}]


def calls_messages(
    query: str,
    *,
    previous: Sequence[Call] | None = None,
    issues: Sequence[Issue] = (),
    reference: date | None = None,
) -> list[dict[str, str]]:
    """Stage 3's chat: the user's message, preceded by feedback on an earlier answer (and the
    day it is written on, when the example pins one)."""
    system = CALLS_SYSTEM
    if reference is not None:
        system += f"\n\nToday is {reference.isoformat()}."
    if previous is not None or issues:
        made = [{"name": c.name, "arguments": c.arguments} for c in previous or ()]
        system += f"\n\nAn earlier answer made these calls:\n{_fenced(made)}"
        if issues:
            system += f"\nA checker found these problems; correct them:\n{_issue_lines(issues)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": query}]


def _clean_query(text: str) -> str:
    """The message without wrapping quotes or a ``User:`` label a model may add."""
    text = text.strip()
    for label in ("User:", "user:", "Message:"):
        if text.startswith(label):
            text = text[len(label) :].strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


def decode_tool_calls(items: Any) -> tuple[Call, ...] | None:
    """``tool_calls`` as :class:`Call` values; None when any item is malformed."""
    if items is None:
        return ()
    if not isinstance(items, list):
        return None
    calls = []
    for item in items:
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            return None
        raw = function.get("arguments")  # type: ignore[union-attr]
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return None
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return None
        calls.append(Call(name, arguments))
    return tuple(calls)


class LLMGenerator(ChatEndpointOwner):
    """Queries and calls from a chat model; ``base_url`` includes the API prefix (``/v1``).

    ``transport`` replaces httpx's network transport (tests, proxies).
    """

    name = "llm"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        temperature: float = 0.7,
        max_tokens: int = 512,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stats = LLMStats()
        self.endpoint = ChatEndpoint(
            base_url,
            model,
            api_key=api_key,
            timeout_s=timeout_s,
            max_retries=max(0, max_retries),
            backoff_s=backoff_s,
            transport=transport,
            on_retry=self._count_retry,
        )
        self.base_url = self.endpoint.base_url

    def check(self) -> None:
        """Raise :class:`LLMUnavailableError` unless ``GET /models`` answers; a listed model
        set without ours is a 422 ``unknown_model``."""
        try:
            self.endpoint.check()
        except EndpointUnavailable as error:
            raise LLMUnavailableError(error.message, param="generator") from None
        except UnknownModel as error:
            raise LLMError(
                error.message, code="unknown_model", status_code=422, param="generator"
            ) from None

    # -- the generator contract ---------------------------------------------------------

    def query(
        self,
        truth: GroundTruth,
        *,
        previous: str | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
    ) -> str:
        """Stage 2: the user message the truth's calls answer ("" when the model gave none)."""
        body = self._body(query_messages(truth, previous=previous, issues=issues), seed)
        message = self._message(body)
        content = message.get("content") if message else None
        if not isinstance(content, str) or not content.strip():
            self.stats.empty += 1
            return ""
        return _clean_query(strip_reasoning(content))

    def calls(
        self,
        query: str,
        tools: Sequence[Tool],
        *,
        previous: Sequence[Call] | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
        reference: date | None = None,
    ) -> tuple[Call, ...]:
        """Stage 3: the calls the model makes for ``query`` with ``tools`` offered."""
        messages = calls_messages(query, previous=previous, issues=issues, reference=reference)
        body = self._body(messages, seed)
        body["tools"] = [dict(tool) for tool in tools]
        body["tool_choice"] = "auto"
        message = self._message(body)
        decoded = decode_tool_calls(message.get("tool_calls")) if message else None
        if decoded is None:
            self.stats.malformed += 1
            return ()
        return decoded

    # -- the wire -----------------------------------------------------------------------

    def _body(self, messages: list[dict[str, str]], seed: int) -> dict[str, Any]:
        """A chat request with a hybrid model's thinking off (Qwen3 on vLLM)."""
        return without_thinking(
            {
                "model": self.model,
                "messages": messages,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "seed": seed,
            }
        )

    def _message(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The first choice's message; None for a 200 without one."""
        response = self._post(body)
        try:
            message = response.json()["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            return None
        return message if isinstance(message, dict) else None

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        self.stats.requests += 1
        try:
            return self.endpoint.post(body)
        except EndpointRefused as error:
            raise LLMError(error.message, param="generator") from None
        except EndpointUnavailable as error:
            raise LLMUnavailableError(error.message, param="generator") from None

    def _count_retry(self, attempt: int) -> None:
        self.stats.retries += 1
