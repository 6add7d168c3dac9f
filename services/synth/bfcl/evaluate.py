"""Score an OpenAI-compatible endpoint on BFCL's AST categories, judged by bfcl-eval itself.

Each case goes to ``POST {base_url}/chat/completions`` (the client's ``base_url`` includes
the API prefix, ``/v1``) the way bfcl-eval's OpenAI function-calling handler sends it: the
question turn, the functions as ``tools`` (BFCL types mapped to JSON Schema, dotted names
spelled with ``_``, the Python hint appended to each description). The answer's
``tool_calls`` are mapped back to the dotted names and judged by bfcl-eval's ``ast_checker``.

A case the endpoint fails (HTTP error, timeout, a body without choices) counts as wrong and
as an error; an endpoint that cannot be reached at all raises :class:`EndpointUnavailableError`
(HTTP 503 through the app's error handler).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from services.common.errors import RefineryError, UnavailableError
from services.synth.bfcl.convert import PYTHON_HINT, from_bfcl_function, openai_name
from services.synth.bfcl.data import AST_CATEGORIES, Case, load_cases
from services.synth.bfcl.loader import judge

__all__ = ["EndpointUnavailableError", "EvaluationError", "evaluate"]


class EvaluationError(RefineryError):
    """A request the evaluation cannot run (unknown category, bad limit)."""

    status_code = 422
    code = "bad_evaluation"


class EndpointUnavailableError(UnavailableError):
    """The model endpoint cannot be reached (connection refused, DNS, connect timeout)."""

    code = "llm_unavailable"


@dataclass
class _Tally:
    total: int = 0
    correct: int = 0
    errors: int = 0
    no_calls: int = 0
    undecodable: int = 0

    def report(self) -> dict[str, Any]:
        accuracy = self.correct / self.total if self.total else 0.0
        return {**asdict(self), "accuracy": round(accuracy, 4)}


class _CaseFailed(Exception):
    """The endpoint failed this one case."""


def evaluate(
    client: httpx.Client,
    model: str,
    *,
    categories: Sequence[str] = AST_CATEGORIES,
    limit: int | None = None,
) -> dict[str, Any]:
    """Accuracy per category (and over all cases) of ``model`` behind ``client``.

    ``limit`` takes the first that many cases of each category. The report holds, per
    category, ``total``, ``correct``, ``accuracy``, ``errors`` (endpoint failures),
    ``no_calls`` (answers without tool calls) and ``undecodable`` (arguments that are not a
    JSON object); ``overall`` adds ``category_mean``, the unweighted mean BFCL summarises with.
    """
    chosen = _validate(categories, limit)
    report: dict[str, Any] = {"model": model, "categories": {}}
    overall = _Tally()
    for category in chosen:
        tally = _Tally()
        for case in load_cases(category)[:limit]:
            _score(client, model, case, tally)
        report["categories"][category] = tally.report()
        for field in ("total", "correct", "errors", "no_calls", "undecodable"):
            setattr(overall, field, getattr(overall, field) + getattr(tally, field))
    summary = overall.report()
    accuracies = [entry["accuracy"] for entry in report["categories"].values()]
    summary["category_mean"] = round(sum(accuracies) / len(accuracies), 4) if accuracies else 0.0
    report["overall"] = summary
    return report


def _validate(categories: Sequence[str], limit: int | None) -> list[str]:
    if isinstance(categories, str):
        categories = [categories]
    unknown = [c for c in categories if c not in AST_CATEGORIES]
    if unknown or not categories:
        allowed = ", ".join(AST_CATEGORIES)
        raise EvaluationError(
            f"unknown BFCL AST category {unknown[0]!r}; use {allowed}"
            if unknown
            else f"name at least one category: {allowed}",
            param="categories",
        )
    if limit is not None and limit < 1:
        raise EvaluationError(f"limit must be at least 1, got {limit}", param="limit")
    return list(dict.fromkeys(categories))


def _score(client: httpx.Client, model: str, case: Case, tally: _Tally) -> None:
    tally.total += 1
    names = {openai_name(f["name"]): f["name"] for f in case.functions}
    try:
        tool_calls = _ask(client, model, case)
    except _CaseFailed:
        tally.errors += 1
        return
    if not tool_calls:
        tally.no_calls += 1
    output = _decode(tool_calls, names)
    if output is None:
        tally.undecodable += 1
        return
    verdict = judge(list(case.functions), output, list(case.answer), case.bfcl_category)
    tally.correct += bool(verdict["valid"])


def _ask(client: httpx.Client, model: str, case: Case) -> list[Any]:
    body = {
        "model": model,
        "messages": list(case.messages),
        "tools": [from_bfcl_function(f, hint=PYTHON_HINT) for f in case.functions],
        "temperature": 0,
    }
    try:
        response = client.post("/chat/completions", json=body)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as error:
        raise EndpointUnavailableError(
            f"model endpoint {client.base_url} is unreachable: {error or type(error).__name__}",
            param="base_url",
        ) from None
    except httpx.HTTPError as error:
        raise _CaseFailed(str(error)) from None
    if response.status_code != 200:
        raise _CaseFailed(f"HTTP {response.status_code}")
    try:
        message = response.json()["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise _CaseFailed("no choices in the answer") from None
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    return calls if isinstance(calls, list) else []


def _decode(tool_calls: list[Any], names: Mapping[str, str]) -> list[dict[str, Any]] | None:
    """BFCL's decoded output (``[{name: arguments}]``), or ``None`` for malformed calls."""
    output = []
    for item in tool_calls:
        try:
            function = item["function"]
            name, arguments = function["name"], function.get("arguments") or "{}"
            if isinstance(arguments, str):
                arguments = json.loads(arguments)
        except (KeyError, TypeError, ValueError):
            return None
        if not isinstance(arguments, dict) or not isinstance(name, str):
            return None
        output.append({names.get(name, name): arguments})
    return output
