"""A parameter's values: flags by their words, values a description offers found in the
text, ``label: value`` fields, and mentions converted to the schema's type, unit and date
format."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import lru_cache
from itertools import pairwise
from typing import Any

from services.synth.generators.template.fields import parse_value, split_fields
from services.synth.generators.template.matching import _GENDERS, _evidence, _gendered
from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import STOPWORDS, compiled, doer, stem
from services.synth.generators.template.specs import (
    _closed,
    _kind,
    _Param,
    _stems,
    _strict,
    undefaulted,
)
from services.synth.generators.template.wording import _DIMENSIONS, sign
from services.synth.surface import label

_NEGATION = frozenset("not no without don't dont exclude excluding never".split())


_DATE_FORMS = (
    ("yyyy-mm-dd", "%Y-%m-%d"), ("mm-dd-yyyy", "%m-%d-%Y"), ("dd-mm-yyyy", "%d-%m-%Y"),
    ("mm/dd/yyyy", "%m/%d/%Y"), ("dd/mm/yyyy", "%d/%m/%Y"), ("yyyy/mm/dd", "%Y/%m/%d"),
)  # fmt: skip


_PART = r"(y{2,4}|mm|dd|year|month|day)"


_DATE_SHAPE = re.compile(rf"\b{_PART}([-/.]){_PART}\2{_PART}\b")


_GENERIC = frozenset("include is get flag whether enable use show".split())


_BOILERPLATE = frozenset(
    "if not no default false true provided specified otherwise none null optional".split()
)
"""Words of a schema's wording of its own defaults ("if not provided, defaults to false"),
never what a request says to set a flag."""


_IRREGULAR = {
    "children": "child", "people": "person", "men": "man", "women": "woman",
    "feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose",
}  # fmt: skip


def _base(word: str) -> str:
    """A word's stem without quotes around it, irregular plurals as their singular, a
    participle as its verb ("detailed" says "detail")."""
    word = word.strip("'")
    word = word[:-2] if word.endswith("ed") and len(word) >= 6 else word
    return stem(_IRREGULAR.get(word, word))


def _found_hints(param: _Param, text: str) -> list[str]:
    """The hints the text says, in its order; words compared by their stems ("scenic
    views" says "Scenic View", "toll roads" says "tolls", "children" says "child"), without the
    quotes around them; an option also by what its description glosses it as ("an electric
    vehicle" says "EV"). Options told apart only by their case ("AA", "Aa", "aa") are found
    as written."""
    if _case_twins(param.hints):
        hits = [
            (re.search(rf"(?<!\w){re.escape(str(h))}(?!\w)", text), str(h)) for h in param.hints
        ]
        return [h for m, h in sorted((m.start(), h) for m, h in hits if m)]
    text = _NAME_RUN.sub(lambda m: _own_name(m[0], param.hints), text)
    said = [p for w in words(text) for p in ([w, *w.split("-")] if "-" in w.strip("-") else [w])]
    lowered = f" {' '.join(_base(w) for w in said)} "  # "gas-powered" also says "gas"
    found = []
    glossed = _glosses(str(param.schema.get("description", "")))
    told = [(h, h) for h in sorted(param.hints, key=len, reverse=True)]
    told += [(gloss, option) for option, gloss in glossed if option in param.hints]
    for hint, option in told:
        said = " ".join(_base(w) for w in words(hint))
        if said and f" {said} " in lowered:
            found.append((lowered.index(f" {said} "), option))
            lowered = lowered.replace(f" {said} ", " \x00 ")
            continue
        if hint != option:  # a gloss is found said whole only
            continue
        short = _SHORT_UNIT.fullmatch(said)  # "24h" said as "24 hour", "24-hour"
        whole = short and re.search(rf" {short[1]} {short[2]}[a-z]* ", lowered)
        if whole:
            found.append((whole.start(), hint))
            lowered = lowered[: whole.start()] + " \x00 " + lowered[whole.end() :]
            continue
        head = _head(param, said)  # "disabled people" for the option "Disabled Access"
        rest = said.split()[1:]  # "guitar shop … violin lessons": "lessons" went elsewhere
        if head and f" {head} " in lowered and not any(f" {w} " in lowered for w in rest):
            found.append((lowered.index(f" {head} "), hint))
            lowered = lowered.replace(f" {head} ", " \x00 ")
    if _strict(param):
        found += _clipped(param, lowered, {h for _, h in found})
    return list(dict.fromkeys(h for _, h in sorted(found)))


_GLOSS = re.compile(
    r"['\"]([^'\"]{1,40})['\"]\s+(?:refers to|means|stands for|is for)\s+(?:an?\s+|the\s+)?"
    r"([a-z][\w -]{0,40}?)(?=\s*(?:[,.;)]|\band\b|$))",
    re.I,
)


@lru_cache(maxsize=4096)
def _glosses(description: str) -> tuple[tuple[str, str], ...]:
    """The options a description glosses ("'gas' refers to a gasoline vehicle, … 'EV'
    refers to an electric vehicle"): (option, what the request says for it)."""
    return tuple((m[1], m[2]) for m in _GLOSS.finditer(description))


def _clipped(param: _Param, lowered: str, found: set[str]) -> list[tuple[int, str]]:
    """Options of one word said clipped in a list of options found ("protein, calories and
    carbs" for "Carbohydrates"): a word of four letters or more that starts the option, said
    right after a found one."""
    tokens = lowered.split()
    out = []
    for hint in (h for h in param.hints if h not in found and len(words(h)) == 1):
        whole = _base(hint)
        for index, token in enumerate(tokens):
            before = tokens[max(0, index - 2) : index]
            listed = before[-1:] == ["\x00"] or before in (["\x00", "and"], ["\x00", "or"])
            if (
                listed
                and len(token) >= 4
                and whole.startswith(token)
                and len(whole) > len(token) + 2
            ):
                out.append((lowered.index(f" {token} "), hint))
                break
    return out


def _head(param: _Param, said: str) -> str | None:
    """The first word of an enum option of several words, when that word is long and no
    other option has it: said without the option's other words, it says the option alone
    ("disabled people" for "Disabled Access")."""
    first, *rest = said.split() or [""]
    if not rest or not _strict(param) or len(first) < 6 or not first.isalpha():
        return None
    others = [h for h in param.hints if " ".join(_base(w) for w in words(h)) != said]
    if any(first in {_base(w) for w in words(h)} for h in others):
        return None
    return first


_SHORT_UNIT = re.compile(r"(\d+(?:\.\d+)?) ([a-z]{1,2})")
"""An option that is a number and a unit's letter ("24h", "4k"): said with the unit's
word ("24 hour format")."""


_NAME_RUN = re.compile(r"(?<![\w'-])[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]*)+")
"""Capitalised words said together ("Natural History Museum"): a name."""


def _own_name(name: str, hints: Sequence[str]) -> str:
    """A name as said when a hint opens or closes it ("New York City", "Retrieve Personal
    Info" at a sentence's start), else nothing: an option said inside a longer name
    ("history" in "Natural History Museum") is no option said."""
    said = " ".join(_base(w) for w in words(name))
    for hint in hints:
        own = " ".join(_base(w) for w in words(str(hint)))
        if own and (f" {said} ".startswith(f" {own} ") or f" {said} ".endswith(f" {own} ")):
            return name
    return " "


def _case_twins(hints: Sequence[object]) -> bool:
    """Whether two options differ only in their case."""
    lowered = [str(h).lower() for h in hints]
    return len(set(lowered)) < len(set(map(str, hints)))


def _capitalised(hint: str, text: str) -> bool:
    """Whether the text says ``hint`` as a name (every word capitalised, "Amazon rainforest"
    is not one) or in quotes: then it is a mention of its own."""
    if compiled(rf"['\"“]{re.escape(hint)}['\"”]", re.I).search(text):
        return True  # quoted: a mention too
    found = compiled(rf"\b{re.escape(hint)}\b", re.I).search(text)
    said = [w for w in found[0].split() if w[:1].isalpha()] if found else []
    return bool(said) and all(w[:1].isupper() for w in said)


def _own(param: _Param, hint: str) -> bool:
    """Whether a hint is one of the request's own words ("severe" in "severe weather alerts")."""
    return {stem(w) for w in words(hint)} <= param.shared


def _flag(param: _Param, text: str, loose: bool = False) -> bool | None:
    """A flag said by its words (name or description), off when negated just before;
    and by another form of its own name's words ("with details" for ``detailed``), though
    the tool's description says them ("their history" for ``include_history`` of a tool that
    fetches a case "including its history"), unless the tool's or another parameter's name
    does; ``loose`` (a required flag must be set): also by words the tool shares with it, and
    by another form of any of its words ("multi-player" for ``multiplayer``)."""
    off = _off_words(param)
    keys = {
        w
        for w in param.stems
        if w not in _GENERIC and w not in _BOILERPLATE and (loose or w not in param.shared)
    } - off
    named = {w.replace("_", "") for w in _stems(label(param.name))}
    if loose:
        keys |= named
    else:  # "with details" for ``detailed``: another form of the flag's own name
        named = {w for w in named - _GENERIC if w not in param.naming}
    stated = _stated(named | {w.replace("_", "") for w in _stems(label(param.name))}, text)
    if stated is not None:
        return stated
    said = _flags_said(keys, keys if loose else named, text, param.shared)
    if said:
        return said[0]
    return False if off & {stem(t) for t in words(text)} else None


def _flags_said(
    keys: set[str], forms: set[str], text: str, shared: frozenset[str] = frozenset()
) -> list[bool]:
    """Each time a flag's words are said, whether on or off: off when negated just before or
    said as less of it ("a less detailed description"). Its words said close together
    ("the impact of human activities") are said once. A word of the tool's or of another
    parameter (``shared``: "transportation" for ``allow_transfer`` beside
    ``transportation``) is another form of the flag's words only when it starts with one
    whole ("detailed" for ``detail``)."""
    tokens = words(text)
    out: list[bool] = []
    last = -9
    for index, token in enumerate(tokens):
        said = stem(token)
        plain = said.replace("-", "")
        inflected = any(plain.startswith(k) for k in forms)  # "detailed" for ``detail``
        if said in keys or ((inflected or said not in shared) and _same_word(plain, forms)):
            window = set(tokens[max(0, index - 4) : index])
            if index - last > 4:
                out.append(not (window & _NEGATION or tokens[index - 1 : index] == ["less"]))
            last = index
    return out


def _flag_each(param: _Param, text: str) -> list[bool]:
    """A flag said once per call, on for one and off for another ("a detailed description
    of a neuron cell and a less detailed one of a muscle cell"): each time, in order; empty
    when said only one way."""
    named = {w.replace("_", "") for w in _stems(label(param.name))} - _GENERIC - param.shared
    said = _flags_said(named, named, text, param.shared)  # by its own name: once each time
    return said if len(set(said)) > 1 else []


def _off_words(param: _Param) -> set[str]:
    """What a flag's description says it does when off ("formats the output as a ratio
    instead of a decimal"): "as a decimal" asks it off; never a word the tool or the rest
    of the description says ("… instead of hotel credit" for a hotel booking)."""
    said = str(param.schema.get("description", ""))
    cut = re.split(r"\b(?:instead of|rather than)\s+", said, maxsplit=1, flags=re.I)
    if len(cut) < 2:
        return set()
    off = _stems(re.split(r"[.,;]", cut[1], maxsplit=1)[0])
    return off - _stems(cut[0]) - _stems(label(param.name)) - param.shared  # its own words


_WAYS = re.compile(r"([^,.;:()]+?)\s+(?:if|when)\s+(?:set\s+to\s+|it\s+is\s+)?(true|false)\b", re.I)


_BOTH = re.compile(
    r"\s+(?:as well as|and also|and|or|and then|then)\s+(?:(?:as|in|an?|the)\s+)*", re.I
)


def _both_ways(param: _Param, text: str) -> bool:
    """A flag asked both ways: what its description says it does on and what it does off
    ("formatted string if true, array if false"), both said and joined by "and", "or", "as
    well as" ("in a formatted string as well as an array"), or "with and without" its words
    ("with and without taxes"). Each call is then asked once with it on and once off."""
    said = {
        w.group(2).lower(): w.group(1) for w in _WAYS.finditer(param.schema.get("description", ""))
    }
    if len(said) == 2:
        on, off = (_stems(said[k]) - _BOILERPLATE - _GENERIC for k in ("true", "false"))
        on, off = on - off, off - on
        tokens = [stem(t) for t in re.findall(r"[\w-]+", text)]
        for first, then in ((on, off), (off, on)):
            for a in (i for i, t in enumerate(tokens) if t in first):
                ahead = tokens[a + 1 : a + 6]
                hit = next((j for j, t in enumerate(ahead) if t in then), None)
                between = " " + " ".join(ahead[:hit]) + " " if hit is not None else ""
                if hit is not None and _BOTH.fullmatch(between.rstrip() + " "):
                    return True
    keys = {w for w in param.stems if w not in _GENERIC and w not in _BOILERPLATE}
    for found in re.finditer(r"\bwith\s+(?:and|or)\s+without\s+((?:[\w-]+\s*){1,3})", text, re.I):
        if {stem(w) for w in words(found[1])} & keys:
            return True
    return False


def _stated(named: set[str], text: str) -> bool | None:
    """A flag stated of what the request is about ("The process is isothermal", "if the
    process is not isothermal"): on, or off after "not"; ``None`` when not stated."""
    for found in _STATED.finditer(text):
        if stem(found[2].lower()) in named:
            return not found[1]
    return None


_STATED = re.compile(r"\b(?:is|are|was|were|be)\s+(not\s+)?(?:\w+ly\s+)?([A-Za-z-]+)\b", re.I)


def _same_word(said: str, keys: set[str]) -> bool:
    """Whether ``said`` is another form of one of ``keys``: the same first five letters."""
    return len(said) >= 5 and any(len(k) >= 5 and (said[:5] == k[:5]) for k in keys)


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
            continue
        if params[index].kind != "array" and re.fullmatch(r"\[.*\]", raw.strip()):
            continue  # "in ascending order: ['Sam', 'Alice']": a list is no order
        value = parse_value(params[index].schema, raw, _kind)
        if value is not None:
            found.setdefault(params[index].name, []).insert(0, value)
            text = text[:start] + " " + text[end:]
    return found, text


_GENDER = re.compile(rf"\b(?:{'|'.join(sorted(_GENDERS))})\b", re.I)


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


def _listed_with(option: str, found: Sequence[str], text: str) -> bool:
    """Whether an option is said in one list with another option ("the status and scheduled
    trial date" for ``status`` and ``trial_date``): then it is asked, though the tool's own
    word."""
    others = [o for o in found if o != option]
    said = _said_form(option)
    return any(
        re.search(
            rf"{said}{_OPTION_JOIN}{_said_form(o)}|{_said_form(o)}{_OPTION_JOIN}{said}", text, re.I
        )
        for o in others
    )


def _scattered(param: _Param, text: str, found: Sequence[str]) -> list[str]:
    """More options of a list, each of several words said apart ("the location and the
    year when the park was established" for "Location" and "Established Year"), from words
    the options found do not say ("guitar" and the "lessons" of "violin lessons": no "Guitar
    Lessons")."""
    for option in found:
        text = compiled(_said_form(option), re.I).sub(" ", text)
    said = {_base(w) for w in words(text)}
    return [
        h
        for h in param.hints
        if h not in found and len(words(h)) > 1 and {_base(w) for w in words(h)} <= said
    ]


def _options_listed(found: Sequence[str], text: str) -> bool:
    """Whether two or more options of a list are said one after another ("the average price
    and ratings"): asked, though the tool's own words say them too."""
    if len(found) < 2:
        return False
    stems = [{_base(w) for w in words(h)} for h in found]
    said = [_base(w) for w in words(text)]
    at = [next((i for i, w in enumerate(said) if w in s), -1) for s in stems]
    gaps = [said[a + 1 : b] for a, b in pairwise(sorted(at))]
    return -1 not in at and all(g in ([], ["and"], ["or"]) for g in gaps)


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


_OPTION_JOIN = r"\s*(?:,|,?\s*and|,?\s*or|&)\s*(?:(?<=\s)[a-z]+\s+)?"
"""Between two options of one list: a join, and maybe one word ("and scheduled")."""


def _said_form(option: str) -> str:
    """A pattern for an option as said: its words' stems, joined by any space or "_"."""
    return r"\b" + r"\w*[\s_-]+".join(re.escape(stem(w)) for w in words(option)) + r"\w*"
