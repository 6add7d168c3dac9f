"""How dates and times are said beyond the forms
:func:`~services.synth.surface.find_dates` reads: a month's name run into its day,
timestamps, and a clock time said right after a date. Relative dates against a reference day
("next Friday", "in 3 days") are :func:`~services.synth.surface.relative_dates`, shared with
the realiser and the query check."""

from __future__ import annotations

import re
from collections.abc import Sequence

from services.synth.surface import find_dates

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
