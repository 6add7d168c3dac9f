"""Whether generated argument values fit their schema and what their description names.

Checked apart from the generator: the schema by ``jsonschema`` (with its format checker,
plus a parse for ``uri``, whose checker needs a package we do not install), the identifier
a name or description names by ``python-stdnum`` (check digits) and ``pycountry`` (ISO
codes). The rules that find the identifier are this module's own, not the generator's.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlparse

import pycountry
from jsonschema import Draft202012Validator
from stdnum import bic, ean, iban, isbn, luhn

__all__ = ["fits", "leaves", "named_identifier", "value_fit"]

_FORMATS = Draft202012Validator.FORMAT_CHECKER


def _isbn(length: int | None) -> Callable[[str], bool]:
    return lambda v: isbn.is_valid(v) and (length is None or len(isbn.compact(v)) == length)


def _language(value: str) -> bool:
    return (
        pycountry.languages.get(alpha_2=value) or pycountry.languages.get(alpha_3=value)
    ) is not None


def _currency(value: str) -> bool:
    return pycountry.currencies.get(alpha_3=value) is not None


def _phone(value: str) -> bool:
    return re.fullmatch(r"\+?\d[\d ().-]{6,}\d", value) is not None


def _email(value: str) -> bool:
    return re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", value) is not None


def _coordinates(value: str) -> bool:
    parts = re.split(r"\s*,\s*", value.strip())
    try:
        lat, lon = (float(p) for p in parts)
    except ValueError:
        return False
    return -90 <= lat <= 90 and -180 <= lon <= 180


_ID = {
    "isbn10": r"isbn[- ]?10",
    "isbn13": r"isbn[- ]?13",
    "isbn": r"isbn",
    "iban": r"iban",
    "bic": r"bic|swift",
    "uuid": r"uuid|guid",
    "ean13": r"(?:ean|gtin)[- ]?13|barcode",
    "card": r"(?:credit|debit|payment) card number",
    "country3": r"alpha[- ]?3",
    "country2": r"iso[- ]?3166|alpha[- ]?2|country code",
    "language": r"iso[- ]?639|language code",
}
"""Identifiers named the same way in a description or a name."""

_CHECKS: tuple[tuple[str, str, str, Callable[[str], bool]], ...] = (
    *(
        (label, pattern, pattern, check)
        for label, check in (
            ("isbn10", _isbn(10)),
            ("isbn13", _isbn(13)),
            ("isbn", _isbn(None)),
            ("iban", iban.is_valid),
            ("bic", bic.is_valid),
            ("uuid", lambda v: _parses(uuid.UUID, v)),
            ("ean13", ean.is_valid),
            ("card", luhn.is_valid),
            ("country3", lambda v: pycountry.countries.get(alpha_3=v) is not None),
            ("country2", lambda v: pycountry.countries.get(alpha_2=v) is not None),
            ("language", _language),
        )
        for pattern in (_ID[label],)
    ),
    ("currency", r"iso[- ]?4217|currency code", r"currency", _currency),
    ("phone", r"(?:tele)?phone number|mobile number", r"phone|mobile", _phone),
    ("email", r"e-?mail address(?:es)?", r"e-?mail", _email),
    ("uri", r"url|uri|web ?site", r"url|uri|website|link", lambda v: _is_uri(v)),
    ("coordinates", r"coordinates?", r"coordinates?", _coordinates),
)
"""(label, what a description says, what a name says, the check) of each identifier; a
description is read first and says the form in full ("the member's email address", not
"body text of the email"); a name says it in a word (``member_email``)."""
_COMPILED = tuple(
    (label, re.compile(rf"\b(?:{said})\b", re.I), re.compile(rf"\b(?:{named})\b", re.I), check)
    for label, said, named, check in _CHECKS
)


def _parses(parse: Callable[[str], Any], value: str) -> bool:
    try:
        parse(value)
    except (ValueError, TypeError):
        return False
    return True


def _is_uri(value: str) -> bool:
    parsed = urlparse(value)
    return bool(parsed.scheme and (parsed.netloc or parsed.path)) and " " not in value


def named_identifier(
    name: str, schema: Mapping[str, Any]
) -> tuple[str, Callable[[str], bool]] | None:
    """The identifier a string parameter's description (then its name) names, with its
    check; None when it names none."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ")
    description = str(schema.get("description", ""))
    for label, said, _, check in _COMPILED:
        if said.search(description):
            return label, check
    for label, _, named, check in _COMPILED:
        if named.search(spaced):
            return label, check
    return None


def fits(name: str, schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``value`` satisfies ``schema`` (formats checked) and, for a string, the
    identifier its description or name names."""
    if not Draft202012Validator(schema, format_checker=_FORMATS).is_valid(value):
        return False
    if schema.get("format") in ("uri", "uri-reference") and not _is_uri(str(value)):
        return False
    if isinstance(value, str) and "enum" not in schema and "const" not in schema:
        named = named_identifier(name, schema)
        return named is None or named[1](value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _in_place(name, value)
    return True


def _in_place(name: str, value: float) -> bool:
    """Latitude and longitude in range, whatever the schema leaves open."""
    words = set(re.findall(r"[a-z]+", name.lower()))
    if words & {"latitude", "lat"}:
        return -90 <= value <= 90
    if words & {"longitude", "lon", "lng"}:
        return -180 <= value <= 180
    return math.isfinite(value)


def leaves(
    schema: Mapping[str, Any], value: Any, name: str = ""
) -> Iterator[tuple[str, Mapping[str, Any], Any]]:
    """``(name, schema, value)`` of every scalar inside ``value``: object properties and
    array items are walked, each with its own schema."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, item in value.items():
            yield from leaves(properties.get(key) or {}, item, key)
    elif isinstance(value, list):
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        singular = name[:-1] if name.endswith("s") and len(name) > 3 else name
        for item in value:
            yield from leaves(items, item, singular)
    else:
        yield name, schema, value


def value_fit(calls: Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
    """``value_fit_rate`` over every scalar of ``(parameters schema, arguments)`` pairs, and
    ``identifier_values`` / ``identifier_fit_rate`` over those that name an identifier."""
    total = fitted = named = named_fitted = 0
    for schema, arguments in calls:
        for name, sub, value in leaves(schema, arguments):
            ok = fits(name, sub, value)
            total, fitted = total + 1, fitted + ok
            if isinstance(value, str) and "enum" not in sub and named_identifier(name, sub):
                named, named_fitted = named + 1, named_fitted + ok
    return {
        "value_fit_rate": round(fitted / total, 4) if total else 1.0,
        "values_checked": total,
        "identifier_values": named,
        "identifier_fit_rate": round(named_fitted / named, 4) if named else 1.0,
    }
