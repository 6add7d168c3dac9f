"""Labelled fields in a request: "Origin: JFK; departure: 2026-03-14; nonstop: yes".

People write a form-like list when precision matters. A field is ``<words>: <value>``
between semicolons (or line breaks); its words are matched against each parameter's name
and description, and its value is parsed by that parameter's type. Objects are written as
``(key value, key value)``, arrays as ``a, b and c``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from itertools import pairwise
from typing import Any

from services.synth.generators.template.mentions import find_mentions, words
from services.synth.surface import label, norm

__all__ = ["parse_value", "split_fields"]

_FIELD = re.compile(
    r"(?:^|[;\n—]\s*|\bwith\s+)([A-Za-z][\w' #@/-]{0,60}?):\s+"
    r"(\"[^\"]*\"|[^;\n]+?)(?=\s*;|\n|[.?!](?:\s|$)|$)"
)
_ITEMS = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_YES = frozenset("yes true on please y".split())
_NO = frozenset("no false off n".split())


def split_fields(text: str) -> list[tuple[str, str, tuple[int, int]]]:
    """``(label, value, span)`` of every ``label: value`` field in ``text``."""
    quoted = [q.span() for q in re.finditer(r"'[^']*'|\"[^\"]*\"", text)]
    return [
        (m[1].strip(), m[2].strip().rstrip(".?!"), m.span())
        for m in _FIELD.finditer(text)
        if not any(s < m.start(1) < e or s < m.end(1) < e for s, e in quoted)  # "'Zelda: …'"
    ]


def parse_value(schema: Mapping[str, Any], text: str, kind_of: Callable[[Any], str]) -> Any:
    """``text`` as a value of ``schema`` (``None`` when it does not read as one)."""
    kind = kind_of(schema)
    text = text.strip()
    if kind == "boolean":
        said = set(words(text))
        return True if said & _YES else False if said & _NO else None
    if kind == "array":
        item = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        lists = re.findall(r"\[[^\[\]]*\]", text)
        if len(lists) > 1:  # several bracketed lists: a value each, not one field
            return None
        parts = _split_items(lists[0][1:-1] if lists else text)
        values = [parse_value(item or {}, p, kind_of) for p in parts]
        return [v for v in values if v is not None] or None
    if kind == "object":
        return _object(schema, text, kind_of)
    mentions = find_mentions(text)
    if kind in ("integer", "number"):
        numbers = [m for m in mentions if m.kind in ("number", "percent", "spelled")]
        if not numbers:
            return None
        value = float(numbers[0].value)  # type: ignore[arg-type]
        return int(value) if kind == "integer" and value.is_integer() else value
    if "enum" in schema:
        said = f" {norm(text)} "
        return next((o for o in schema["enum"] if f" {norm(str(o))} " in said), None)
    wanted = {"date": "date", "date-time": "datetime"}.get(str(schema.get("format")))
    for mention in mentions:
        if (wanted and mention.kind == wanted) or (mention.kind == "time" and "pattern" in schema):
            return str(mention.value)
    if wanted:
        return None
    quoted = re.fullmatch(r"\"(.*)\"|'(.*)'|“(.*)”", text)
    return next(g for g in quoted.groups() if g is not None) if quoted else text


def _split_items(text: str) -> list[str]:
    """``"a", "b" and "c"`` or ``(…), (…)``: items, never splitting inside quotes or groups."""
    groups = _groups(text)
    if groups:
        return groups
    quoted = re.findall(r"\"([^\"]*)\"", text)
    if quoted:
        return [f'"{q}"' for q in quoted]
    return [p for p in _ITEMS.split(text) if p.strip()]


def _object(schema: Mapping[str, Any], text: str, kind_of: Callable[[Any], str]) -> Any:
    inner = text.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    props = schema.get("properties") or {}
    out: dict[str, Any] = {}
    bare: list[str] = []
    for part in _fields_of(inner, [label(k) for k in props]):
        best = max(props, key=lambda k: _prefix(label(k), part), default=None)
        if best is None or not _prefix(label(best), part):
            bare.append(part)
            continue
        rest = part.strip()[len(label(best)) :]
        value = parse_value(props[best], rest, kind_of)
        if value is not None:
            out[best] = value
    unfilled = [k for k in schema.get("required") or () if k in props and k not in out]
    if len(bare) == 1 and len(unfilled) == 1 and bare[0].strip():  # ("9780…", quantity 4)
        value = parse_value(props[unfilled[0]], bare[0], kind_of)
        if value is not None:
            out[unfilled[0]] = value
    return out or None


def _prefix(said: str, part: str) -> int:
    return len(said) if part.strip().lower().startswith(said.lower()) else 0


def _depths(text: str) -> list[int]:
    """The bracket depth at each character of ``text``, quoted stretches counted as one deeper."""
    depths, depth, quoted = [], 0, False
    for char in text:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "([":
            depth += 1
        elif not quoted and char in ")]":
            depth = max(depth - 1, 0)
        depths.append(depth + quoted)
    return depths


def _groups(text: str) -> list[str]:
    """The top-level ``(…)`` groups of ``text``, nested groups kept inside their parent."""
    depths, out, start = _depths(text), [], None
    for index, char in enumerate(text):
        if char == "(" and depths[index] == 1 and (index == 0 or depths[index - 1] == 0):
            start = index
        elif char == ")" and depths[index] == 0 and start is not None:
            out.append(text[start : index + 1])
            start = None
    return out


def _fields_of(inner: str, labels: list[str]) -> list[str]:
    """``key value, key value`` split at the top-level commas that start another key: a
    nested object's ``(…)`` and a list value's own commas stay whole."""
    depths, cuts = _depths(inner), [0]
    for index, char in enumerate(inner):
        if char != "," or depths[index]:
            continue
        rest = inner[index + 1 :].lstrip().lower()
        if any(rest.startswith(said.lower()) for said in labels if said):
            cuts.append(index + 1)
    cuts.append(len(inner) + 1)
    return [inner[a : b - 1] for a, b in pairwise(cuts)]
