"""How the realiser writes one string value: a date in one of its usual forms (or, when it
lies a few days after the example's reference date, relative to it: "tomorrow", "in 5 days",
"next Friday"), a clock time in 24- or 12-hour form, other text quoted unless it reads as a
name. Every form is one :mod:`services.synth.surface` reads back as the same value."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from services.synth.surface import DATE_STYLES, RELATIVE, relative_forms, render_date

__all__ = ["RELATIVE_SHARE", "is_relative", "written"]

RELATIVE_SHARE = 0.25
"""How often a date 1–13 days after the reference date is said relative to it."""

_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):00Z$")
_CLOCK = re.compile(r"^(\d{2}):(\d{2})$")


def is_relative(text: str) -> bool:
    """Whether ``text`` is a relative date ("tomorrow", "in 5 days"): no "on" before it."""
    return RELATIVE.fullmatch(text) is not None


def _day(iso: str, styles: tuple[str, ...], rng: random.Random, reference: date | None) -> str:
    said = render_date(iso, rng.choice(styles))
    forms = relative_forms(iso, reference) if reference else ()
    if forms and rng.random() < RELATIVE_SHARE:
        return rng.choice(forms)
    return said


def written(
    schema: Mapping[str, Any], value: str, rng: random.Random, reference: date | None = None
) -> str:
    """``value`` as a person writes it (``reference``: the day the request is written on)."""
    fmt = schema.get("format")
    if fmt == "date":
        return _day(value, DATE_STYLES[1:] + DATE_STYLES[1:2], rng, reference)
    if fmt == "date-time":
        match = _DATETIME.match(value)
        if not match:
            return value
        when = _day(match[1], DATE_STYLES[1:], rng, reference)
        return f"{when} at {match[2]}:{match[3]} UTC"
    clock = _CLOCK.match(value)
    if clock:
        hour = int(clock[1])
        if rng.random() < 0.5:
            return value
        return f"{(hour - 1) % 12 + 1}:{clock[2]} {'pm' if hour >= 12 else 'am'}"
    if fmt == "email" or "pattern" in schema:
        return value
    titled = all(w[:1].isupper() or w[:1].isdigit() for w in value.split())
    if len(value.split()) > 3 or not titled or rng.random() < 0.3:
        return f'"{value}"'
    return value
