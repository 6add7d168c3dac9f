"""OpenAI tools ⇄ BFCL function docs, and our examples as BFCL rows. Pure.

BFCL writes parameter types in its own ("gorilla") vocabulary: ``dict`` for an object,
``float`` for a number, ``tuple`` and ``any`` besides. OpenAI names must match
``^[a-zA-Z0-9_-]{1,64}$``, so BFCL's dotted names (``math.hypot``) travel as
``math_hypot``, the way bfcl-eval's own OpenAI handler sends them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from services.synth.bfcl.data import BFCL_FILES
from services.synth.calls import GroundTruth, Tool, parameters
from services.synth.checker import possible_answer

__all__ = [
    "PYTHON_HINT",
    "bfcl_id",
    "bfcl_row",
    "from_bfcl_function",
    "openai_name",
    "split_row",
    "to_bfcl_function",
]

PYTHON_HINT = " Note that the provided function is in Python 3 syntax."
"""What bfcl-eval appends to every Python function description before inference."""

_TO_BFCL = {"object": "dict", "number": "float"}
_FROM_BFCL = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": "string",
    "list": "array",
    "bool": "boolean",
    "double": "number",
    "long": "integer",
}
_OPENAI_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def openai_name(name: str) -> str:
    """A BFCL function name as an OpenAI tool name (dots and other symbols → ``_``)."""
    return _OPENAI_NAME.sub("_", name)[:64]


def to_bfcl_function(tool: Tool) -> dict[str, Any]:
    """An OpenAI tool as a BFCL function doc (``object`` → ``dict``, ``number`` → ``float``)."""
    function = tool["function"]
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "parameters": _convert(parameters(tool), _TO_BFCL, top=True),
    }


def from_bfcl_function(function: Mapping[str, Any], *, hint: str = "") -> Tool:
    """A BFCL function doc as an OpenAI tool, its name made OpenAI-safe.

    ``hint`` is appended to the description (bfcl-eval adds :data:`PYTHON_HINT`).
    """
    schema = _convert(function.get("parameters") or {}, _FROM_BFCL, top=True)
    schema["type"] = "object"
    return {
        "type": "function",
        "function": {
            "name": openai_name(function["name"]),
            "description": function.get("description", "") + hint,
            "parameters": schema,
        },
    }


def _convert(schema: Mapping[str, Any], names: Mapping[str, str], *, top: bool = False) -> dict:
    out = copy.deepcopy(dict(schema))
    kind = out.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is not None:
        out["type"] = names.get(kind, kind)
    if top:
        out["type"] = "dict" if names is _TO_BFCL else "object"
        out.setdefault("properties", {})
        out.setdefault("required", [])
    if isinstance(out.get("properties"), Mapping):
        out["properties"] = {k: _convert(v, names) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), Mapping):
        out["items"] = _convert(out["items"], names)
    return out


def bfcl_id(category: str, seq: int) -> str:
    """An export id in BFCL v4's form, ``<test category>_<n>`` (``simple_python_3``,
    ``parallel_multiple_0``): bfcl-eval reads the category from the id."""
    return f"{BFCL_FILES[category]}_{seq}"


def bfcl_row(example_id: str, query: str, truth: GroundTruth) -> dict[str, Any]:
    """One example as a BFCL row: the question file's fields plus ``ground_truth``.

    :func:`split_row` turns the stream into BFCL's two files (question, possible answer).
    """
    return {
        "id": example_id,
        "question": [[{"role": "user", "content": query}]],
        "function": [to_bfcl_function(tool) for tool in truth.tools],
        "ground_truth": possible_answer(truth),
    }


def split_row(row: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(question row, possible-answer row); BFCL keeps no answer file for irrelevance."""
    question = {key: value for key, value in row.items() if key != "ground_truth"}
    answer = row.get("ground_truth") or []
    return question, ({"id": row["id"], "ground_truth": answer} if answer else None)
