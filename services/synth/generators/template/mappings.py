"""A mapping parameter's value: a mapping written in braces, quoted ``'key': value`` pairs,
or the fields its schema names set to as many values ("the name and email … to \"John\"
and \"j@x.com\"")."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from services.synth.generators.template.specs import _Param
from services.synth.surface import label

_BRACED = re.compile(r"\{[^{}]*\}")
"""A mapping written out in braces ("{'Math': 85, 'English': 90}")."""


_PAIR = re.compile(r"(['\"])([^'\"]{1,40})\1\s*:\s*(?:(['\"])([^'\"]*)\3|(-?\d+(?:\.\d+)?))")
"""One quoted key and its value ("'name':'John Doe'", "'age': 30")."""


def _dicts(params: Sequence[_Param], text: str) -> tuple[dict[str, list[Any]], str]:
    """The value of the one mapping parameter: a mapping written in braces, else the quoted
    ``'key': value`` pairs said one after another ("'name':'John Doe', 'email':'j@x.com'");
    the text without them."""
    found: dict[str, list[Any]] = {}
    wanted = [p for p in params if p.kind == "object"]
    if len(wanted) != 1:  # several mappings: which is which is not said
        return found, text
    for braced in _BRACED.finditer(text):
        try:
            value = ast.literal_eval(braced[0])
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, dict) and value:
            found[wanted[0].name] = [value]
            return found, text[: braced.start()] + " " + text[braced.end() :]
    fields = _fields_set(wanted[0], text)
    if fields:
        value, (start, end) = fields
        found[wanted[0].name] = [value]
        return found, text[:start] + " " + text[end:]  # the values said, not the fields
    pairs = list(_PAIR.finditer(text))
    run = [
        a
        for a, b in pairwise(pairs)
        if re.fullmatch(r"\s*(?:,|,?\s*and)?\s*", text[a.end() : b.start()])
    ]
    if not pairs or (len(pairs) > 1 and len(run) != len(pairs) - 1):
        return found, text
    value = {m[2]: m[4] if m[3] else _number(m[5]) for m in pairs}
    found[wanted[0].name] = [value]
    return found, text[: pairs[0].start()] + " " + text[pairs[-1].end() :]


_SET_VALUE = r"(?:\"[^\"]*\"|'[^']*'|“[^”]*”|[^\s,]+)"
_SET_JOIN = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"


def _fields_set(param: _Param, text: str) -> tuple[dict[str, Any], tuple[int, int]] | None:
    """A mapping whose schema names its fields, said as those fields set to as many values
    ("update the name and email … to \"John\" and \"j@x.com\""): the fields in the order
    named, the values in the order said, and where the values stand in the text."""
    fields = param.schema.get("properties")
    if not isinstance(fields, Mapping) or len(fields) < 2:
        return None
    names = "|".join(re.escape(label(f)) for f in sorted(fields, key=len, reverse=True))
    listed = rf"\b((?:{names}){_SET_JOIN})+(?:{names})\b"
    for said in re.finditer(listed, text, re.I):
        keys = re.findall(rf"\b(?:{names})\b", said[0], re.I)
        values = r"\bto\s+" + _SET_JOIN.join(f"({_SET_VALUE})" for _ in keys)
        then = re.compile(values).search(text, said.end(), said.end() + 120)
        if then is None:
            continue
        told = then.groups()
        by_name = {label(f).lower(): f for f in fields}
        value = {by_name[k.lower()]: v.strip("'\"“”") for k, v in zip(keys, told, strict=True)}
        return value, (then.start(1), then.end())
    return None


def _number(said: str) -> int | float:
    number = float(said)
    return int(number) if number.is_integer() else number
