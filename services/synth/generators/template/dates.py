"""How dates and times are said beyond the forms
:func:`~services.synth.surface.find_dates` reads: relative dates against a reference day
("next Friday", "in 3 days"), a month's name run into its day, timestamps, and a clock time
said right after a date."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

from services.synth.surface import find_dates

__all__ = ["relative_dates"]

_STAMP = re.compile(r"\b(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::\d{2})?(?:Z|[+-]\d{2}:\d{2})?")


_AT = re.compile(r"^,?\s*(?:at|@)\s+")


_MONTH_YEAR = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\s+\d{4}\b",
    re.I,
)
"""A month of a year ("April 2022"): the day a relative date ("next month") names."""
_MONTH_DOT = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.(?=\d)", re.I
)
"""A month's name run into its day by a period ("March.11, 2022"): a date as "March 11"."""


_RELATIVE = re.compile(
    r"\b(today|tomorrow|yesterday|the day after tomorrow|"
    r"(?:next|this|coming|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"in\s+(\d+|two|three|four|five|six|seven|ten)\s+days|next\s+week|next\s+month)\b",
    re.I,
)


_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_SMALL = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


def relative_dates(text: str, reference: date) -> list[tuple[int, int, str]]:
    """``tomorrow``, ``next Friday``, ``in 3 days`` as ``(start, end, iso)`` against
    ``reference`` ("next Friday" is the first Friday after the reference date)."""
    found = []
    for m in _RELATIVE.finditer(text):
        said = m[1].lower()
        if said == "today":
            day = reference
        elif said == "tomorrow":
            day = reference + timedelta(days=1)
        elif said == "yesterday":
            day = reference - timedelta(days=1)
        elif said == "the day after tomorrow":
            day = reference + timedelta(days=2)
        elif said == "next week":
            day = reference + timedelta(days=7)
        elif said == "next month":  # its first day
            day = (reference.replace(day=1) + timedelta(days=32)).replace(day=1)
        elif m[2]:
            ahead = (_WEEKDAYS.index(m[2].lower()) - reference.weekday() - 1) % 7 + 1
            day = reference + timedelta(days=ahead)
        else:
            count = m[3].lower()
            day = reference + timedelta(days=int(count) if count.isdigit() else _SMALL[count])
        found.append((m.start(), m.end(), day.isoformat()))
    return found


_GLUED = re.compile(
    r"\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6})(\d{1,2}),?\s+(\d{4})\b",
    re.I,
)
"""A month's name run into its day ("June01 2023")."""


def _glued_dates(text: str) -> list[tuple[int, int, str]]:
    """Dates said with the month's name run into the day ("June01 2023"), as
    ``(start, end, iso)``."""
    found = []
    for m in _GLUED.finditer(text):
        said = find_dates(f"{m[1]} {m[2]}, {m[3]}")
        if said:
            found.append((m.start(), m.end(), said[0][2]))
    return found


def _joined_time(
    text: str, end: int, times: Sequence[tuple[int, int, str]]
) -> tuple[int, str] | None:
    """A clock time said right after a date ("May 3, 2026 at 09:30 UTC"): (its end, HH:MM)."""
    at = _AT.match(text[end:])
    if not at:
        return None
    for start, stop, clock in times:
        if start == end + at.end():
            utc = re.match(r"\s*UTC\b", text[stop:])
            return stop + (utc.end() if utc else 0), clock
    return None
