"""BFCL's test cases, read from the data files bfcl-eval ships (JSON lines, stdlib only).

Our category names map to BFCL's Python files (``simple`` → ``simple_python``); each
:class:`Case` joins a question row with its possible answer (none for ``irrelevance``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from services.synth.bfcl.loader import INSTALL_HINT, BfclUnavailableError

__all__ = [
    "AST_CATEGORIES",
    "BFCL_FILES",
    "Case",
    "all_functions",
    "bfcl_name",
    "data_dir",
    "load_cases",
]

BFCL_FILES: dict[str, str] = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "irrelevance": "irrelevance",
}
"""Our category → BFCL test category (``BFCL_v4_<name>.json``)."""

AST_CATEGORIES: tuple[str, ...] = ("simple", "multiple", "parallel", "parallel_multiple")
"""The categories BFCL judges with its AST checker."""

_PREFIX = "BFCL_v4_"


@dataclass(frozen=True)
class Case:
    """One BFCL test: its question turn, function docs and possible answer."""

    id: str
    category: str
    bfcl_category: str
    messages: tuple[dict[str, Any], ...]
    functions: tuple[dict[str, Any], ...]
    answer: tuple[dict[str, Any], ...]


def data_dir() -> Path:
    """The ``data`` folder inside the installed bfcl-eval package."""
    try:
        return Path(str(resources.files("bfcl_eval") / "data"))
    except ModuleNotFoundError as error:
        raise BfclUnavailableError(f"bfcl-eval is not installed: {INSTALL_HINT}") from error


def _read(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def bfcl_name(category: str) -> str:
    """BFCL's file name for one of our categories, or a BFCL category named as BFCL names it
    (``live_simple``); ValueError for one bfcl-eval does not ship."""
    name = BFCL_FILES.get(category, category)
    if not (data_dir() / f"{_PREFIX}{name}.json").is_file():
        shipped = sorted(p.name[len(_PREFIX) : -5] for p in data_dir().glob(f"{_PREFIX}*.json"))
        raise ValueError(f"unknown category {category!r}; use one of {', '.join(shipped)}")
    return name


@cache
def load_cases(category: str) -> tuple[Case, ...]:
    """All cases of one of our categories, or of any single-turn BFCL category named as BFCL
    names it, in file order (cached; treat as read-only). ValueError for an unknown or a
    multi-turn category."""
    name = bfcl_name(category)
    rows = _read(data_dir() / f"{_PREFIX}{name}.json")
    if any(len(row["question"]) != 1 for row in rows):
        raise ValueError(f"category {category!r} has multi-turn questions; only single-turn")
    answers: dict[str, list[dict[str, Any]]] = {}
    answer_file = data_dir() / "possible_answer" / f"{_PREFIX}{name}.json"
    if answer_file.exists():
        answers = {row["id"]: row["ground_truth"] for row in _read(answer_file)}
    return tuple(
        Case(
            id=row["id"],
            category=category,
            bfcl_category=name,
            messages=tuple(row["question"][0]),
            functions=tuple(row["function"]),
            answer=tuple(answers.get(row["id"], ())),
        )
        for row in rows
    )


@cache
def all_functions(categories: tuple[str, ...] = AST_CATEGORIES) -> tuple[dict[str, Any], ...]:
    """Every distinct function doc (by name) across ``categories``, first occurrence kept."""
    seen: dict[str, dict[str, Any]] = {}
    for category in categories:
        for case in load_cases(category):
            for function in case.functions:
                seen.setdefault(function["name"], function)
    return tuple(seen.values())
