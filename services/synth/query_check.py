"""Stage 2's check: does the query state what the ground truth needs, and nothing against it?

Every value the ground-truth calls use (for ``irrelevance``: the intent's values) must be
recoverable from the text in some surface form — a date as ``2026-03-14``, "March 14,
2026" or, against the truth's ``features.reference_date``, "tomorrow"; a number as digits or
a small number word; text and enum values word for word (case and punctuation aside); a flag
by its parameter's name. A query contradicts the truth
when it names a date or number no ground-truth value has, or when another value of an enum
parameter appears next to that parameter's name. Works on any generator's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import date
from functools import lru_cache
from typing import Any

from services.synth.calls import Call, GroundTruth, Issue, Verdict, parameters, tool_name
from services.synth.surface import (
    find_dates,
    find_numbers,
    find_times,
    label,
    norm,
    relative_dates,
)

__all__ = ["check_query", "reference_date", "truth_calls"]

_STAMP = re.compile(r"\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})")
_CUT = re.compile(r"[,;.?!]|\b(?:and|with)\b")
_WINDOW = 48
"""Characters after a parameter's name in which another enum value counts as said for it."""


class _Said:
    """The query's values, read once: normalised words, dates, times, numbers."""

    def __init__(self, query: str, reference: date | None = None) -> None:
        self.text, self.reference = query, reference
        self.words = f" {norm(query)} "
        stamps = _STAMP.findall(query)
        relative = relative_dates(query, reference) if reference else []
        self.dates = {d for _, _, d in find_dates(query)} | {d for d, _ in stamps}
        self.dates |= {d for _, _, d in relative}
        self.times = {t[:5] for _, _, t in find_times(query)} | {t for _, t in stamps}
        self.numbers = [
            n for s, _, n in find_numbers(query) if not any(a <= s < b for a, b, _ in relative)
        ]

    def has(self, text: str) -> bool:
        return f" {norm(text)} " in self.words


def reference_date(truth: GroundTruth) -> date | None:
    """The day the request is written on (``features.reference_date``), when the truth pins
    one: relative dates ("tomorrow", "next Friday") are counted from it."""
    said = truth.features.get("reference_date")
    try:
        return date.fromisoformat(said) if isinstance(said, str) else None
    except ValueError:
        return None


def truth_calls(truth: GroundTruth) -> tuple[tuple[Call, ...], dict[str, Mapping[str, Any]]]:
    """The calls the query must state and their parameter schemas (irrelevance: the intent)."""
    if truth.category == "irrelevance":
        intent = truth.features.get("intent")
        tool = truth.features.get("intent_tool")
        if not intent or not tool:
            return (), {}
        return (Call(intent["name"], dict(intent["arguments"])),), {
            intent["name"]: parameters(tool)
        }
    return truth.calls, {tool_name(t): parameters(t) for t in truth.tools}


def check_query(query: str, truth: GroundTruth) -> Verdict:
    """Ok when every needed value is recoverable from ``query`` and nothing contradicts them."""
    if not query.strip():
        return Verdict.of([Issue("empty_query", "the query is empty; write the request")])
    said = _Said(query, reference_date(truth))
    calls, schemas = truth_calls(truth)
    issues: list[Issue] = []
    for index, call in enumerate(calls):
        props = schemas.get(call.name, {}).get("properties", {})
        for name, value in call.arguments.items():
            schema = props.get(name, {})
            if not _recoverable(value, schema, name, said):
                text = f"call {index}: the query does not state {name} = {value!r}; state it"
                issues.append(Issue("value_not_stated", text, index, name))
    issues.extend(_contradictions(calls, schemas, said))
    return Verdict.of(issues)


