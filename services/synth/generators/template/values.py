"""A parameter's values (:func:`_values`): its mentions converted to the schema's type,
unit and date format, else what its words say (a flag, an offered option, a list of plain
words, a span of time said with no number); and ``label: value`` fields."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from datetime import date
from itertools import pairwise
from typing import Any

from services.synth.generators.template.fields import parse_value, split_fields
from services.synth.generators.template.fits import _GENDERS, _gendered
from services.synth.generators.template.flags import _both_ways, _flag
from services.synth.generators.template.matching import _evidence
from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.options import (
    _found_hints,
    _listed_with,
    _options_listed,
    _own,
    _scattered,
)
from services.synth.generators.template.phrases import STOPWORDS, doer, stem
from services.synth.generators.template.specs import _kind, _Param, _stems, _strict, undefaulted
from services.synth.generators.template.wording import sign
from services.synth.surface import label

_DATE_FORMS = (
    ("yyyy-mm-dd", "%Y-%m-%d"), ("mm-dd-yyyy", "%m-%d-%Y"), ("dd-mm-yyyy", "%d-%m-%Y"),
    ("mm/dd/yyyy", "%m/%d/%Y"), ("dd/mm/yyyy", "%d/%m/%Y"), ("yyyy/mm/dd", "%Y/%m/%d"),
)  # fmt: skip


_PART = r"(y{2,4}|mm|dd|year|month|day)"


_DATE_SHAPE = re.compile(rf"\b{_PART}([-/.]){_PART}\2{_PART}\b")


def _sign(param: _Param, mention: Mention) -> int:
    said = f"{label(param.name)} {param.schema.get('description', '')}"
    return sign(said, mention.before, float(mention.value))  # type: ignore[arg-type]


def _convert(param: _Param, mention: Mention) -> Any:
    kind = param.kind
    if kind == "array":
        items = param.schema.get("items") if isinstance(param.schema.get("items"), Mapping) else {}
        inner = _Param(param.name, items or {}, _kind(items or {}), False, {}, ())
        if mention.kind == "list":
            return _list(inner, mention.text)
        return [_convert(inner, mention)]
    if kind == "integer":
        return int(float(mention.value)) * _sign(param, mention)  # type: ignore[arg-type]
    if kind == "number":
        value = float(mention.value) * _sign(param, mention)  # type: ignore[arg-type]
        description = str(param.schema.get("description", "")).lower()
        if mention.kind == "percent" and "percent" not in description:
            return value / 100
        factor = _scale(mention.text, description)
        return value * factor if factor >= 1 else value / round(1 / factor)
    if mention.kind in ("number", "spelled"):
        value = float(mention.value)  # type: ignore[arg-type]
        return str(int(value)) if value.is_integer() else str(value)
    if mention.kind == "date":
        return _date_as(param, str(mention.value))
    if mention.kind in ("quoted", "time", "datetime"):
        return str(mention.value)
    if mention.kind == "phrase":
        return _before_tool_words(param, mention.text)
    if mention.kind == "name":
        return _as_example(param, mention.text)
    return mention.text


_CITY_STATE = re.compile(r"(?:e\.g\.|for example|such as)[:,]?\s+([A-Z][\w.' ]+?),\s*([A-Z]{2})\b")


def _as_example(param: _Param, said: str) -> str:
    """A city said as the description's own example of a city and its state ("New York" for
    "The city and state, e.g. New York, NY"): in the example's form."""
    example = _CITY_STATE.search(str(param.schema.get("description", "")))
    if example and example[1].lower() == said.lower():
        return f"{example[1]}, {example[2]}"
    return said


def _before_tool_words(param: _Param, said: str) -> str:
    """A phrase up to the first later word that names the tool's own thing ("divorce law
    specialists" for a lawyer search's expertise: "divorce")."""
    kept = said.split()
    for index, word in enumerate(kept[1:], start=1):
        own = stem(word.lower())
        if own in param.shared or any(doer(own, w) for w in param.shared):
            return " ".join(kept[:index])
    return said


_PREFIXED = {
    "µF": ("farad", "µf", 1e-6), "uF": ("farad", "uf", 1e-6), "mH": ("henr", "mh", 1e-3),
    "kHz": ("hertz", "khz", 1e3), "MHz": ("hertz", "mhz", 1e6), "GHz": ("hertz", "ghz", 1e9),
    "mV": ("volt", "mv", 1e-3), "mA": ("amp", "ma", 1e-3), "kW": ("watt", "kw", 1e3),
    "kJ": ("joule", "kj", 1e3), "kPa": ("pascal", "kpa", 1e3), "ms": ("second", "ms", 1e-3),
    "km": ("met", "km", 1e3), "cm": ("met", "cm", 1e-2), "mm": ("met", "mm", 1e-3),
}  # fmt: skip
"""An SI-prefixed unit → (its base unit's word, the unit as said, the factor)."""


