"""Spans of time as people write them: "15s", "a minute and a half", "20 to 25 seconds".

:func:`find_spans` finds every length in a piece of text with what it bounds: an exact
length ("30 seconds"), an approximate one ("about a minute"), an upper or a lower bound
("under 2 seconds", "20 seconds tops", "at least 4 seconds") or a range ("between 45 and
60 seconds", "60-90 seconds"). Pure; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from services.planner.ingest.brief.lexicon import number

__all__ = ["TimeSpan", "find_spans"]

_NUM = (
    r"(?:\d+(?:\.\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|an?)"
)
_UNIT = r"(?:seconds?|secs?|minutes?|mins?)"
_TIME = (
    rf"(?:half\s+an?\s+(?:second|minute)"
    rf"|{_NUM}(?:\s*|-){_UNIT}\b(?:\s+and\s+a\s+half)?"
    rf"|\d+(?:\.\d+)?\s?(?:s|m)\b)"
)
_BOUND_MAX = (
    r"just\s+under|under|less\s+than|shorter\s+than|no\s+longer\s+than|not\s+longer\s+than|"
    r"no\s+more\s+than|at\s+most|max(?:imum)?(?:\s+of)?|up\s+to|within|below"
)
_BOUND_MIN = (
    r"at\s+least|over|more\s+than|longer\s+than|no\s+shorter\s+than|not\s+shorter\s+than|"
    r"no\s+less\s+than|minimum(?:\s+of)?|min"
)
_APPROX = r"about|around|roughly|approximately|approx\.?|~|something\s+like|circa|ish"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "max",
        re.compile(
            rf"\b(?:no|not|never|nothing|none)\s+(?:\w+\s+){{0,2}}?"
            rf"(?:(?:longer|more)\s+than|over|above|past)\s+(?P<t>{_TIME})",
            re.I,
        ),
    ),
    (
        "min",
        re.compile(
            rf"\b(?:no|not|never)\s+(?:\w+\s+){{0,2}}?(?:shorter|less)\s+than\s+(?P<t>{_TIME})",
            re.I,
        ),
    ),
    (
        "range",
        re.compile(rf"(?:between\s+)?(?P<a>{_NUM})\s*(?:to|-|–|—|and)\s*(?P<t>{_TIME})", re.I),
    ),
    ("max", re.compile(rf"(?:{_BOUND_MAX})\s+(?P<t>{_TIME})", re.I)),
    ("min", re.compile(rf"(?:{_BOUND_MIN})\s+(?P<t>{_TIME})", re.I)),
    ("max", re.compile(rf"(?P<t>{_TIME})\s+(?:max(?:imum)?|tops|or\s+less|at\s+most)\b", re.I)),
    ("min", re.compile(rf"(?P<t>{_TIME})\s+(?:minimum|or\s+more|at\s+least)\b", re.I)),
    ("approx", re.compile(rf"(?:{_APPROX})\s+(?P<t>{_TIME})", re.I)),
    ("exact", re.compile(rf"(?P<t>{_TIME})", re.I)),
)

_TAIL = re.compile(r"\s+(?:long|overall|in\s+total|total|in\s+length|each|apiece)\b", re.I)

Kind = Literal["exact", "approx", "max", "min", "range"]


@dataclass(frozen=True, slots=True)
class TimeSpan:
    """One length in the text: what it bounds, its value(s) in seconds, where it lies."""

    kind: Kind
    value: float
    low: float | None
    start: int
    end: int


def seconds(text: str) -> float | None:
    """``"a minute and a half"`` → 90.0; ``"15s"`` → 15.0; ``"half a second"`` → 0.5."""
    text = text.strip().lower()
    half = text.endswith("and a half")
    if half:
        text = text[: -len("and a half")].strip()
    match = re.fullmatch(r"half\s+an?\s+(second|minute)", text)
    if match:
        return 30.0 if match.group(1) == "minute" else 0.5
    match = re.fullmatch(rf"(?P<n>{_NUM})(?:\s*|-)(?P<u>{_UNIT}|s|m)", text)
    if match is None:
        return None
    value = number(match.group("n"))
    if value is None:
        return None
    value += 0.5 if half else 0.0
    unit = match.group("u")
    return value * 60 if unit.startswith("m") else value


def find_spans(text: str) -> list[TimeSpan]:
    """Every length in ``text``, left to right, each found by the most specific pattern."""
    taken: list[tuple[int, int]] = []
    found: list[TimeSpan] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            value = seconds(match.group("t"))
            if value is None:
                continue
            low = None
            if kind == "range":
                a = number(match.group("a"))
                if a is None:
                    continue
                unit = seconds("1 " + _unit_of(match.group("t")))
                low = a * (unit or 1.0)
                if low >= value:
                    continue
            tail = _TAIL.match(text, end)
            if tail is not None:
                end = tail.end()
            taken.append((start, end))
            found.append(TimeSpan(kind, value, low, start, end))  # type: ignore[arg-type]
    return sorted(found, key=lambda span: span.start)


def _unit_of(text: str) -> str:
    match = re.search(r"(minutes?|mins?|m)\b", text.lower())
    return "minute" if match else "second"