def _recoverable(value: Any, schema: Mapping[str, Any], name: str, said: _Said) -> bool:
    kind = schema.get("type")
    if isinstance(value, bool):
        cues = [w for w in norm(str(schema.get("description", ""))).split() if len(w) > 3]
        return said.has(label(name).split()[-1]) or any(said.has(w) for w in cues)
    if isinstance(value, int | float):
        return any(abs(n - value) < 1e-9 for n in said.numbers)
    if isinstance(value, list):
        item = schema.get("items", {})
        return all(_recoverable(v, item, name, said) for v in value)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return all(_recoverable(v, props.get(k, {}), k, said) for k, v in value.items())
    text = str(value)
    fmt = schema.get("format")
    if fmt == "date":
        return text in said.dates
    if fmt == "date-time":
        stamp = _STAMP.match(text)
        return (
            bool(stamp) and stamp[1] in said.dates and stamp[2] in said.times
        ) or text in said.text
    if kind == "string" and re.fullmatch(r"\d{2}:\d{2}", text):
        return text in said.times
    return said.has(text)


def _values(value: Any, schema: Mapping[str, Any]) -> Iterator[tuple[Any, Mapping[str, Any]]]:
    """Every scalar inside ``value`` with its schema."""
    if isinstance(value, list):
        for item in value:
            yield from _values(item, schema.get("items", {}))
    elif isinstance(value, dict):
        props = schema.get("properties", {})
        for key, item in value.items():
            yield from _values(item, props.get(key, {}))
    else:
        yield value, schema


@lru_cache(maxsize=65536)
def _facts(text: str, reference: date | None = None) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The dates and numbers written inside one ground-truth string (values repeat a lot); a
    relative date ("Reminder: the report is due tomorrow.") as the day it names."""
    dates = [d for _, _, d in find_dates(text)] + [m[1] for m in _STAMP.finditer(text)]
    dates += [d for _, _, d in relative_dates(text, reference)] if reference else []
    return tuple(dates), tuple(n for _, _, n in find_numbers(text))


def _contradictions(
    calls: tuple[Call, ...], schemas: Mapping[str, Mapping[str, Any]], said: _Said
) -> list[Issue]:
    dates: set[str] = set()
    numbers: list[float] = []
    enums: dict[tuple[str, str], set[str]] = {}
    for call in calls:
        props = schemas.get(call.name, {}).get("properties", {})
        numbers.extend(n for name in props for n in _facts(label(name))[1])
        for name, value in call.arguments.items():
            for scalar, _ in _values(value, props.get(name, {})):
                if isinstance(scalar, str):
                    found_dates, found_numbers = _facts(scalar, said.reference)
                    dates.update(found_dates)
                    numbers.extend(found_numbers)
                elif isinstance(scalar, int | float) and not isinstance(scalar, bool):
                    numbers.append(float(scalar))
            if "enum" in props.get(name, {}):
                enums.setdefault((call.name, name), set()).add(str(value))
    issues = [
        Issue("contradiction", f"the query names the date {d}, which no call uses; drop it")
        for d in sorted(said.dates - dates)
    ]
    for n in said.numbers:
        if not any(abs(n - v) < 1e-9 for v in numbers):
            text = f"the query names the number {n:g}, which no call uses; drop it"
            issues.append(Issue("contradiction", text))
    for index, call in enumerate(calls):
        props = schemas.get(call.name, {}).get("properties", {})
        for name in call.arguments:
            used = enums.get((call.name, name))
            if used is not None:
                issues.extend(_enum_clash(index, name, props[name]["enum"], used, said))
    return issues


def _enum_clash(
    index: int, name: str, options: list[Any], used: set[str], said: _Said
) -> list[Issue]:
    words = label(name)
    found = []
    for match in re.finditer(re.escape(words), said.text, re.I):
        after = _CUT.split(said.text[match.end() : match.end() + _WINDOW], maxsplit=1)[0]
        window = f" {norm(after)} "
        for value in used:
            window = window.replace(f" {norm(value)} ", " ")
        for option in options:
            if str(option) not in used and f" {norm(str(option))} " in window:
                text = f"call {index}: the query gives {name} as {option!r}, not the truth's value"
                found.append(Issue("contradiction", text, index, name))
    return found
