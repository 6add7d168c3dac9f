"""A language model on BFCL's single-turn questions, judged by bfcl-eval's ``ast_checker``.

Each question's user turns and its own functions (as OpenAI tools) go to a
:class:`~services.synth.model_reader.ModelReader`, which decodes a JSON list of calls under
their schema; the calls, mapped back to BFCL's dotted names, are judged by bfcl-eval against
the possible answers, which the model never sees. In the AST categories the list holds at
least one call; in the relevance ones (``irrelevance``, ``live_irrelevance``,
``live_relevance``) it may be empty, and the verdict is whether it is. Java and JavaScript
questions get every parameter as a string in the language's syntax, as bfcl-eval's own
handlers send them.

Halves are the parity of a case's position in its data file, as for the rule reader
(:data:`~services.synth.bfcl.solver_eval.HALVES`): even = tuned, odd = held out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from services.synth.bfcl.convert import from_bfcl_function, openai_name
from services.synth.bfcl.data import Case
from services.synth.bfcl.loader import judge
from services.synth.bfcl.solver_eval import half_cases
from services.synth.calls import Call, Tool
from services.synth.model_reader import ModelReader

__all__ = ["case_query", "case_tools", "evaluate_model", "half_cases", "is_correct"]

_NO_CALL_WANTED = ("irrelevance",)
_A_CALL_WANTED = ("live_relevance",)
_STRING_HINT = " Write the value as a {} literal."


def _language(case: Case) -> str | None:
    """``Java`` / ``JavaScript`` for those categories, else None (Python)."""
    if case.bfcl_category.endswith("javascript"):
        return "JavaScript"
    return "Java" if case.bfcl_category.endswith("java") else None


def case_tools(case: Case) -> list[Tool]:
    """The question's functions as OpenAI tools; in Java and JavaScript every parameter is a
    string holding a literal of that language."""
    tools = [from_bfcl_function(function) for function in case.functions]
    language = _language(case)
    if language is not None:
        for tool in tools:
            properties = tool["function"]["parameters"]["properties"]
            for spec in properties.values():
                spec.clear()
                spec.update(type="string")
            for name, original in _properties(case, tool).items():
                description = original.get("description", "")
                properties[name]["description"] = description + _STRING_HINT.format(language)
    return tools


def _properties(case: Case, tool: Tool) -> dict[str, Any]:
    name = tool["function"]["name"]
    function = next(f for f in case.functions if openai_name(f["name"]) == name)
    return (function.get("parameters") or {}).get("properties", {})


def case_query(case: Case) -> str:
    return "\n".join(m["content"] for m in case.messages if m.get("role") == "user")


def _wants_calls(case: Case) -> bool | None:
    """False: the right answer is no call; True: any call; None: the AST checker judges."""
    if case.bfcl_category in _A_CALL_WANTED:
        return True
    return False if case.bfcl_category.endswith(_NO_CALL_WANTED) else None


def is_correct(case: Case, calls: Sequence[Call]) -> bool:
    """bfcl-eval's verdict on ``calls`` (the reader's names) for ``case``."""
    wanted = _wants_calls(case)
    if wanted is not None:
        return bool(calls) == wanted
    names = {openai_name(f["name"]): f["name"] for f in case.functions}
    decoded = [{names.get(call.name, call.name): call.arguments} for call in calls]
    verdict = judge(list(case.functions), decoded, list(case.answer), case.bfcl_category)
    return bool(verdict["valid"])


def evaluate_model(
    reader: ModelReader,
    cases_by_category: dict[str, list[Case]],
    *,
    on_answered: Callable[[int], None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per category ``{accuracy, correct, total, wrong}`` (``wrong``: the ids missed) and
    ``overall``, the mean over every question asked."""
    report: dict[str, dict[str, Any]] = {}
    correct_all = total_all = 0
    for category, cases in cases_by_category.items():
        wants = {_wants_calls(case) for case in cases}
        category_reader = dataclasses.replace(reader, min_calls=0 if False in wants else 1)
        answers = category_reader.read_many(
            [(case_query(c), case_tools(c)) for c in cases], on_batch=on_answered
        )
        verdicts = [is_correct(c, a) for c, a in zip(cases, answers, strict=True)]
        correct = sum(verdicts)
        report[category] = {
            "accuracy": round(correct / len(cases), 4) if cases else 0.0,
            "correct": correct,
            "total": len(cases),
            "wrong": [c.id for c, ok in zip(cases, verdicts, strict=True) if not ok],
        }
        correct_all, total_all = correct_all + correct, total_all + len(cases)
    report["overall"] = {
        "accuracy": round(correct_all / total_all, 4) if total_all else 0.0,
        "correct": correct_all,
        "total": total_all,
    }
    return report
