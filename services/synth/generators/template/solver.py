"""Stage 3 of the template generator: read a request and answer it with calls.

It sees only the query text and the candidate schemas. Quoted text, parentheses, dates and
clock times are masked first so their commas and "and"s split nothing; the query is cut into
sentences (one request each), a sentence picks the candidate whose name it states (verb
synonyms allowed) and whose required parameters it mentions, and is then cut into phrases
at ", ", " and ", " with ", " for "; each phrase carries one argument, found by the
parameter's label ("the check-in date …", "3 guests") and parsed by the parameter's type.
A sentence no candidate fits well enough yields no call: that is how irrelevance reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.synth.calls import Call, Tool, parameters, tool_name
from services.synth.generators.template.phrases import (
    BOOL_FALSE,
    BOOL_TRUE,
    STOPWORDS,
    VERB_SYNONYMS,
    stem,
)
from services.synth.generators.template.scan import Masked, mask
from services.synth.surface import find_numbers, label, norm

__all__ = ["solve"]

_SENTENCE = re.compile(r"(?<=[.?!;])\s+")
_LEAD = re.compile(r"^\s*(?:also|then|after that|additionally|and|next)\b,?\s*", re.I)
_PHRASE = re.compile(r",\s*(?:(?:and|with|using|for)\s+)?|\s+(?:and|with|using|for)\s+", re.I)
_FILLER = re.compile(
    r"^\s*(?:(?:\b(?:the|its|a|an|set to|of|is|are|to|as|being|equal to)\b|[=:])\s*)+|"
    r"(?:[,.?!\s]|\b(?:please|as the|as|the)\b)*$",
    re.I,
)
_WORD = re.compile(r"[a-z0-9']+")
_TRUE = frozenset(w for p in BOOL_TRUE for w in p.split()) - {"turned"}
_FALSE = frozenset(w for p in BOOL_FALSE for w in p.split()) - {"turned"}
_PREP = re.compile(r"^\s*(?:for|about|regarding|in|on|of|at)\s+", re.I)
_THRESHOLD = 0.75


@dataclass(frozen=True)
class _Param:
    name: str
    schema: Mapping[str, Any]
    pattern: re.Pattern[str]
    required: bool
    subs: tuple[_Param, ...]


@dataclass(frozen=True)
class _Spec:
    tool: Tool
    name: str
    words: tuple[str, ...]
    verb: re.Pattern[str] | None
    said: re.Pattern[str]
    params: tuple[_Param, ...]


_SPECS: dict[int, tuple[Tool, _Spec]] = {}


def _param(name: str, schema: Mapping[str, Any], required: bool) -> _Param:
    words = label(name).split()
    alternatives = [r"[\s_-]+".join(map(re.escape, words))]
    if words[:2] == ["number", "of"] and len(words) > 2:
        alternatives.append(r"[\s_-]+".join(map(re.escape, words[2:])))
    pattern = re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.I)
    item = schema.get("items", {}) if schema.get("type") == "array" else schema
    props = item.get("properties", {}) if item.get("type") == "object" else {}
    needed = set(item.get("required", ()))
    subs = tuple(_param(k, v, k in needed) for k, v in props.items())
    return _Param(name, schema, pattern, required, subs)


def _spec(tool: Tool) -> _Spec:
    cached = _SPECS.get(id(tool))
    if cached is not None and cached[0] is tool:
        return cached[1]
    name = tool_name(tool)
    words = tuple(label(name).split())
    synonyms = VERB_SYNONYMS.get(words[0], ())
    verb = re.compile(r"\b(?:" + "|".join(map(re.escape, synonyms)) + r")\b", re.I)
    schema = parameters(tool)
    required = set(schema.get("required", ()))
    params = tuple(_param(k, v, k in required) for k, v in schema.get("properties", {}).items())
    said = re.compile(r"\b(?:" + "|".join(map(re.escape, (*words, *synonyms))) + r")\w*", re.I)
    spec = _Spec(tool, name, words, verb if synonyms else None, said, params)
    _SPECS[id(tool)] = (tool, spec)
    return spec


def solve(query: str, tools: Sequence[Tool]) -> tuple[Call, ...]:
    """The calls that answer ``query`` from ``tools`` (none when no candidate fits)."""
    specs = [_spec(t) for t in tools]
    masked = mask(query)
    calls: list[Call] = []
    for sentence in _SENTENCE.split(masked.text):
        sentence = _LEAD.sub("", sentence)
        if not sentence.strip():
            continue
        call = _answer(sentence, specs, masked)
        if call is not None:
            calls.append(call)
    return tuple(calls)


def _answer(sentence: str, specs: Sequence[_Spec], masked: Masked) -> Call | None:
    lower = sentence.lower()
    stems = {stem(w) for w in _WORD.findall(lower)}
    best: tuple[float, int, int] | None = None
    chosen: tuple[_Spec, dict[str, Any]] | None = None
    for spec in specs:
        hits = sum(stem(w) in stems for w in spec.words[1:])
        hits += stem(spec.words[0]) in stems or bool(spec.verb and spec.verb.search(lower))
        coverage = hits / len(spec.words)
        if coverage < _THRESHOLD:
            continue
        arguments = _arguments(sentence, spec, masked)
        if any(p.required and p.name not in arguments for p in spec.params):
            continue
        score = (coverage, hits, len(arguments))
        if best is None or score > best:
            best, chosen = score, (spec, arguments)
    if chosen is None:
        return None
    return Call(chosen[0].name, chosen[1])


def _arguments(sentence: str, spec: _Spec, masked: Masked) -> dict[str, Any]:
    phrases = _PHRASE.split(sentence[_request_end(sentence, spec) :])
    head = phrases[0]
    out: dict[str, Any] = {}
    last: _Param | None = None
    for index, phrase in enumerate(phrases):
        param, rest = _labelled(phrase, spec.params, out)
        if param is not None:
            value = _value(param, rest, masked)
            if value is not None:
                out[param.name] = value
                last = param
            continue
        if last is not None and last.schema.get("type") == "array":
            item = _value(last, phrase, masked)
            if item:
                out[last.name] = out[last.name] + item
                continue
        residual = _residual(head if index == 0 else phrase, spec)
        free = [p for p in spec.params if p.required and p.name not in out and _plain(p)]
        if residual and free:
            out[free[0].name] = masked.unmask(residual).strip('"')
    return out


def _request_end(sentence: str, spec: _Spec) -> int:
    """Where the request's own wording ("look for products") ends and its arguments begin:
    after the first run of the function's words that covers them all (or stops early)."""
    end, covered = -1, set()
    stems = [stem(w) for w in spec.words]
    for match in spec.said.finditer(sentence):
        if end >= 0 and match.start() > end + 12:
            break
        end = match.end()
        said = stem(match[0])
        covered.add(stems.index(said) if said in stems else 0)
        if len(covered) == len(stems):
            break
    return max(end, 0)