_UNIT_TAIL = re.compile(r"(µF|uF|mH|kHz|MHz|GHz|mV|mA|kW|kJ|kPa|ms|km|cm|mm)$")


def _scale(said: str, description: str) -> float:
    """The factor that states a prefixed value in the unit the description asks for ("50mH"
    for "the inductance in henries": 0.05); 1 when it asks for the prefixed unit itself."""
    unit = _UNIT_TAIL.search(said.strip())
    if not unit:
        return 1.0
    base, symbol, factor = _PREFIXED[unit[1]]
    prefixed = re.search(rf"\b{symbol}\b|\b(?:kilo|milli|micro|centi|mega|giga)", description)
    return factor if base in description and not prefixed else 1.0


def _date_as(param: _Param, iso: str) -> str:
    """An ISO date in the format the parameter's description asks for ("MM-DD-YYYY"); a
    date said relative to a day nobody gave ("next Friday") as said."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", iso):
        return iso
    description = str(param.schema.get("description", "")).lower()
    for said, form in _DATE_FORMS:
        if said in description:
            return date.fromisoformat(iso).strftime(form)
    shape = _DATE_SHAPE.search(description)  # "mm-dd-yyy", "dd.mm.yy", "month-day-year"
    if shape:
        parts = {"y": "%Y", "m": "%m", "d": "%d"}
        order = [parts[shape[i][0]] for i in (1, 3, 4)]
        if len(set(order)) == 3:
            return date.fromisoformat(iso).strftime(shape[2].join(order))
    return iso


def _list(inner: _Param, text: str) -> list[Any]:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return [_item(inner, part) for part in text.strip("[]").split(",") if part.strip()]
    if not isinstance(value, list | tuple):
        value = [value]
    if inner.kind == "number":  # "[12, 15]" for a list of floats: 12.0, 15.0
        return [float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    return list(value)


def _item(inner: _Param, part: str) -> Any:
    part = part.strip().strip("'\"")
    try:
        if inner.kind == "integer":
            return int(float(part))
        if inner.kind == "number":
            return float(part)
    except ValueError:
        return part
    return part


def _labelled(params: Sequence[_Param], text: str) -> tuple[dict[str, list[Any]], str]:
    """Values given as ``label: value`` fields, and the text without those fields."""
    found: dict[str, list[Any]] = {}
    for said, raw, (start, end) in reversed(split_fields(text)):
        if not text[:start].strip(" \"'“") and len(said.split()) > 6:
            continue  # "Get me the rates of the following pairs: …": a sentence, no label
        stems = _stems(said)
        scored = [(sum(p.stems.get(w, 0.0) for w in stems), i) for i, p in enumerate(params)]
        score, index = max(scored, default=(0.0, -1))
        if score < 1.0:
            index = _object_by_keys(params, raw)
            if index < 0:
                continue
        if params[index].kind != "array" and re.fullmatch(r"\[.*\]", raw.strip()):
            continue  # "in ascending order: ['Sam', 'Alice']": a list is no order
        value = parse_value(params[index].schema, raw, _kind)
        if value is not None:
            found.setdefault(params[index].name, []).insert(0, value)
            text = text[:start] + " " + text[end:]
    return found, text


def _object_by_keys(params: Sequence[_Param], raw: str) -> int:
    """The one object parameter whose property labels open the fields of a ``(key value, …)``
    value whose label named no parameter ("new: (full name …, address (…))"); -1 if none."""
    if not re.fullmatch(r"\(.*\)", raw.strip(), re.S):
        return -1
    inner = raw.strip()[1:].lower()
    fits = [
        i
        for i, p in enumerate(params)
        if p.kind == "object"
        and all(
            inner.startswith(label(k).lower()) or f", {label(k).lower()} " in inner
            for k in p.schema.get("required") or ()
        )
        and any(inner.startswith(label(k).lower()) for k in p.schema.get("properties") or {})
    ]
    return fits[0] if len(fits) == 1 else -1


_GENDER = re.compile(rf"\b(?:{'|'.join(sorted(_GENDERS))})\b", re.I)


def _values(param: _Param, text: str) -> list[Any]:
    """The values ``param`` received (for an array: one list), optional ones only on evidence."""
    if param.kind == "boolean":
        if _both_ways(param, text):
            return [True, False]
        flag = _flag(param, text)
        if flag is None and param.required:  # "the detailed case information": details
            flag = _flag(param, text, loose=True)
        return [] if flag is None else [flag]
    spans = param.spans
    if spans and (param.required or any(_evidence(param, m) for m in spans)):
        if param.kind == "array":
            if any(m.kind == "list" for m in spans):  # a bracketed list says it all
                spans = [m for m in spans if m.kind == "list"]
                if len(spans) > 1:  # "the first set is [..], the second [..]": a call each
                    return [_convert(param, m) for m in spans]
            if any(m.kind == "number" for m in spans):  # "two sets: 12, 24 and 36" counts
                spans = [m for m in spans if m.kind != "spelled"]
            return [[v for m in spans for v in _convert(param, m)]]
        return [_convert(param, m) for m in spans]
    if param.kind == "array" and not _strict(param) and _items_text(param):
        listed = _listed_nouns(param, text) if param.required else _listed_after(param, text)
        if listed:  # "selling tomatoes and pet food", "related to behaviour and group …"
            return [listed]
    if param.kind in ("integer", "number") and _at_rest(param, text):
        return [0 if param.kind == "integer" else 0.0]  # "an object dropped from 100 m"
    if param.kind == "integer" and (_one_unit(param, text) or _every_unit(param, text)):
        return [1]  # "for the next month" for ``months``, "every hour" for a rate per hour
    if param.kind == "string" and not _strict(param) and _gendered(param):
        said = _GENDER.search(text)  # "the top female player": said by its word alone
        if said:
            return [said[0].lower()]
    found = _found_hints(param, text)
    listed = param.kind == "array" and _strict(param) and _options_listed(found, text)
    hints = [
        h
        for h in found
        if param.required
        or listed
        or not _own(param, h)
        or (_strict(param) and (len(words(h)) > 1 or _listed_with(h, found, text)))
    ]  # an option of several words said whole ("a tennis court"), or listed with another
    # ("the status and scheduled trial date", "the average price and ratings"), is asked,
    # the tool's word or not
    if not hints:
        return []
    if param.kind == "array":
        return [hints + _scattered(param, text, hints) if _strict(param) else hints]
    if param.kind in ("integer", "number"):
        return []
    return hints[:1] if _strict(param) and not param.exclusive else hints


def _items_text(param: _Param) -> bool:
    items = param.schema.get("items")
    return isinstance(items, Mapping) and items.get("type", "string") == "string"


_ITEM = r"[a-z][a-z-]+(?:\s[a-z][a-z-]+)?"
_NOUN_LIST = re.compile(
    rf"\b(?:[a-z]+ing|of|with|including|like)\s+({_ITEM}(?:,\s*{_ITEM})*,?\s+and\s+{_ITEM})"
    r"\s*(?:[.?!]|$)"
)
"""Plain words said as a list at the end of a request ("… selling tomatoes and pet food.")."""


def _listed_nouns(param: _Param, text: str) -> list[str]:
    """The items of a plain list that ends the request, for a required list of texts no
    other value went to; never the tool's or its parameters' own words."""
    found = _NOUN_LIST.search(text)
    if not found:
        return []
    items = [i.strip() for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", found[1]) if i.strip()]
    said = {stem(w) for i in items for w in i.split()}
    if said & (param.shared | set(param.stems)) or any(
        w in STOPWORDS for i in items for w in i.split()
    ):
        return []
    return items


def _listed_after(param: _Param, text: str) -> list[str]:
    """The items of a plain list said right after two words of the parameter's description
    ("Sub-topics related to main topic": "… related to behaviour and group dynamics")."""
    said = words(undefaulted(param.schema))
    for first, then in pairwise(said):
        if first in STOPWORDS or len(first) < 4:
            continue
        found = re.search(
            rf"\b{first}\s+{then}\s+({_ITEM}(?:,\s*{_ITEM})*,?\s+and\s+{_ITEM})"
            r"\s*(?:[.?!]|$)",
            text,
            re.I,
        )
        if found:
            return [i for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", found[1]) if i.strip()]
    return []


_UNITS = frozenset("minute hour day week month quarter year decade century".split())


def _one_unit(param: _Param, text: str) -> bool:
    """Whether a count of a span of time (``months``, ``num_days``) is said as one such
    span with no number ("for the next month", "over the past year")."""
    unit = [w for w in label(param.name).lower().split() if w.rstrip("s") in _UNITS]
    if len(unit) != 1 or not unit[0].endswith("s"):
        return False
    said = rf"\b(?:next|past|last|coming|upcoming|following|previous)\s+{unit[0][:-1]}\b"
    return bool(re.search(said, text, re.I))


_REST = re.compile(r"\b(?:from rest|at rest|dropped)\b", re.I)


def _at_rest(param: _Param, text: str) -> bool:
    """Whether a starting speed is said as none ("starts from rest", "an object dropped
    from 100 m"): the initial velocity or speed is 0."""
    said = set(label(param.name).lower().split())
    return "initial" in said and bool(said & {"velocity", "speed"}) and bool(_REST.search(text))


def _every_unit(param: _Param, text: str) -> bool:
    """Whether a frequency per a span of time ("duplication frequency per hour") is said as
    once every such span ("duplicates every hour")."""
    said = str(param.schema.get("description", ""))
    per = re.search(rf"\bper\s+({'|'.join(_UNITS)})\b", said, re.I)
    frequency = re.search(r"frequen|\brate\b|\btimes\b", f"{param.name} {said}", re.I)
    every = per and re.search(rf"\bevery\s+{per[1]}\b", text, re.I)
    return bool(frequency and every)
