"""Text and quantity values said by the phrasing around them, not by their form: "X as
the <parameter>", "without any <parameter>", a conversion's two units, an empty list, one
side preferred over the other, the fact a question asks for, "X-<parameter's noun>"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from services.synth.generators.template.mentions import words
from services.synth.generators.template.options import _base
from services.synth.generators.template.phrases import STOPWORDS, compiled, stem
from services.synth.generators.template.specs import _closed, _Param, _strict
from services.synth.generators.template.wording import _DIMENSIONS
from services.synth.surface import label

_STOP_BEFORE_AS = frozenset("it them this that one something uses use using is are was".split())


def _said_as(params: Sequence[_Param], text: str) -> dict[str, list[Any]]:
    """Text values said as what they are ("uses chicken as the main ingredient", "with
    'Warrior' as my class", "where 'y' is the function variable"): the word before "as the
    <parameter's name>", the quote before "is the <parameter's name>"."""
    found: dict[str, list[Any]] = {}
    for param in (p for p in params if p.kind == "string" and not _strict(p)):
        name = r"[\s_-]+".join(re.escape(w) for w in label(param.name).lower().split())
        form = rf"\b([A-Za-z][\w-]*)\s+as\s+(?:the|my|a|an|its|their)\s+{name}\b"
        said = [
            m[1] for m in compiled(form, re.I).finditer(text) if m[1].lower() not in _STOP_BEFORE_AS
        ]
        longer = [
            r"[\s_-]+".join(label(p.name).lower().split()[len(label(param.name).split()) :])
            for p in params
            if p is not param and p.name.lower().startswith(param.name.lower())
        ]  # "is the function variable": ``function_variable``'s, not ``function``'s
        rest = rf"(?![\s_-]+(?:{'|'.join(longer)})\b)" if longer else ""
        quoted = rf"['\"“]([^'\"”]{{1,40}})['\"”]\s+is\s+(?:the|my|a|an|its|their)\s+{name}\b{rest}"
        said += [m[1] for m in compiled(quoted, re.I).finditer(text)]  # "where 'y' is the variable"
        if said or (said := _compounded(param, text)) or (said := _asked_for(param, text)):
            found[param.name] = said
    return found


_NONE = re.compile(r"\b(?:without|no|zero)\s+(?:any\s+)?([a-z]+)", re.I)


def _none_said(param: _Param, text: str) -> list[Any]:
    """A quantity said to be absent by its own name ("travels for 8 seconds without any
    acceleration" for ``acceleration``): zero."""
    if param.kind not in ("integer", "number"):
        return []
    own = {stem(w) for w in words(label(param.name))}
    if any(stem(m[1].lower()) in own for m in _NONE.finditer(text)):
        return [0 if param.kind == "integer" else 0.0]
    return []


_FROM_WORDS = frozenset("from source original input".split())
_TO_WORDS = frozenset("to target desired output".split())


def _converted(params: Sequence[_Param], text: str) -> dict[str, list[Any]]:
    """The two units of a conversion ("15 kilometers … into miles", "How many feet is 3
    meters?"): the unit a number is said in is the one converted from, another unit of the
    same measure the one converted to."""
    units = [p for p in params if p.kind == "string" and "unit" in label(p.name).lower().split()]
    source = next((p for p in units if set(label(p.name).lower().split()) & _FROM_WORDS), None)
    target = next((p for p in units if set(label(p.name).lower().split()) & _TO_WORDS), None)
    if source is None or target is None:
        return {}
    for measure in _DIMENSIONS.values():
        said = "|".join(sorted((re.escape(u) for u in measure if len(u) > 1), key=len)[::-1])
        first = re.search(rf"\d\s*({said})\b", text, re.I)
        if first is None:
            continue
        other = [m[1] for m in re.finditer(rf"\b({said})\b", text, re.I)]
        other = [u for u in other if stem(u.lower()) != stem(first[1].lower())]
        if other:
            return {source.name: [first[1]], target.name: [other[0]]}
    return {}


def _emptied(param: _Param, text: str) -> list[Any]:
    """An array said to be empty by its name's noun ("starting from an empty board" for
    ``start_board``): one value, the empty list."""
    if param.kind != "array":
        return []
    own = {stem(w) for w in label(param.name).lower().split()}
    said = re.finditer(r"\bempty\s+([a-z]+)", text, re.I)
    return [[]] if any(stem(m[1].lower()) in own for m in said) else []


_PREFERRED = re.compile(r"\b([a-z]+)\s+(?:than|over|rather than|instead of)\s+([a-z]+)\b", re.I)


def _versus(params: Sequence[_Param], text: str) -> dict[str, list[Any]]:
    """A choice between two named in the parameter ("thinking_vs_feeling"), said as which
    one is preferred over the other ("more towards feeling than thinking", "I prefer
    intuition over sensing"): the preferred one."""
    found: dict[str, list[Any]] = {}
    for param in (p for p in params if p.kind == "string" and not _strict(p)):
        said = label(param.name).lower().split()
        if len(said) != 3 or said[1] not in ("vs", "versus", "or"):
            continue
        sides = {stem(said[0]): said[0], stem(said[2]): said[2]}
        for m in _PREFERRED.finditer(text):
            first, then = stem(m[1].lower()), stem(m[2].lower())
            if {first, then} == set(sides):
                found[param.name] = [sides[first]]
                break
    return found


_ASKED_NOUN = re.compile(
    r"\b(?:what's|what is|what are|what was|find|get|give me|tell me|show me|retrieve|fetch)"
    r"\s+the\s+([a-z]+(?:\s+[a-z]+)?)\s+(?:of|for|about)\b",
    re.I,
)
"""A question that opens with what it asks of something ("Find the size of …", "What's
the power rating for …")."""


_WHICH = frozenset(
    _base(w)
    for w in "detail details stat stats statistic statistics info information attribute "
    "attributes aspect aspects metric metrics".split()
)
"""Words of a parameter's name that make it say which fact is asked ("detail",
``info_type``, ``stat``)."""


def _asked_for(param: _Param, text: str) -> list[str]:
    """The fact a question asks of something, for a parameter that says which fact is asked
    ("Find the size of the sculpture" for ``detail``), unless its words are the tool's or a
    parameter's own ("the details of the sculpture")."""
    if _closed(param) or not {_base(w) for w in words(label(param.name))} & _WHICH:
        return []
    said = _ASKED_NOUN.search(text)
    if not said:
        return []
    own = {stem(w) for w in words(said[1])}
    if own & (param.shared | set(param.stems)) or own & STOPWORDS:
        return []
    return [said[1]]


_GENERIC_NAME = frozenset("type name kind value id".split())


def _compounded(param: _Param, text: str) -> list[str]:
    """A value said before a hyphen and a word of its parameter's name ("a gas-fueled car"
    for ``fuel_type``, "a solar-powered home" for ``power_source``)."""
    own = {_base(w) for w in words(label(param.name))} - _GENERIC_NAME
    said = []
    for m in re.finditer(r"(?<![\w-])([A-Za-z]{2,})-([A-Za-z]+)(?![\w-])", text):
        value, word = m[1], m[2].lower()
        if _base(word) in own and _base(value.lower()) not in param.stems:
            said.append(value)
    return said
