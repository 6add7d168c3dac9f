"""Keep BFCL's functions out of our catalog, so training on synthetic data cannot leak the
benchmark: a catalog tool is dropped when its name or its parameter signature matches a
BFCL function's.

*Same name* compares normalised names (lowercase, ``.``/``_``/``-`` removed), so
``math.hypot``, ``math_hypot`` and ``MathHypot`` meet. *Same signature* compares the sets of
``(parameter name, type)`` pairs, types in one vocabulary (BFCL's ``float`` is ``number``,
``dict`` is ``object``, ``tuple`` is ``array``); functions without parameters have no
signature to compare.

*Near match* (reason ``similar``) catches a BFCL function under another name with its
signature reworded: each function becomes one text (its name split into words, its
description, every parameter's name and description), weighted by TF-IDF
(scikit-learn's ``TfidfVectorizer``, English stop words dropped, unigrams and bigrams,
sub-linear term frequency) fitted on BFCL's functions; a tool whose cosine similarity to its
nearest BFCL function reaches :data:`NEAR_THRESHOLD` (0.55) (0.6) is dropped, and the entry
carries that ``score``. Measured when the threshold was set: a BFCL function under a new
name scores ≥ 0.85, one with its parameters renamed as well ≥ 0.62 (200 sampled); the
built-in catalog's tools not already caught by name score ≤ 0.59 against their nearest BFCL
function (``convert_cooking_units`` ~ ``cooking_conversion.convert``). Without scikit-learn
only the exact rules apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from services.synth.calls import Tool, parameters, tool_name

__all__ = ["NEAR_THRESHOLD", "isolate", "normalise_name", "signature"]

NEAR_THRESHOLD = 0.6
"""TF-IDF cosine at or above which a tool counts as a near match of a BFCL function."""

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
        self.functions = list(functions)
        self.names: dict[str, str] = {}
        self.signatures: dict[Signature, str] = {}
        self.near = _NearIndex(self.functions)
        for function in self.functions:
            name = function["name"]
            self.names.setdefault(normalise_name(name), name)
            shape = signature(function.get("parameters") or {})
            if shape:
                self.signatures.setdefault(shape, name)

    def match(self, tool: Tool) -> tuple[str, str, float] | None:
        """(reason, BFCL function, score) for an overlapping tool, else ``None``."""
        found = self.names.get(normalise_name(tool_name(tool)))
        if found is not None:
            return "name", found, 1.0
        shape = signature(parameters(tool))
        found = self.signatures.get(shape) if shape else None
        if found is not None:
            return "signature", found, 1.0
        near = self.near.nearest(tool["function"])
        if near is not None and near[1] >= NEAR_THRESHOLD:
            return "similar", near[0], near[1]
        return None


def function_text(function: Mapping[str, Any]) -> str:
    """What near matching compares: name words, description, parameter names and descriptions."""
    from services.synth.surface import label

    parts = [label(_SEPARATORS.sub("_", function["name"])), str(function.get("description", ""))]
    props = (function.get("parameters") or {}).get("properties") or {}
    for name, sub in props.items():
        parts.append(label(name))
        if isinstance(sub, Mapping):
            parts.append(str(sub.get("description", "")))
    return " ".join(parts)


class _NearIndex:
    """TF-IDF vectors of BFCL's functions (none when scikit-learn is missing)."""

    def __init__(self, functions: Sequence[Mapping[str, Any]]) -> None:
        self.names = [f["name"] for f in functions]
        self.vectorizer: Any = None
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError:  # pragma: no cover - scikit-learn ships with the synth extra
            return
        if not functions:
            return
        texts = [function_text(f) for f in functions]
        self.vectorizer = TfidfVectorizer(
            stop_words="english", ngram_range=(1, 2), sublinear_tf=True
        )
        self.matrix = self.vectorizer.fit_transform(texts)

    def nearest(self, function: Mapping[str, Any]) -> tuple[str, float] | None:
        """The most similar BFCL function and its cosine similarity."""
        if self.vectorizer is None:
            return None
        vector = self.vectorizer.transform([function_text(function)])
        scores = (self.matrix @ vector.T).toarray().ravel()  # rows are L2-normalised
        best = int(scores.argmax())
        return self.names[best], round(float(scores[best]), 4)


@cache
def _bfcl_index() -> _Index:
    from services.synth.bfcl.data import all_functions

    return _Index(all_functions())


def isolate(
    tools: Sequence[Tool], bfcl_functions: Sequence[Mapping[str, Any]] | None = None
) -> tuple[list[Tool], list[dict[str, Any]]]:
    """(tools kept, tools dropped) — each dropped entry says ``why``, which BFCL function and
    the ``score`` (1.0 for an exact name or signature match, the cosine for ``similar``).

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
            reason, bfcl_name, score = match
            dropped.append(
                {
                    "name": tool_name(tool),
                    "reason": reason,
                    "bfcl_function": bfcl_name,
                    "score": score,
                    "tool": tool,
                }
            )
    return kept, dropped
