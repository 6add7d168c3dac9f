"""A boolean parameter's value: a flag said by its words or another form of them, off when
negated or said as less of it, stated of what the request is about, or asked both ways."""

from __future__ import annotations

import re

from services.synth.generators.template.mentions import words
from services.synth.generators.template.phrases import stem
from services.synth.generators.template.specs import _Param, _stems
from services.synth.surface import label

_NEGATION = frozenset("not no without don't dont exclude excluding never".split())


_GENERIC = frozenset("include is get flag whether enable use show".split())


_BOILERPLATE = frozenset(
    "if not no default false true provided specified otherwise none null optional".split()
)
"""Words of a schema's wording of its own defaults ("if not provided, defaults to false"),
never what a request says to set a flag."""


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
