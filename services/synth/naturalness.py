"""How much a synthetic query reads like a person wrote it: label leaks and variety. Pure.

- A query *leaks a label* when it contains the name of a parameter its ground-truth calls
  set, raw (``check_in``) or split at ``_`` (``check in``), as whole words, case aside,
  outside the text of the values themselves (a city "Mexico City" does not leak ``city``).
  People say "arriving on March 14", not "the check in March 14".
- ``distinct_2``: distinct word bigrams over all word bigrams of a set of queries.
- ``mean_query_words``: words per query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from typing import Any

from services.synth.calls import GroundTruth
from services.synth.query_check import truth_calls

__all__ = ["distinct_2", "leaked_labels", "leaks_label", "mean_words"]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def _scalars(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from _scalars(item)
    elif isinstance(value, str):
        yield value


def leaked_labels(query: str, truth: GroundTruth) -> list[str]:
    """The parameter names (set by the truth's calls) that ``query`` says outright."""
    calls, _ = truth_calls(truth)
    text = query.lower()
    for call in calls:
        for value in _scalars(call.arguments):
            if value:
                text = text.replace(value.lower(), " ")
    found = []
    for call in calls:
        for name in call.arguments:
            forms = {name.lower(), name.lower().replace("_", " ")}
            if any(re.search(rf"(?<![\w]){re.escape(f)}(?![\w])", text) for f in forms):
                found.append(name)
    return sorted(set(found))


def leaks_label(query: str, truth: GroundTruth) -> bool:
    return bool(leaked_labels(query, truth))


def _bigrams(query: str) -> list[tuple[str, str]]:
    words = _WORD.findall(query.lower())
    return list(pairwise(words))


def distinct_2(queries: Iterable[str]) -> float:
    """Distinct word bigrams / all word bigrams (0 when there are none)."""
    seen: set[tuple[str, str]] = set()
    total = 0
    for query in queries:
        pairs = _bigrams(query)
        total += len(pairs)
        seen.update(pairs)
    return len(seen) / total if total else 0.0


def mean_words(queries: Sequence[str]) -> float:
    return sum(len(_WORD.findall(q.lower())) for q in queries) / len(queries) if queries else 0.0
