"""The template generator's stage-3 reader on BFCL's own questions, judged by bfcl-eval.

Each case's user turn(s) and function docs (as OpenAI tools) go to
:func:`~services.synth.generators.template.reader.read`; its calls, mapped back to BFCL's
dotted names, are judged by bfcl-eval's ``ast_checker`` against the possible answers. The
reader never sees those answers.

Cases are split by their position in bfcl-eval's data file: the *even* positions (0, 2, …)
are the half the reader was tuned on, the *odd* positions are the held-out half that
``bfcl_solver_accuracy`` reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.synth.bfcl.convert import from_bfcl_function, openai_name
from services.synth.bfcl.data import AST_CATEGORIES, Case, load_cases
from services.synth.bfcl.loader import judge
from services.synth.generators.template.reader import read

__all__ = ["HALVES", "cases_accuracy", "half_cases", "solve_case", "solver_accuracy"]

HALVES = {"tuned": 0, "held_out": 1}
"""Position parity of each half in bfcl-eval's data files."""


def half_cases(category: str, half: str, n: int | None = None) -> list[Case]:
    """The first ``n`` cases (all when None) of one half of a category, in file order."""
    if half not in HALVES:
        raise ValueError(f"unknown half {half!r}; use one of {', '.join(HALVES)}")
    cases = [c for i, c in enumerate(load_cases(category)) if i % 2 == HALVES[half]]
    return cases[:n] if n is not None else cases


def solve_case(case: Case) -> list[dict[str, Any]]:
    """The reader's answer to one BFCL case, in BFCL's decoded-output form."""
    names = {openai_name(f["name"]): f["name"] for f in case.functions}
    query = " ".join(m["content"] for m in case.messages if m.get("role") == "user")
    calls = read(query, [from_bfcl_function(f) for f in case.functions])
    return [{names.get(c.name, c.name): c.arguments} for c in calls]


def cases_accuracy(cases: Sequence[Case]) -> dict[str, Any]:
    """``accuracy``, ``correct``, ``total`` of the reader on ``cases``."""
    correct = 0
    for case in cases:
        verdict = judge(
            list(case.functions), solve_case(case), list(case.answer), case.bfcl_category
        )
        correct += bool(verdict["valid"])
    return {
        "accuracy": round(correct / len(cases), 4) if cases else 0.0,
        "correct": correct,
        "total": len(cases),
    }


def solver_accuracy(
    half: str = "held_out", categories: Sequence[str] = AST_CATEGORIES
) -> dict[str, dict[str, Any]]:
    """Per category: ``accuracy``, ``correct``, ``total`` on one half of BFCL's cases."""
    return {category: cases_accuracy(half_cases(category, half)) for category in categories}
