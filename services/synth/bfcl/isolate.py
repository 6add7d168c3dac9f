"""Keep BFCL's functions out of our catalog, so training on synthetic data cannot leak the
benchmark: a catalog tool is dropped when its name or its parameter signature matches a
BFCL function's.

*Same name* compares normalised names (lowercase, ``.``/``_``/``-`` removed), so
``math.hypot``, ``math_hypot`` and ``MathHypot`` meet. *Same signature* compares the sets of
``(parameter name, type)`` pairs, types in one vocabulary (BFCL's ``float`` is ``number``,
``dict`` is ``object``, ``tuple`` is ``array``); functions without parameters have no
signature to compare.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from services.synth.calls import Tool, parameters, tool_name

__all__ = ["isolate", "normalise_name", "signature"]

Signature = frozenset[tuple[str, str]]

_SEPARATORS = re.compile(r"[._\-]")
_SAME_TYPE = {
    "float": "number",
    "double": "number",
    "dict": "object",
    "tuple": "array",
    "list": "array",
    "bool": "boolean",
    "any": "string",
}


def normalise_name(name: str) -> str:
    """Lowercase, without dots, underscores or hyphens."""
    return _SEPARATORS.sub("", name.lower())


def signature(schema: Mapping[str, Any]) -> Signature:
    """The set of (parameter name, type) pairs of a parameters schema."""
    props: Mapping[str, Any] = schema.get("properties") or {}
    pairs = set()
    for name, sub in props.items():
        kind = sub.get("type", "string") if isinstance(sub, Mapping) else "string"
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        pairs.add((name, _SAME_TYPE.get(kind, kind)))
    return frozenset(pairs)


class _Index:
    """BFCL functions by normalised name and by signature."""

    def __init__(self, functions: Iterable[Mapping[str, Any]]) -> None:
        self.names: dict[str, str] = {}
        self.signatures: dict[Signature, str] = {}
        for function in functions:
            name = function["name"]
            self.names.setdefault(normalise_name(name), name)
            shape = signature(function.get("parameters") or {})
            if shape:
                self.signatures.setdefault(shape, name)

    def match(self, tool: Tool) -> tuple[str, str] | None:
        """(reason, BFCL function) for an overlapping tool, else ``None``."""
        found = self.names.get(normalise_name(tool_name(tool)))
        if found is not None:
            return "name", found
        shape = signature(parameters(tool))
        found = self.signatures.get(shape) if shape else None
        return ("signature", found) if found is not None else None


@cache
def _bfcl_index() -> _Index:
    from services.synth.bfcl.data import all_functions

    return _Index(all_functions())


def isolate(
    tools: Sequence[Tool], bfcl_functions: Sequence[Mapping[str, Any]] | None = None
) -> tuple[list[Tool], list[dict[str, Any]]]:
    """(tools kept, tools dropped) — each dropped entry says ``why`` and which BFCL function.

    ``bfcl_functions`` defaults to every function of BFCL's AST categories (simple,
    multiple, parallel, parallel_multiple), indexed once.
    """
    index = _bfcl_index() if bfcl_functions is None else _Index(bfcl_functions)
    kept: list[Tool] = []
    dropped: list[dict[str, Any]] = []
    for tool in tools:
        match = index.match(tool)
        if match is None:
            kept.append(tool)
        else:
            reason, bfcl_name = match
            dropped.append(
                {
                    "name": tool_name(tool),
                    "reason": reason,
                    "bfcl_function": bfcl_name,
                    "tool": tool,
                }
            )
    return kept, dropped
