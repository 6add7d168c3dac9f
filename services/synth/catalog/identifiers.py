"""Identifiers a parameter's name or description names, drawn from Faker's providers.

"ISBN-13 of the book" wants a 13-digit ISBN with a valid check digit, not a book title;
"ISO 3166-1 alpha-2 country code" wants ``DE``, not ``Germany``. :func:`identifier` finds
the identifier a parameter asks for (the most specific rule first), and :func:`draw` makes
one from the caller's seeded ``random.Random``, so a job replays the same values.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable
from functools import lru_cache

from faker import Faker

__all__ = ["IDENTIFIERS", "draw", "identifier"]

_RULES: tuple[tuple[str, str], ...] = (
    (r"\bisbn[- ]?10\b", "isbn10"),
    (r"\bisbn\b", "isbn13"),
    (r"\biban\b", "iban"),
    (r"\b(?:bic|swift)\b", "bic"),
    (r"\b(?:uuid|guid)\b", "uuid"),
    (r"\b(?:ean|gtin)[- ]?13\b|\bbarcode\b", "ean13"),
    (r"\b(?:credit|debit|payment) card number\b|\bcard_number\b|\bpan\b", "card_number"),
    (
        r"\biso[- ]?3166(?:-1)?[- ]?alpha[- ]?3\b|\b(?:alpha[- ]?3|three[- ]letter) country",
        "alpha3",
    ),
    (r"\biso[- ]?3166\b|\b(?:alpha[- ]?2|two[- ]letter) country|\bcountry[ _]code\b", "alpha2"),
    (r"\biso[- ]?639\b|\blanguage[ _]code\b", "language_code"),
    (r"\biso[- ]?4217\b|\bcurrency[ _]code\b", "currency"),
    (r"\bcoordinates?\b|\blat(?:itude)?\s*,\s*lo?ng?(?:itude)?\b", "coordinates"),
)
_COMPILED = tuple((re.compile(pattern, re.I), label) for pattern, label in _RULES)

_LOCAL = threading.local()


def _faker(rng: random.Random) -> Faker:
    """This thread's Faker, drawing from ``rng`` (one instance per thread: setting its
    random source is not safe to share)."""
    fake = getattr(_LOCAL, "faker", None)
    if fake is None:
        fake = _LOCAL.faker = Faker("en_US")
    fake.random = rng
    return fake


def _coordinates(fake: Faker) -> str:
    return f"{float(fake.latitude()):.4f},{float(fake.longitude()):.4f}"


IDENTIFIERS: dict[str, Callable[[Faker], str]] = {
    "isbn13": lambda fake: fake.isbn13(separator=""),
    "isbn10": lambda fake: fake.isbn10(separator=""),
    "iban": lambda fake: fake.iban(),
    "bic": lambda fake: fake.swift(length=8),
    "uuid": lambda fake: fake.uuid4(),
    "ean13": lambda fake: fake.ean13(),
    "card_number": lambda fake: fake.credit_card_number(),
    "alpha3": lambda fake: fake.country_code("alpha-3"),
    "alpha2": lambda fake: fake.country_code("alpha-2"),
    "coordinates": _coordinates,
}
"""Identifier label → its Faker provider call. Currency and language codes come from the
pools instead (``currency``, ``language_code``): Faker's lists hold codes ISO withdrew
(``NIS``, ``iw``)."""


@lru_cache(maxsize=4096)
def identifier(name: str, description: str) -> str | None:
    """The identifier the parameter ``name`` asks for: its description first (it says the
    form: "ISBN-13 of the book"), then its name (``isbn``, ``iban``); None when neither does."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ")
    for text in (description, f"{name} {spaced}"):
        for pattern, label in _COMPILED:
            if pattern.search(text):
                return label
    return None


def draw(label: str, rng: random.Random) -> str:
    """One value of the identifier ``label``, from ``rng``."""
    return IDENTIFIERS[label](_faker(rng))