def _labelled(
    phrase: str, params: Sequence[_Param], taken: Mapping[str, Any]
) -> tuple[_Param | None, str]:
    """The parameter whose label this phrase carries (the longest), and the phrase without it."""
    found: tuple[int, _Param, re.Match[str]] | None = None
    for param in params:
        if param.name in taken and param.schema.get("type") != "array":
            continue
        match = param.pattern.search(phrase)
        if match and (found is None or match.end() - match.start() > found[0]):
            found = (match.end() - match.start(), param, match)
    if found is None:
        for param in params:  # an enum value said without its label
            fits = param.name not in taken and "enum" in param.schema
            if fits and _enum(param.schema, phrase) is not None:
                return param, phrase
        return None, phrase
    match = found[2]
    return found[1], phrase[: match.start()] + " " + phrase[match.end() :]


def _plain(param: _Param) -> bool:
    s = param.schema
    return s.get("type") == "string" and "enum" not in s and "format" not in s


def _residual(phrase: str, spec: _Spec) -> str:
    """What a phrase says beyond the request's own wording: an unlabelled leading value."""
    phrase = _PREP.sub("", phrase)
    phrase = _FILLER.sub("", phrase).strip()
    words = {stem(w) for w in _WORD.findall(phrase.lower())}
    if not phrase or words <= STOPWORDS | {stem(w) for w in spec.words}:
        return ""
    return phrase


def _value(param: _Param, text: str, masked: Masked) -> Any:
    schema = param.schema
    kind = schema.get("type")
    if kind == "array":
        return _items(param, text, masked)
    if kind == "object":
        inner = masked.groups(text)
        return _object(param.subs, inner[0], masked) if inner else None
    if kind == "boolean":
        words = set(_WORD.findall(text.lower()))
        if words & _TRUE:
            return True
        return False if words & _FALSE else None
    if kind in ("integer", "number"):
        numbers = find_numbers(text)
        if not numbers:
            return None
        number = numbers[0][2]
        if kind == "integer":
            return int(number) if number.is_integer() else None
        return float(number)
    if "enum" in schema:
        return _enum(schema, text)
    return _string(schema, text, masked)


def _enum(schema: Mapping[str, Any], text: str) -> str | None:
    said = f" {norm(text)} "
    options = sorted(schema["enum"], key=lambda v: -len(str(v)))
    for option in options:
        if f" {norm(str(option))} " in said:
            return option
    return None


def _string(schema: Mapping[str, Any], text: str, masked: Masked) -> str | None:
    fmt = schema.get("format")
    if fmt == "date":
        dates = masked.dates(text)
        return dates[0] if dates else None
    if fmt == "date-time":
        stamps = masked.stamps(text)
        return stamps[0] if stamps else None
    if "pattern" in schema and masked.times(text):
        return masked.times(text)[0]
    quoted = masked.quotes(text)
    if quoted:
        return quoted[0]
    raw = _FILLER.sub("", masked.unmask(text)).strip()
    return raw or None


def _items(param: _Param, text: str, masked: Masked) -> list[Any]:
    item = param.schema.get("items", {})
    kind = item.get("type")
    if kind == "object":
        return [_object(param.subs, g, masked) for g in masked.groups(text)]
    if kind in ("integer", "number"):
        numbers = [n for _, _, n in find_numbers(text)]
        return [int(n) if kind == "integer" else n for n in numbers]
    if "enum" in item:
        value = _enum(item, text)
        return [value] if value is not None else []
    if item.get("format") == "date":
        return masked.dates(text)
    quoted = masked.quotes(text)
    if quoted:
        return quoted
    raw = _FILLER.sub("", masked.unmask(text)).strip()
    return [raw] if raw else []


def _object(subs: Sequence[_Param], inner: str, masked: Masked) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for phrase in re.split(r",\s*", inner):
        param, rest = _labelled(phrase, subs, out)
        if param is not None:
            value = _value(param, rest, masked)
            if value is not None:
                out[param.name] = value
    return out
