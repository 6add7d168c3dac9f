"""Calls across the asks of one request: a follow-up that says "the same" or "these years"
reuses what earlier calls set, a call that lacks a required value takes it from another
function's call, and calls that only set the scene are dropped."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, UnknownType

from services.synth.calls import Call, parameters
from services.synth.generators.template.mentions import words
from services.synth.generators.template.phrases import STOPWORDS
from services.synth.generators.template.specs import _Tool
from services.synth.surface import label

_FORMATS = Draft202012Validator.FORMAT_CHECKER

_BACK = re.compile(r"\b(?:these|those|both|each of them|the same)\s+(?:\w+\s+)?\w+", re.I)


def _each_of(spec: _Tool, new: list[Call], text: str, earlier: Sequence[Call]) -> list[Call]:
    """An ask that refers back to several values ("the GDP in these years", "in those same
    years") and lacks that required value: one call for each value the calls just before
    (of another function) set, in their order."""
    if len(new) != 1 or not _BACK.search(text):
        return new
    missing = [n for n, _, needed in spec.props if needed and n not in new[0].arguments]
    before = _run_before(earlier, spec.name)
    for name in missing:
        found = [c.arguments[name] for c in before if name in c.arguments]
        unique = [v for i, v in enumerate(found) if v not in found[:i]]
        if len(unique) > 1:
            return [Call(spec.name, {**new[0].arguments, name: v}) for v in unique]
    return new


def _run_before(earlier: Sequence[Call], name: str) -> list[Call]:
    """The calls just before, of one function other than ``name``, in their order."""
    run: list[Call] = []  # nearest first
    for call in reversed(earlier):
        if call.name == name or (run and call.name != run[-1].name):
            break
        run.append(call)
    return run[::-1]


_SAME = re.compile(
    r"\b(?:the same|same|again|repeat|likewise|similar|similarly|once more|this time|"
    r"what if|what about|how about|if (?:we|I)\b(?!\s+(?:can|could|may|might)\b))\b",
    re.I,
)


_THESE = re.compile(r"\b(?:these|those|all)\s+(?:\w+\s+)?\w+s\b|\b(?:them|each of them)\b", re.I)
"""What points back at several asks ("repeat these calculations", "all those analyses")."""


def _same_again(
    new: list[Call],
    text: str,
    earlier: Sequence[Call],
    first: Sequence[Call] = (),
    first_text: str = "",
) -> list[Call]:
    """A follow-up that says "the same" ("then do the same for Paris", "fetch it again in
    genbank format", "fetch it once more but now with …") keeps what the calls of the first
    ask of that function (``first``; else its first call) set and it does not restate: each
    such variant varies the first ask, not the variant before it. One that points back at
    several ("repeat these calculations for …") varies every earlier call of it. A value
    the variant says in the words the first ask (``first_text``) said one in is new (see
    :func:`_restated`)."""
    if not new or not _SAME.search(text):
        return new
    mine = [c for c in earlier if c.name == new[0].name]
    bases = mine if _THESE.search(text) else [c for c in first if c.name == new[0].name]
    bases = bases or mine[:1]
    out: list[Call] = []
    for call in (
        Call(c.name, {**b.arguments, **_restated(first_text, text, b.arguments), **c.arguments})
        for c in new
        for b in _agreeing(bases, c)
    ):
        if call not in out:
            out.append(call)
    return out or new


def _agreeing(bases: Sequence[Call], call: Call) -> list[Call]:
    """The calls a variant call varies: those that share a value with it ("… for Japan and
    India. How would these change with a rate of 1.5% for Japan and 2.1% for India?": each
    country's own call), else all."""
    shared = [b for b in bases if any(b.arguments.get(k) == v for k, v in call.arguments.items())]
    return shared or list(bases)


def _restated(first_text: str, text: str, arguments: Mapping[str, Any]) -> dict[str, str]:
    """The text values a variant says in the same two words the first ask said them in
    ("located in a vacuum", then "this time located in air"): the word after those words,
    for that parameter."""
    out: dict[str, str] = {}
    for key, value in arguments.items():
        if not isinstance(value, str) or not first_text:
            continue
        said = re.search(rf"(\w+\s+\w+)\s+{_ARTICLE}{re.escape(value)}\b", first_text, re.I)
        if said is None or set(words(said[1])) <= STOPWORDS:
            continue
        again = re.search(rf"\b{re.escape(said[1])}\s+{_ARTICLE}([a-z]+)\b", text, re.I)
        new = again[1].lower() if again else ""
        if new and new != value.lower() and new not in STOPWORDS and not _SAME.fullmatch(new):
            out[key] = again[1]  # "serve the same type of food": no new value
    return out


_ARTICLE = r"(?:(?:a|an|the)\s+)?"


def _inherit(calls: list[Call], specs: Sequence[_Tool]) -> list[Call]:
    """A call that lacks a required value takes it from an earlier call of another function
    that set a parameter of the same name ("the history of account 0012 … also its
    balance"); a call with no value of its own also from a later one."""
    required = {s.name: [n for n, _, needed in s.props if needed] for s in specs}
    props = {s.name: {n: schema for n, schema, _ in s.props} for s in specs}
    out: list[Call] = []
    for index, call in enumerate(calls):
        missing = [n for n in required.get(call.name, []) if n not in call.arguments]
        others = list(reversed(out))  # the nearest before first
        if not call.arguments:  # "the median and the variance of 3, 4, 5": the median's
            others += calls[index + 1 :]
        known: dict[str, Any] = {}
        for other in (c for c in others if c.name != call.name):
            for key, value in other.arguments.items():
                known.setdefault(key, value)
        taken = {n: known[n] for n in missing if n in known}
        taken.update(_by_role([n for n in missing if n not in taken], out, call.name))
        taken.update(_option_before([n for n in missing if n not in taken], out, props[call.name]))
        taken.update(_named_before(call, out))
        out.append(Call(call.name, {**call.arguments, **taken}) if taken else call)
    return out


def _option_before(
    missing: list[str], before: Sequence[Call], schemas: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """A required option the ask lacks that the call just before picked among its own
    options ("Find the overview about the Battle of Waterloo and the Treaty of
    Tordesillas": the overview of each)."""
    if not before:
        return {}
    taken: dict[str, Any] = {}
    for name in missing:
        schema = schemas.get(name, {})
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        offered = {str(o).lower() for o in (schema.get("enum") or (items or {}).get("enum") or ())}
        for value in before[-1].arguments.values():
            said = value if isinstance(value, list) else [value]
            if offered and said and all(str(v).lower() in offered for v in said):
                taken[name] = list(said) if schema.get("type") == "array" else said[0]
                break
    return taken


def _named_before(call: Call, before: Sequence[Call]) -> dict[str, Any]:
    """A value that is only the common noun of a name an earlier call set ("the museum"
    after "Louvre Museum"): that name."""
    said = [v for c in before for v in c.arguments.values() if isinstance(v, str)]
    out: dict[str, Any] = {}
    for key, value in call.arguments.items():
        if not isinstance(value, str) or not re.fullmatch(r"[a-z]{3,}", value):
            continue
        named = [v for v in said if len(v.split()) > 1 and v.split()[-1].lower() == value]
        if len(set(named)) == 1:
            out[key] = named[0]
    return out


_TWIN = re.compile(r"(.*?)_?(\d)$")


def _by_role(missing: list[str], before: Sequence[Call], name: str) -> dict[str, Any]:
    """Required values an ask only points back to, by role: "the distance between these two
    locations" after a trip "from San Francisco to Palo Alto" (``start_point`` takes what
    ``start_location`` set), "the time difference between the two cities" after the time in
    Beijing and in Tokyo (``city_1``, ``city_2`` take the places the calls before set)."""
    run = _run_before(before, name)
    taken: dict[str, Any] = {}
    for want in missing:
        role = label(want).split()
        for call in run[-1:]:
            for key, value in call.arguments.items():
                if len(role) > 1 and label(key).split()[0] == role[0] and isinstance(value, str):
                    taken.setdefault(want, value)
    twins = [n for n in missing if n not in taken and _TWIN.fullmatch(n)]
    if len(twins) < 2 or len({_TWIN.fullmatch(n)[1] for n in twins}) != 1:
        return taken
    for key in dict.fromkeys(k for c in run for k in c.arguments):
        values = [c.arguments[key] for c in run if isinstance(c.arguments.get(key), str)]
        unique = list(dict.fromkeys(values))
        if len(unique) == len(twins) == len(run):
            ordered = sorted(twins, key=lambda n: _TWIN.fullmatch(n)[2])
            return {**taken, **dict(zip(ordered, unique, strict=True))}
    return taken


def _complete_calls(calls: list[Call], specs: Sequence[_Tool]) -> list[Call]:
    """Without the calls that lack a required value when another call of the same function
    has them all: a sentence that only sets the scene ("two triangles") is no call."""
    required = {s.name: {n for n, _, needed in s.props if needed} for s in specs}

    def whole(call: Call) -> bool:
        return required.get(call.name, set()) <= set(call.arguments)

    complete = {c.name for c in calls if whole(c)}
    return [c for c in calls if whole(c) or c.name not in complete]


def _fitting_calls(calls: list[Call], specs: Sequence[_Tool]) -> list[Call]:
    """No call at all when not one call holds only values its schema takes: a request none
    of the tools fits ("order these books" read by a fine payment whose member id is a
    UUID) reads as no call, not as a call stuffed with whatever was said. A missing
    required value alone refuses nothing (a flag left unsaid takes its default)."""
    schemas = {s.name: parameters(s.tool) for s in specs}
    return calls if any(_takes(schemas.get(c.name), c) for c in calls) else []


def _takes(schema: Mapping[str, Any] | None, call: Call) -> bool:
    if schema is None:
        return True
    schema = {k: v for k, v in schema.items() if k != "required"}  # an unsaid flag: default
    try:
        validator = Draft202012Validator(schema, format_checker=_FORMATS)
        return validator.is_valid(call.arguments)
    except (SchemaError, UnknownType, TypeError, ValueError):  # BFCL's "float": no say
        return True
