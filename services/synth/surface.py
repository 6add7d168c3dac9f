"""How argument values look in text: dates in several formats, numbers, labels. Pure.

Stage 2 writes values in these surface forms, the query check and the template solver read
them back. Keeping the forms in one place means a date written "March 14, 2026" (or, against
the example's reference date, "tomorrow") is the same value ``2026-03-14`` to every reader,
whatever wrote it.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import lru_cache

__all__ = [
    "DATE_STYLES",
    "NUMBER_WORDS",
    "RELATIVE",
    "find_dates",
    "find_numbers",
    "find_times",
    "label",
    "norm",
    "relative_dates",
    "relative_forms",
    "render_date",
]

MONTHS = (
    "January February March April May June July August September October November December"
).split()
_MONTH_INDEX = {m[:3].lower(): i + 1 for i, m in enumerate(MONTHS)}
_MON = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_ORD = r"(?:st|nd|rd|th)?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MDY = re.compile(rf"\b{_MON}\.?\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MON}\.?,?\s+(\d{{4}})\b", re.I)
_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_YMD_SLASH = re.compile(r"\b(\d{4})/(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])\b(?![/\w])")
_TIME = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?\b(?:\s*(am|pm)\b)?", re.I)
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|-[\w]*\d|\.\d)")
_DIGIT = re.compile(r"\d")
_NOT_WORD = re.compile(r"[^0-9a-z]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_WORD_NUMBER = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b(?!-)", re.I)
"""A number word on its own: fused to the next word by a hyphen it counts nothing the
reader reads ("a one-off event", "a two-day trip")."""

DATE_STYLES = ("iso", "mdy", "dmy", "slash")
"""``2026-03-14`` · ``March 14, 2026`` · ``14 March 2026`` · ``03/14/2026``."""

_ABBREVIATIONS = {
    "num": "number of",
    "qty": "quantity",
    "max": "maximum",
    "min": "minimum",
    "id": "ID",
    "amt": "amount",
    "addr": "address",
    "desc": "description",
    "dept": "department",
    "tz": "time zone",
}


def render_date(iso: str, style: str) -> str:
    """``2026-03-14`` in one of :data:`DATE_STYLES`; anything not an ISO date as is."""
    match = _ISO.fullmatch(iso)
    if not match or style == "iso":
        return iso
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    if not 1 <= month <= 12:
        return iso
    if style == "mdy":
        return f"{MONTHS[month - 1]} {day}, {year}"
    if style == "dmy":
        return f"{day} {MONTHS[month - 1]} {year}"
    return f"{month:02d}/{day:02d}/{year}"


RELATIVE = re.compile(
    r"\b(today|tomorrow|yesterday|the day after tomorrow|"
    r"(?:next|this|coming|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"in\s+(\d+|two|three|four|five|six|seven|ten)\s+days|next\s+week|next\s+month)\b",
    re.I,
)
"""A date said against a reference day: "tomorrow", "next Friday", "in 3 days"."""
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_SMALL = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


def relative_dates(text: str, reference: date) -> list[tuple[int, int, str]]:
    """``tomorrow``, ``next Friday``, ``in 3 days`` as ``(start, end, iso)`` against
    ``reference`` ("next Friday" is the first Friday after the reference date)."""
    found = []
    for m in RELATIVE.finditer(text):
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


def relative_forms(iso: str, reference: date) -> tuple[str, ...]:
    """How ``iso`` is said against ``reference`` when it lies 1–13 days after it ("tomorrow",
    "the day after tomorrow", "in 5 days", "next Friday"); each form
    :func:`relative_dates` reads back as ``iso`` exactly. None for other days."""
    try:
        day = date.fromisoformat(iso) if _ISO.fullmatch(iso) else None
    except ValueError:
        day = None
    ahead = (day - reference).days if day else 0
    if not 1 <= ahead <= 13:
        return ()
    forms = ["tomorrow"] if ahead == 1 else [f"in {ahead} days"]
    if ahead == 2:
        forms.append("the day after tomorrow")
    if ahead <= 7:
        forms.append(f"next {_WEEKDAYS[day.weekday()].title()}")
    return tuple(f for f in forms if relative_dates(f, reference) == [(0, len(f), iso)])


def _iso(year: str, month: int, day: str) -> str:
    return f"{int(year):04d}-{month:02d}-{int(day):02d}"


@lru_cache(maxsize=8192)
def find_dates(text: str) -> tuple[tuple[int, int, str], ...]:
    """Every date written in a known format, as ``(start, end, iso)``, in text order (cached:
    the query check and the solver scan the same sentences)."""
    if not _DIGIT.search(text):
        return ()
    found: list[tuple[int, int, str]] = []
    for m in _ISO.finditer(text):
        found.append((m.start(), m.end(), m.group(0)))
    for m in _MDY.finditer(text):
        found.append((m.start(), m.end(), _iso(m[3], _MONTH_INDEX[m[1][:3].lower()], m[2])))
    for m in _DMY.finditer(text):
        found.append((m.start(), m.end(), _iso(m[3], _MONTH_INDEX[m[2][:3].lower()], m[1])))
    for m in _SLASH.finditer(text):
        found.append((m.start(), m.end(), _iso(m[3], int(m[1]), m[2])))
    for m in _YMD_SLASH.finditer(text):  # "2022/08/16"
        found.append((m.start(), m.end(), _iso(m[1], int(m[2]), m[3])))
    found.sort(key=lambda f: (f[0], -f[1]))
    kept: list[tuple[int, int, str]] = []
    for span in found:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return tuple(kept)


@lru_cache(maxsize=8192)
def find_times(text: str) -> tuple[tuple[int, int, str], ...]:
    """Clock times (``09:30``, ``9:30 pm``) as ``(start, end, "HH:MM")``."""
    found: list[tuple[int, int, str]] = []
    if ":" not in text:
        return ()
    for m in _TIME.finditer(text):
        hour = int(m[1])
        if m[4] and m[4].lower() == "pm" and hour < 12:
            hour += 12
        elif m[4] and m[4].lower() == "am" and hour == 12:
            hour = 0
        clock = f"{hour:02d}:{m[2]}" + (f":{m[3]}" if m[3] else "")
        found.append((m.start(), m.end(), clock))
    return tuple(found)


@lru_cache(maxsize=8192)
def find_numbers(text: str) -> tuple[tuple[int, int, float], ...]:
    """Numbers in digits (``1,200``, ``-3.5``) or small number words, as ``(start, end, value)``.

    Digits that belong to a date or a clock time are not numbers of their own.
    """
    found: list[tuple[int, int, float]] = []
    digits = _DIGIT.search(text) is not None
    taken = [(s, e) for s, e, _ in find_dates(text)] + [(s, e) for s, e, _ in find_times(text)]
    for m in _NUMBER.finditer(text) if digits else ():
        if any(s <= m.start() < e for s, e in taken):
            continue
        found.append((m.start(), m.end(), float(m.group(0).replace(",", ""))))
    for m in _WORD_NUMBER.finditer(text):
        found.append((m.start(), m.end(), float(NUMBER_WORDS[m[1].lower()])))
    found.sort()
    return tuple(found)


@lru_cache(maxsize=4096)
def label(name: str) -> str:
    """A parameter or function name as words: ``num_guests`` → ``number of guests``."""
    words = _CAMEL.sub(" ", name).replace("_", " ").replace("-", " ").split()
    return " ".join(_ABBREVIATIONS.get(w.lower(), w.lower()) for w in words)


def norm(text: str) -> str:
    """Lower case, punctuation and spacing collapsed: how free-text values are compared."""
    return _NOT_WORD.sub(" ", text.lower()).strip()
