"""Stage 3 of the template generator: read a request forward, against the candidate schemas.

It sees the query, the candidate tools and (when the example pins one) the reference date;
never the ground truth, and it knows nothing of how the realiser words things. It reads:

1. **Which functions.** The query is cut into clauses (sentences, "also", "then",
   "secondly"…). Each clause scores every tool by the words it shares with the tool's name,
   description and parameter names, weighted by how rare a word is among the candidates
   (IDF); a clause with no clear winner belongs to the previous clause's function.
2. **Which values.** :func:`~services.synth.generators.template.mentions.find_mentions`
   lists what could be a value (numbers with their units, dates, times, quoted text,
   lists, codes, names). Each mention goes to the parameter it fits best: its type and
   format first, then the words around it against the parameter's name and description
   ("5 Ampere" ~ "the current in Amperes"). Enum values, and examples a description gives
   ("e.g. vegan, gluten-free"), are found in the text directly; flags by their words, negated
   by "not"/"without".
3. **How many calls.** A parameter that receives several coordinated values ("Oslo and
   Bergen", "20 and 15 minutes respectively") makes one call per value; the other
   parameters are shared, or zipped when they received as many values. Array parameters
   take every value they receive as one list.

A query in which no tool scores at all yields no call: that is how irrelevance reads.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from itertools import pairwise
from typing import Any

from services.synth.calls import Call, Tool, parameters, tool_name
from services.synth.generators.template.fields import parse_value, split_fields
from services.synth.generators.template.mentions import Mention, find_mentions, words
from services.synth.generators.template.phrases import ASK_WORDS, STOPWORDS, VERB_SYNONYMS, stem
from services.synth.generators.template.wording import KIND_WORDS, qualifiers, sign, unit_said
from services.synth.surface import label

__all__ = ["read"]

_SPAN_WORDS = (
    r"(?:\d|(?:few|couple|several|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    r"twenty|hours?|days?|weeks?|months?|quarters?|years?|decades?|century|centuries|"
    r"seasons?|nights?|rounds?|games?|matches)\b)"
)
"""What follows "the last" when it says a span of time ("the last 5 rounds"), not the last
of several asks."""
_CLAUSE = re.compile(
    r"(?<=[.?!])\s+|\s*\b(?:also|additionally|secondly|thirdly|finally|lastly|after that|"
    r"and then|then|furthermore|moreover|plus)\b,?\s*|"
    r",?\s*(?:and\s+)?(?=\bthe\s+(?:second|third|fourth|fifth|other|"
    r"last(?!\s+" + _SPAN_WORDS + r"))\b)",
    re.I,
)
_EXAMPLES = re.compile(
    r"(?:e\.g\.|eg\.|for example|such as|options include|options are|one of)[:,]?\s*"
    r"(.+?)(?:\.\s|\.$|\)|$)",
    re.I,
)
_QUOTED_HINT = re.compile(r"'([^']{1,40})'|\"([^\"]{1,40})\"")
_NEGATION = frozenset("not no without don't dont exclude excluding never".split())
_COORD = re.compile(
    r"^[\s,]*(?:and|or|&|vs\.?|versus|,|then|while|as well as)?[\s,]*(?:\w+\s+){0,6}$", re.I
)
_EXTRA_STOP = ASK_WORDS
_PLACE = frozenset("location city place area region country state address town".split())
_PLACE_PREP = frozenset("in near at around".split())
_DATE_FORMS = (
    ("yyyy-mm-dd", "%Y-%m-%d"), ("mm-dd-yyyy", "%m-%d-%Y"), ("dd-mm-yyyy", "%d-%m-%Y"),
    ("mm/dd/yyyy", "%m/%d/%Y"), ("dd/mm/yyyy", "%d/%m/%Y"), ("yyyy/mm/dd", "%Y/%m/%d"),
)  # fmt: skip
_PART = r"(y{2,4}|mm|dd|year|month|day)"
_DATE_SHAPE = re.compile(rf"\b{_PART}([-/.]){_PART}\2{_PART}\b")
_FLOOR = 1.5
"""The least IDF-weighted word overlap for a clause to ask for a tool among several
(lower, and a request no candidate serves still finds one: how irrelevance is read)."""
_GENERIC = frozenset("include is get flag whether enable use show".split())
_BOILERPLATE = frozenset(
    "if not no default false true provided specified otherwise none null optional".split()
)
"""Words of a schema's wording of its own defaults ("if not provided, defaults to false"),
never what a request says to set a flag."""
_COMPAT: dict[str, dict[str, float]] = {
    "integer": {"number": 1.0, "percent": 0.6, "spelled": 0.5},
    "number": {"number": 1.0, "percent": 1.0, "spelled": 0.5},
    "string": {
        "quoted": 1.0,
        "name": 0.8,
        "code": 0.8,
        "date": 0.7,
        "time": 0.7,
        "phrase": 0.4,
        "number": 0.15,
    },
}


@dataclass
class _Param:
    name: str
    schema: Mapping[str, Any]
    kind: str
    required: bool
    stems: dict[str, float]
    hints: tuple[str, ...]
    shared: frozenset[str] = frozenset()
    exclusive: bool = False
    values: list[Any] = field(default_factory=list)
    spans: list[Mention] = field(default_factory=list)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS and w not in _EXTRA_STOP}


def _kind(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return {"float": "number", "dict": "object", "tuple": "array", "any": "string"}.get(kind, kind)


def _hints(schema: Mapping[str, Any]) -> tuple[str, ...]:
    """Values a parameter's description offers as examples ("e.g. vegan, gluten-free")."""
    found: list[str] = []
    text = str(schema.get("description", ""))
    for m in _EXAMPLES.finditer(text):
        found += [p.strip(" '\"") for p in re.split(r",|\bor\b|\band\b|(?<!\d)/|/(?!\d)", m[1])]
    found += [a or b for a, b in _QUOTED_HINT.findall(text)]
    items = schema.get("items", {}) if isinstance(schema.get("items"), Mapping) else {}
    enum = schema.get("enum") or items.get("enum") or ()
    found += [str(v) for v in enum]
    return tuple(dict.fromkeys(h for h in found if h and len(h) <= 40 and len(h.split()) <= 4))


def _param(name: str, schema: Mapping[str, Any], required: bool) -> _Param:
    key = (name, id(schema))
    cached = _PARAMS.get(key)
    if cached is None or cached[0] is not schema:
        cached = (schema, _new_param(name, schema, required))
        if len(_PARAMS) > 50_000:  # schemas of many catalogs: start over rather than grow
            _PARAMS.clear()
        _PARAMS[key] = cached
    base = cached[1]
    return _Param(base.name, schema, base.kind, required, base.stems, base.hints)


_PARAMS: dict[tuple[str, int], tuple[Mapping[str, Any], _Param]] = {}


def _new_param(name: str, schema: Mapping[str, Any], required: bool) -> _Param:
    weights: dict[str, float] = {}
    if re.search(
        r"usd|dollar|price|cost|fare|amount|budget", str(schema.get("description", "")), re.I
    ):
        weights["usd"] = 1.0
    for word in _stems(str(schema.get("description", ""))):
        weights[word] = 1.0
    for word in _stems(label(name)):
        weights[word] = 2.0
    return _Param(name, schema, _kind(schema), required, weights, _hints(schema))


@dataclass(frozen=True)
class _Tool:
    tool: Tool
    name: str
    words: dict[str, float]
    props: tuple[tuple[str, Mapping[str, Any], bool], ...]


@lru_cache(maxsize=4096)
def _tool_words(name: str, description: str, params: tuple[str, ...]) -> dict[str, float]:
    weights: dict[str, float] = {}
    for word in _stems(" ".join(label(p) for p in params)):
        weights[word] = 0.5
    for word in _stems(description):
        weights[word] = 1.0
    verb, *rest = label(re.sub(r"[.]", "_", name)).split() or [""]
    for synonym in VERB_SYNONYMS.get(verb, ()):
        for word in _stems(synonym):
            weights[word] = max(weights.get(word, 0.0), 1.0)
    for word in _stems(" ".join([verb, *rest])):
        weights[word] = 2.0
    return weights


def _tool(tool: Tool) -> _Tool:
    schema = parameters(tool)
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    function = tool["function"]
    weights = _tool_words(tool_name(tool), str(function.get("description", "")), tuple(props))
    entries = tuple((k, v, k in required) for k, v in props.items() if isinstance(v, Mapping))
    return _Tool(tool, tool_name(tool), weights, entries)


def read(query: str, tools: Sequence[Tool], reference: date | None = None) -> tuple[Call, ...]:
    """The calls that answer ``query`` from ``tools`` (none when no tool fits)."""
    specs = [_tool(t) for t in tools]
    if not specs or not query.strip():
        return ()
    query = _unquoted_names(_unwrapped(query), specs)
    groups = _route(query, specs)
    calls: list[Call] = []
    for spec, text in groups:
        new = _same_again(_calls(spec, text, reference), text, calls)
        calls.extend(_each_of(spec, new, text, calls))
    return tuple(_complete_calls(_inherit(calls, specs), specs))


_BACK = re.compile(r"\b(?:these|those|both|each of them|the same)\s+(?:\w+\s+)?\w+", re.I)


def _each_of(spec: _Tool, new: list[Call], text: str, earlier: Sequence[Call]) -> list[Call]:
    """An ask that refers back to several values ("the GDP in these years", "in those same
    years") and lacks that required value: one call for each value the calls just before
    (of another function) set, in their order."""
    if len(new) != 1 or not _BACK.search(text):
        return new
    missing = [n for n, _, needed in spec.props if needed and n not in new[0].arguments]
    before = []
    for call in reversed(earlier):
        if call.name == spec.name or (before and call.name != before[-1].name):
            break
        before.append(call)
    for name in missing:
        found = [c.arguments[name] for c in reversed(before) if name in c.arguments]
        unique = [v for i, v in enumerate(found) if v not in found[:i]]
        if len(unique) > 1:
            return [Call(spec.name, {**new[0].arguments, name: v}) for v in unique]
    return new


def _unwrapped(query: str) -> str:
    """A request wrapped whole in double quotes is the same request: no quoted value."""
    said = query.strip()
    if len(said) > 2 and said[0] + said[-1] in ('""', "“”") and '"' not in said[1:-1]:
        return said[1:-1]
    return query


_NAMED = re.compile(r"'([\w.]+)'|\"([\w.]+)\"|(?<![\w.])([A-Za-z]\w*[._][\w.]*\w)")


def _unquoted_names(query: str, specs: Sequence[_Tool]) -> str:
    """A candidate function named in the query ("use the 'prob_dist.binomial' function")
    as its words: it says which tool, it is no value."""
    flat = {re.sub(r"[^a-z0-9]", "", s.name.lower()): s.name for s in specs}

    def said(m: re.Match[str]) -> str:
        name = flat.get(re.sub(r"[^a-z0-9]", "", next(g for g in m.groups() if g).lower()))
        return label(re.sub(r"[.]", "_", name)) if name else m[0]

    return _NAMED.sub(said, query)


_SAME = re.compile(r"\b(?:the same|same|again|repeat|likewise|similarly)\b", re.I)


def _same_again(new: list[Call], text: str, earlier: Sequence[Call]) -> list[Call]:
    """A follow-up that says "the same" ("then do the same for Paris", "fetch it again in
    genbank format") keeps what the previous call of that function set and it does not
    restate."""
    if not new or not _SAME.search(text):
        return new
    before = next((c for c in reversed(earlier) if c.name == new[0].name), None)
    if before is None:
        return new
    return [Call(c.name, {**before.arguments, **c.arguments}) for c in new]


def _inherit(calls: list[Call], specs: Sequence[_Tool]) -> list[Call]:
    """A call that lacks a required value takes it from an earlier call of another function
    that set a parameter of the same name ("the history of account 0012 … also its
    balance"); a call with no value of its own also from a later one."""
    required = {s.name: [n for n, _, needed in s.props if needed] for s in specs}
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
        out.append(Call(call.name, {**call.arguments, **taken}) if taken else call)
    return out


def _complete_calls(calls: list[Call], specs: Sequence[_Tool]) -> list[Call]:
    """Without the calls that lack a required value when another call of the same function
    has them all: a sentence that only sets the scene ("two triangles") is no call."""
    required = {s.name: {n for n, _, needed in s.props if needed} for s in specs}

    def whole(call: Call) -> bool:
        return required.get(call.name, set()) <= set(call.arguments)

    complete = {c.name for c in calls if whole(c)}
    return [c for c in calls if whole(c) or c.name not in complete]


def _route(query: str, specs: Sequence[_Tool]) -> list[tuple[_Tool, str]]:
    """Clauses grouped by the tool each one asks for, in order of first mention."""
    df: dict[str, int] = {}
    for spec in specs:
        for word in spec.words:
            df[word] = df.get(word, 0) + 1
    idf = {w: math.log(1 + len(specs) / n) for w, n in df.items()}
    clauses = [
        piece
        for c in _CLAUSE.split(query)
        if c and c.strip(" ,.")
        for part in _verb_split(c, specs)
        if part.strip(" ,.")
        for piece in _ask_split(part, specs, idf)
    ]
    owners = [_owner(clause, specs, idf) for clause in clauses]
    if all(o is None for o in owners):
        whole = _asked(query)
        scores = [sum(s.words[w] * idf[w] for w in whole if w in s.words) for s in specs]
        best = max(range(len(specs)), key=lambda i: scores[i])
        if scores[best] < (0.5 if len(specs) == 1 else _FLOOR):
            return []
        owners = [best] * len(clauses)
    segments: list[tuple[int, list[str]]] = []
    pending: list[str] = []
    for index, clause in enumerate(clauses):
        owner = owners[index]
        if owner is None and any(o is not None for o in owners[index:]):
            pending.append(clause)  # context belongs to the next ask
            continue
        if owner is None and segments and not pending and _SAME.search(clause):
            owner = segments[-1][0]  # "then do the same for …": the previous ask again
        joins = segments and segments[-1][0] == owner and not pending
        apart = owner is not None and (_complete(specs[owner], clause) or _SAME.search(clause))
        if owner is None or (joins and not apart):
            segments[-1][1].append(clause)
            continue
        segments.append((owner, [*pending, clause]))
        pending = []
    return [(specs[i], " ".join(parts)) for i, parts in segments]


def _asked(text: str) -> set[str]:
    """The words a request asks with; a currency said by name ("500 US dollars") also
    says "currency"."""
    said = _stems(text)
    return said | {"currency"} if _CURRENCY.search(text) else said


def _owner(clause: str, specs: Sequence[_Tool], idf: Mapping[str, float]) -> int | None:
    """The tool a clause clearly asks for (by its IDF-weighted shared words), if any."""
    said = _asked(clause)
    scores = [sum(s.words[w] * idf[w] for w in said if w in s.words) for s in specs]
    best = max(range(len(specs)), key=lambda i: scores[i])
    ranked = sorted(scores, reverse=True)
    floor = 1.0 if len(specs) == 1 else _FLOOR
    clear = scores[best] >= floor and (len(ranked) == 1 or scores[best] > ranked[1] * 1.15)
    return best if clear else None


_ANOTHER = re.compile(r",?\s+and\s+(?=(?:another|one more|a second)\s+[a-z])", re.I)
_ASK_JOIN = re.compile(r"(,?\s+and\s+|,\s+)", re.I)
_GROUPED = re.compile(
    r"\"[^\"]{1,200}\"|“[^”]{1,200}”|(?<![A-Za-z])'[^']{1,200}'(?![A-Za-z])|\([^()]*\)|\[[^\[\]]*\]"
)


def _split_outside(pattern: re.Pattern[str], text: str) -> list[str]:
    """``pattern.split(text)`` (one capturing group) that never cuts inside quotes, brackets
    or parentheses (a quote around the whole text is none)."""
    whole = len(text.rstrip())
    grouped = [g.span() for g in _GROUPED.finditer(text) if g.span() != (0, whole)]
    out, start = [], 0
    for m in pattern.finditer(text):
        if any(a < m.start() < b for a, b in grouped):
            continue
        out += [text[start : m.start()], m[1]]
        start = m.end()
    return [*out, text[start:]]


def _ask_split(clause: str, specs: Sequence[_Tool], idf: Mapping[str, float]) -> list[str]:
    """A clause that asks several functions at once ("the median and variance of …",
    "temperature and humidity for Boston and precipitation for Rome") cut at each "and"
    whose sides ask different tools; a piece that asks none stays with the one before.
    "… and another flight from …" is a second ask when both sides ask a tool."""
    again = _ANOTHER.split(clause, maxsplit=1)
    if len(again) == 2 and all(_owner(p, specs, idf) is not None for p in again):
        return [*_ask_split(again[0], specs, idf), *_ask_split(again[1], specs, idf)]
    if len(specs) < 2:
        return [clause]
    split = _split_outside(_ASK_JOIN, clause)
    pieces, joins = split[::2], ["", *split[1::2]]
    if len(pieces) < 2:
        return [clause]
    owners = [_owner(p, specs, idf) for p in pieces]
    if len({o for o in owners if o is not None}) < 2:
        return [clause]
    merged: list[str] = []
    lead = ""  # pieces before the first ask belong to it
    for owner, piece, join in zip(owners, pieces, joins, strict=True):
        if owner is None:
            if merged:
                merged[-1] = f"{merged[-1]}{join}{piece}"
            else:
                lead = f"{lead}{join}{piece}"
            continue
        merged.append(f"{lead}{join if lead else ''}{piece}")
        lead = ""
    return merged


def _verb_split(clause: str, specs: Sequence[_Tool]) -> list[str]:
    """A clause cut before "and <verb>" when the verb is what a candidate function does
    ("the factorial of 8 and generate the primes"): two asks in one sentence."""
    verbs = _verbs(tuple(s.name for s in specs))
    if not verbs:
        return [clause]
    pattern = rf",?\s+and\s+(?=(?:{'|'.join(map(re.escape, verbs))})\b)"
    return re.split(pattern, clause, flags=re.I)


@lru_cache(maxsize=1024)
def _verbs(names: tuple[str, ...]) -> tuple[str, ...]:
    """The verbs the candidates' names start with, and what a user says instead."""
    found: set[str] = set()
    for name in names:
        words = label(name.rsplit(".", 1)[-1]).split()
        if words and len(set(names)) > 1:
            found.add(words[0])
            found.update(s for s in VERB_SYNONYMS.get(words[0], ()) if " " not in s)
    return tuple(sorted(found))


def _complete(spec: _Tool, clause: str) -> bool:
    """Whether a clause holds a value for each of the tool's required parameters (then it
    is a call of its own, not more values for the previous clause's call)."""
    required = sum(1 for _, _, needed in spec.props if needed)
    typed = [m for m in find_mentions(clause) if m.kind not in ("phrase", "spelled")]
    return len(typed) >= max(required, 1)


def _score(param: _Param, mention: Mention) -> float:
    kind = param.kind
    schema = param.schema
    if kind == "array":
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        kind = _kind(items or {})
        if mention.kind == "list":
            return 2.0
    compat = _COMPAT.get(kind, {}).get(mention.kind, 0.0)
    if not compat:
        return 0.0
    if (
        kind == "string"
        and mention.kind == "number"
        and re.search(r"(?:^|_)(?:id|number|code)$", param.name, re.I)
    ):
        compat = 0.9  # "patient with id 546382"
    if kind == "string" and mention.kind == "name":
        compat = _name_fit(param)
    if kind == "string" and re.search(r"(?:^|_)id$", param.name, re.I):
        compat = {"code": 1.0, "name": 0.6}.get(mention.kind, compat)  # "ID rs6034464"
    if kind == "integer" and mention.kind != "spelled" and not float(mention.value).is_integer():
        return 0.0
    fmt = schema.get("format")
    if fmt == "date-time":
        compat = {"datetime": 1.5, "quoted": 0.3}.get(mention.kind, 0.0)
    elif mention.kind == "date":
        compat = 1.5 if fmt == "date" or "date" in param.stems else compat
    if not compat:
        return 0.0
    context = 0.0
    if mention.before[-1:] and mention.before[-1] in _PLACE_PREP and param.stems.keys() & _PLACE:
        context += 1.0  # "in Brooklyn", "near Berlin" for a location
    if mention.kind == "name" and _names_itself(param, mention):
        context += 2.0  # "the Premier League" for a league, "Hilton Hotel" for a hotel
    for distance, word in enumerate(reversed(mention.before)):
        if word == "=" + param.name.lower():
            return compat * 100.0
        context += param.stems.get(stem(word), 0.0) / (1.0 + 0.5 * distance)
    for distance, word in enumerate(mention.after):
        context += param.stems.get(stem(word), 0.0) / (1.0 + 0.5 * distance)
    return compat * (1.0 + context)


def _names_itself(param: _Param, mention: Mention) -> bool:
    """Whether a name holds a word of the parameter's own name ("Orange County Court" for
    ``court``), other than the words every name parameter has ("name", "title")."""
    own = {stem(w) for w in words(label(param.name))} - {"name", "title", "id"}
    return bool(own & {stem(w) for w in words(mention.text)})


_ENTITY = frozenset(
    "name company person artist author team player title brand organization".split()
)
_CATEGORY = frozenset("type level format mode unit category status kind detail order".split())


def _name_fit(param: _Param) -> float:
    """How well a proper name fits a text parameter: best one that names something (a
    company, a city, a title), least one that picks a kind or a level of something."""
    said = {stem(w) for w in words(label(param.name))}
    if said & {stem(w) for w in _ENTITY}:
        return 1.0
    if said & {stem(w) for w in _CATEGORY}:
        return 0.5
    return 0.8


def _assign(
    params: Sequence[_Param], mentions: Sequence[Mention], text: str, nouns: frozenset[str]
) -> None:
    """Typed mentions first; for required text parameters still empty, the words that
    qualify one of the tool's nouns ("jazz events"), then bare phrases."""
    _match(params, [m for m in mentions if m.kind != "phrase"], text)
    empty = [p for p in params if p.required and not p.spans and p.kind == "string"]
    kinds = [p for p in empty if not p.stems.keys() & _PLACE]  # a place is no kind of thing
    if kinds:
        _match(kinds, qualifiers(text, nouns), text)
    for param in (p for p in kinds if not p.spans):  # "a single room" for ``room_type``
        own = {stem(w) for w in words(label(param.name))} - KIND_WORDS - nouns
        _match([param], qualifiers(text, frozenset(own)), text)
    empty = [p for p in empty if not p.spans]
    if empty:
        _match(empty, [m for m in mentions if m.kind == "phrase"], text)


def _match(params: Sequence[_Param], mentions: Sequence[Mention], text: str) -> None:
    """Mentions to parameters, best pairs first (ties: schema order, then text order).

    Round one gives each parameter at most one mention. Later rounds run the same matching
    on what is left, and keep a round's values only where they are coordinated with the
    same parameter's previous value ("Oslo and Bergen", "36 and 48, while Mary chose 60 and
    96"): that is one more call. Array parameters take every mention they win.
    """
    left = list(mentions)
    later = _run_members(left, text)
    for round_ in range(8):
        pairs = [
            (-score * (_listed(p, m, text) if round_ else 1.0), i, j)
            for i, p in enumerate(params)
            for j, m in enumerate(left)
            if (score := _score(p, m)) > 0.0
        ]
        pairs.sort()
        used_p: set[int] = set()
        used_m: set[int] = set()
        for _, i, j in pairs:
            param = params[i]
            if j in used_m or (i in used_p and param.kind != "array"):
                continue
            if not round_ and left[j].kind == "list" and any(m.kind == "list" for m in param.spans):
                continue
            if not round_ and id(left[j]) in later:  # "Bangladesh and India": one parameter's
                continue
            if not param.required and not _admissible(param, left[j]):
                continue
            if round_ and not _continues(param, left[j], text, left):
                continue
            param.spans.append(left[j])
            used_p.add(i)
            used_m.add(j)
        if not used_m:
            break
        left = [m for j, m in enumerate(left) if j not in used_m]
    for param in params:
        param.spans.sort(key=lambda m: m.start)


_LISTED = re.compile(r"\s*(?:,|,?\s*and|,?\s*or|&)\s*")


def _run_members(mentions: Sequence[Mention], text: str) -> set[int]:
    """The names after the first of a list of names joined by "and"/"or" ("in Bangladesh
    and India"): they wait for the parameter that takes the first ("Chicago, Illinois" is
    no such list)."""
    ordered = sorted(mentions, key=lambda m: m.start)
    return {
        id(b)
        for a, b in pairwise(ordered)
        if a.kind == b.kind == "name" and _ANDED.fullmatch(text[a.end : b.start])
    }


_ANDED = re.compile(r"\s*,?\s*(?:and|or|&)\s*")


def _listed(param: _Param, mention: Mention, text: str) -> float:
    """3 when ``mention`` follows ``param``'s last value in a plain list ("10, 20 and 30"):
    it is surely one more of the same; else 1."""
    said = [m for m in param.spans if m.end <= mention.start]
    last = max(said, key=lambda m: m.end, default=None)
    plain = last is not None and _LISTED.fullmatch(text[last.end : mention.start])
    return 3.0 if plain else 1.0


_JOIN = re.compile(r"(?:,|;|\band\b|\bor\b|&|\bvs\b|\bversus\b|\bwhile\b|\bthen\b|[.?!])", re.I)


_UNIT_LISTED = re.compile(r"\s*([A-Za-z]+)\s*(?:,|,?\s*and|,?\s*or)\s*")


def _continues(param: _Param, mention: Mention, text: str, left: Sequence[Mention]) -> bool:
    """Whether a later round may give ``param`` one more value: coordinated with its last
    one, and no value between them still unplaced that fits ``param`` as well (values of a
    list go in order: "10, 20 and 30 years")."""
    if not param.spans:
        return False
    if param.kind == "array":
        return True
    first = min(param.spans, key=lambda m: m.start)
    if mention.end <= first.start:  # "10 years and 20 years": 20 won the first round
        unit = _UNIT_LISTED.fullmatch(text[mention.end : first.start])
        return bool(unit) and first.after[:1] == (unit[1].lower(),)
    last = param.spans[-1]
    fit = _score(param, mention)
    skipped = any(
        last.end <= m.start < mention.start and _score(param, m) >= fit for m in left
    )
    return not skipped and _coordinated(text, last, mention)


def _coordinated(text: str, first: Mention, then: Mention) -> bool:
    gap = text[first.end : then.start]
    return bool(_JOIN.search(gap)) and len(gap.split()) <= 14


def _admissible(param: _Param, mention: Mention) -> bool:
    """An optional parameter takes a value only when the query ties it to the parameter."""
    if mention.kind == "phrase":
        return False
    if mention.kind == "spelled":  # "ten major events" for a count: only when tied
        return param.kind == "integer" and _counts(param, mention)
    if param.kind == "array" and mention.kind != "list":  # loose numbers: only when tied
        return _near(param, mention)
    if param.kind == "string" and mention.kind in ("number", "percent"):
        return False
    if mention.kind == "name":
        return _evidence(param, mention) and not _taken_words(param, mention)
    if param.kind == "string" and mention.kind in ("date", "time", "datetime"):
        return _evidence(param, mention)  # "on the dates 1 May and 2 May": not the exchange
    return True


def _taken_words(param: _Param, mention: Mention) -> bool:
    """Whether the only words tying a name to an optional parameter also name another one
    ("SNP" before a name, for ``species`` when ``snp_id`` is a parameter too)."""
    if mention.before[-1:] and mention.before[-1] in _PLACE_PREP and param.stems.keys() & _PLACE:
        return False  # "in China" for a country
    near = {stem(w) for w in mention.before} | {stem(w) for w in mention.after[:2]}
    tying = {w for w in near if w in param.stems}
    return bool(tying) and tying <= param.shared - {w for w, x in param.stems.items() if x >= 2}


_COUNTING = re.compile(r"\bnumber of\b|\bcount\b|\bhow many\b|\bquantity\b", re.I)


def _counts(param: _Param, mention: Mention) -> bool:
    """Whether a number word counts what ``param`` counts: the parameter is a count ("the
    number of events") and a word just after the number is in it ("ten major events")."""
    said = f"{label(param.name)} {param.schema.get('description', '')}"
    counted = {stem(w) for w in mention.after[:3]}
    return bool(_COUNTING.search(said)) and bool(counted & set(param.stems))


def _evidence(param: _Param, mention: Mention) -> bool:
    """Whether the query ties ``mention`` to ``param``: its form (a date for a date, a
    value matching the pattern) or the words around it."""
    fmt = param.schema.get("format")
    if (mention.kind == "date" and fmt == "date") or (mention.kind == "datetime" and fmt):
        return True
    pattern = param.schema.get("pattern")
    if pattern and re.fullmatch(str(pattern), str(mention.value)):
        return True
    return _near(param, mention)


def _near(param: _Param, mention: Mention, ahead: int = 2) -> bool:
    near = {stem(w) for w in mention.before} | {stem(w) for w in mention.after[:ahead]}
    return any(w in param.stems for w in near)


_IRREGULAR = {
    "children": "child", "people": "person", "men": "man", "women": "woman",
    "feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose",
}  # fmt: skip


def _base(word: str) -> str:
    """A word's stem without quotes around it, irregular plurals as their singular."""
    word = word.strip("'")
    return stem(_IRREGULAR.get(word, word))


def _found_hints(param: _Param, text: str) -> list[str]:
    """The hints the text says, in its order; words compared by their stems ("scenic
    views" says "Scenic View", "toll roads" says "tolls", "children" says "child"), without the
    quotes around them."""
    lowered = f" {' '.join(_base(w) for w in words(text))} "
    found = []
    for hint in sorted(param.hints, key=len, reverse=True):
        said = " ".join(_base(w) for w in words(hint))
        if said and f" {said} " in lowered:
            found.append((lowered.index(f" {said} "), hint))
            lowered = lowered.replace(f" {said} ", " \x00 ")
    return [h for _, h in sorted(found)]


def _capitalised(hint: str, text: str) -> bool:
    """Whether the text says ``hint`` as a name (every word capitalised, "Amazon rainforest"
    is not one) or in quotes: then it is a mention of its own."""
    if re.search(rf"['\"“]{re.escape(hint)}['\"”]", text, re.I):
        return True  # quoted: a mention too
    found = re.search(rf"\b{re.escape(hint)}\b", text, re.I)
    said = [w for w in found[0].split() if w[:1].isalpha()] if found else []
    return bool(said) and all(w[:1].isupper() for w in said)


def _own(param: _Param, hint: str) -> bool:
    """Whether a hint is one of the request's own words ("severe" in "severe weather alerts")."""
    return {stem(w) for w in words(hint)} <= param.shared


def _flag(param: _Param, text: str, loose: bool = False) -> bool | None:
    """A flag said by its words (name or description), off when negated just before;
    and by another form of its own name's words ("with details" for ``detailed``); ``loose``
    (a required flag must be set): also by words the tool shares with it, and by another
    form of any of its words ("multi-player" for ``multiplayer``)."""
    keys = {
        w
        for w in param.stems
        if w not in _GENERIC and w not in _BOILERPLATE and (loose or w not in param.shared)
    }
    named = {w.replace("_", "") for w in _stems(label(param.name))}
    if loose:
        keys |= named
    else:  # "with details" for ``detailed``: another form of the flag's own name
        named = {w for w in named - _GENERIC if w not in param.shared}
    forms = keys if loose else named
    tokens = words(text)
    for index, token in enumerate(tokens):
        said = stem(token)
        if said in keys or _same_word(said.replace("-", ""), forms):
            window = set(tokens[max(0, index - 4) : index])
            return not (window & _NEGATION)
    return None


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
    return mention.text


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
    """An ISO date in the format the parameter's description asks for ("MM-DD-YYYY")."""
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


def _calls(spec: _Tool, text: str, reference: date | None) -> list[Call]:
    params = [_param(n, s, r) for n, s, r in spec.props]
    tool_words = {w for w, weight in spec.words.items() if weight >= 1.0}
    for param in params:
        others = {w for p in params if p is not param for w in _stems(label(p.name))}
        param.shared = frozenset(tool_words | others)
        options = set(param.hints)
        param.exclusive = not any(options & set(p.hints) for p in params if p is not param)
    values, text = _labelled(params, text)
    for param in params:  # a value the description itself offers ("e.g. vegan") is said
        if param.name not in values and not _strict(param) and param.kind in ("string", "array"):
            hints = [h for h in _found_hints(param, text) if not _own(param, h)]
            hints = [h for h in hints if not _capitalised(h, text)]  # names are mentions
            if hints:
                values[param.name] = [hints] if param.kind == "array" else hints
                said = "|".join(re.escape(h) for h in hints)
                text = re.sub(rf"['\"“]?(?:{said})['\"”]?", " ", text, flags=re.I)
    rest = [p for p in params if p.name not in values]
    typed = [p for p in rest if p.kind != "boolean" and not _strict(p)]
    naming = _naming(spec)
    found = _not_options(params, find_mentions(text, reference, naming))
    found = [m for m in found if m.kind != "phrase" or stem(m.text.split()[0]) not in naming]
    mentions = _currencies(typed, _unplaced(typed, found), text)
    paired = _ends(typed, mentions, text)
    paired += _respective([p for p in typed if p not in paired], mentions, text)
    taken = {id(m) for p in paired for m in p.spans}
    free = [m for m in mentions if id(m) not in taken]
    _assign([p for p in typed if p not in paired], free, text, _nouns(spec))
    _order_twins(typed, mentions)
    for param in rest:
        found = _values(param, text) or unit_said(label(param.name), param.kind, text)
        if found:
            values[param.name] = found
    if not values and not params:
        return [Call(spec.name, {})]
    if _crossed(params, values, text):
        return [Call(spec.name, arguments) for arguments in _product(values)]
    count = max((len(v) for v in values.values()), default=1)
    calls = []
    for index in range(count):
        arguments = {}
        for name, found in values.items():
            if len(found) == count:
                arguments[name] = found[index]
            else:
                arguments[name] = found[
                    0 if not _scalar(params, name) else min(index, len(found) - 1)
                ]
        calls.append(Call(spec.name, arguments))
    return calls


def _not_options(params: Sequence[_Param], mentions: list[Mention]) -> list[Mention]:
    """Without the names, codes and quotes that are an option of a parameter with a closed
    set of values ("Drama and Comedy movies" for a ``category`` enum, "premium_economy"):
    that parameter takes them, no free-text one."""
    options = {str(h).lower() for p in params if _strict(p) for h in p.hints}
    if not options:
        return mentions
    return [
        m
        for m in mentions
        if m.kind not in ("name", "code", "quoted") or str(m.value).lower() not in options
    ]


def _nouns(spec: _Tool) -> frozenset[str]:
    """The stems of the tool name's words that are not its verb."""
    said = label(re.sub(r"[.]", "_", spec.name)).split()
    return frozenset(
        stem(w) for w in said if w not in VERB_SYNONYMS and w not in _EXTRA_STOP and len(w) > 2
    )


def _naming(spec: _Tool) -> frozenset[str]:
    """The stems of the tool's and its parameters' names."""
    said = [re.sub(r"[.]", "_", spec.name), *(n for n, _, _ in spec.props)]
    return frozenset(stem(w) for name in said for w in words(label(name)))


_CURRENCY = re.compile(
    r"\b(?:(?P<adj>us|american|canadian|australian|hong kong|singapore|new zealand)\s+)?"
    r"(?P<unit>dollars?|euros?|pounds?(?: sterling)?|yen|swiss francs?|francs?|yuan|"
    r"renminbi|rupees?|rubles?|roubles?)\b",
    re.I,
)
_ISO_CURRENCY = {
    "dollar": "USD", "us dollar": "USD", "american dollar": "USD", "canadian dollar": "CAD",
    "australian dollar": "AUD", "hong kong dollar": "HKD", "singapore dollar": "SGD",
    "new zealand dollar": "NZD", "euro": "EUR", "pound": "GBP", "pound sterling": "GBP",
    "yen": "JPY", "swiss franc": "CHF", "franc": "CHF", "yuan": "CNY", "renminbi": "CNY",
    "rupee": "INR", "ruble": "RUB", "rouble": "RUB",
}  # fmt: skip


def _currencies(params: Sequence[_Param], mentions: list[Mention], text: str) -> list[Mention]:
    """Currencies said by name ("150 euros to Canadian dollars") as their ISO codes, when a
    parameter asks for a currency; they replace the mentions they overlap."""
    if not any("currenc" in f"{p.name} {p.schema.get('description', '')}".lower() for p in params):
        return mentions
    found = []
    for m in _CURRENCY.finditer(text):
        said = " ".join(w for w in (m["adj"], m["unit"]) if w).lower()
        code = _ISO_CURRENCY.get(re.sub(r"s$", "", said)) or _ISO_CURRENCY.get(said)
        if code:
            before = tuple(words(text[max(0, m.start() - 40) : m.start()])[-3:])
            found.append(Mention("code", code, m.start(), m.end(), code, before))
    kept = [m for m in mentions if not any(f.start < m.end and m.start < f.end for f in found)]
    return sorted(kept + found, key=lambda m: m.start)


_REGION_WORDS = frozenset("country state region province".split())


def _unplaced(params: Sequence[_Param], mentions: list[Mention]) -> list[Mention]:
    """"Tokyo, Japan" is two values when the tool asks the country (or state) apart: the
    place, then the region, whose words it takes as its own."""
    region = next((p for p in params if set(label(p.name).split()) & _REGION_WORDS), None)
    if region is None:
        return mentions
    said = tuple(label(region.name).split())
    out: list[Mention] = []
    for m in mentions:
        head, comma, tail = m.text.partition(", ")
        if m.kind != "name" or not comma or "," in tail:
            out.append(m)
            continue
        cut = m.start + len(head)
        out.append(Mention("name", head, m.start, cut, head, m.before, ()))
        out.append(Mention("name", tail, m.end - len(tail), m.end, tail, said, m.after))
    return out


_START = frozenset("start origin source departure depart begin from base".split())
_END = frozenset("end destination target arrival arrive to".split())
_SPAN_OPEN = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$", re.I)
_TO = re.compile(r"\s+to\s+", re.I)
"""Two codes joined by "to" ("USD to AUD", "JFK to LAX") are an end pair with no "from"."""
_SPAN_JOIN = re.compile(r"\s+(?:back\s+)?(?:and|to)\s+(?:the\s+)?", re.I)


def _ends(params: Sequence[_Param], mentions: Sequence[Mention], text: str) -> list[_Param]:
    """"from A to B", "between A and B" for a start and an end parameter (``origin`` /
    ``destination``, ``start_city`` / ``end_city``): A is the start, B the end, as often as
    the query says it. Returns the two parameters when it did."""
    def end_of(words_: frozenset[str]) -> _Param | None:
        found = [p for p in params if p.kind == "string" and set(label(p.name).split()) & words_]
        return found[0] if len(found) == 1 else None

    start, end = end_of(_START), end_of(_END)
    if start is None or end is None or start is end:
        return []
    for first, then in pairwise(mentions):
        if first.kind not in ("name", "code", "quoted") or then.kind != first.kind:
            continue
        join = text[first.end : then.start]
        opened = _SPAN_OPEN.search(text[: first.start])
        if (opened and _SPAN_JOIN.fullmatch(join)) or (_coded(first, then) and _TO.fullmatch(join)):
            start.spans.append(first)
            end.spans.append(then)
    if not start.spans:
        _held(start, end, mentions, text)
    return [start, end] if start.spans else []


_AMOUNT_BEFORE = re.compile(r"\d\s*$")


def _coded(first: Mention, then: Mention) -> bool:
    return all(m.kind == "code" or re.fullmatch(r"[A-Z]{2,5}", m.text) for m in (first, then))


def _held(start: _Param, end: _Param, mentions: Sequence[Mention], text: str) -> None:
    """Two currencies, one said with the amount ("how many Canadian dollars for 500 US
    dollars"): the one with the amount is what is held, the start; the other the end."""
    codes = [m for m in mentions if m.kind == "code" and m.value in _ISO_CURRENCY.values()]
    if len(codes) != 2:
        return
    held = [m for m in codes if _AMOUNT_BEFORE.search(text[: m.start])]
    if len(held) == 1:
        start.spans.append(held[0])
        end.spans.append(next(m for m in codes if m is not held[0]))


_NAMED_PAIR = re.compile(
    r"\b([A-Za-z]+)\s+and\s+([A-Za-z]+)\s+(?:as|of|are|were|being|=)\s*$", re.I
)


def _respective(
    params: Sequence[_Param], mentions: Sequence[Mention], text: str
) -> list[_Param]:
    """"its base and height as 6cm and 10cm": two parameters named, then two values of
    one kind joined by "and", in the same order. Returns the two parameters when said."""
    for first, then in pairwise(mentions):
        named = _NAMED_PAIR.search(text[: first.start])
        if not named or first.kind != then.kind or first.kind == "phrase":
            continue
        if not _LISTED.fullmatch(text[first.end : then.start]):
            continue
        one, two = (_named_param(params, word) for word in (named[1], named[2]))
        if one and two and one is not two and _score(one, first) and _score(two, then):
            one.spans.append(first)
            two.spans.append(then)
            return [one, two]
    return []


def _named_param(params: Sequence[_Param], word: str) -> _Param | None:
    found = [p for p in params if stem(word.lower()) in {stem(w) for w in words(label(p.name))}]
    return found[0] if len(found) == 1 else None


def _crossed(params: Sequence[_Param], values: Mapping[str, list[Any]], text: str) -> bool:
    """Whether every combination is asked ("Lakers and Bulls in seasons 2018 and 2020"):
    two or more parameters each got a plain list of values, and no "respectively"."""
    lists = [p for p in params if p.kind != "array" and len(values.get(p.name, ())) > 1]
    if len(lists) < 2 or re.search(r"\brespectively\b|\beach\b", text, re.I):
        return False
    for param in lists:
        spans = param.spans
        if len(spans) != len(values[param.name]):
            return False
        if any(m.text != text[m.start : m.end] for m in spans):
            return False  # a tuple's numbers are one value each for twins, not a list
        if not all(_LISTED.fullmatch(text[a.end : b.start]) for a, b in pairwise(spans)):
            return False
    return True


def _product(values: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{}]
    for name, found in values.items():
        options = found if len(found) > 1 else found[:1]
        rows = [{**row, name: value} for row in rows for value in options]
    return rows


_TWIN = re.compile(r"^(.*?)[_]?(?:([0-9])|([A-Ba-b]))$")


def _family(name: str) -> str | None:
    """``mass1`` → ``mass``, ``dataset_B`` → ``dataset``: numbered or lettered twins."""
    m = _TWIN.match(name)
    return m[1].lower() if m and m[1] else None


def _order_twins(params: Sequence[_Param], mentions: Sequence[Mention]) -> None:
    """Twins (``charge1``, ``charge2``) take their values in the order the query says them:
    which twin got which value is a guess, the order is not. Twins with no value at all
    take the numbers of a tuple ("the pair (45, 60)"), one each."""
    families: dict[tuple[str, str], list[_Param]] = {}
    for param in params:
        family = _family(param.name)
        if family is not None and param.kind != "array":  # lists keep what they won
            families.setdefault((family, param.kind), []).append(param)
    for members in families.values():
        if len(members) < 2:
            continue
        spans = sorted((m for p in members for m in p.spans), key=lambda m: m.start)
        counted = [m for m in spans if m.kind != "spelled"]  # "two bodies" counts them
        spans = counted if len(counted) >= len(members) or not counted else spans
        if all(m.kind == "spelled" for m in spans):
            spans = _tuple_items(mentions, len(members), members[0].kind) or spans
        for param in members:
            param.spans = []
        for index, mention in enumerate(spans):
            members[index % len(members)].spans.append(mention)


def _tuple_items(mentions: Sequence[Mention], size: int, kind: str) -> list[Mention]:
    """The numbers of each bracketed tuple of ``size`` numbers, as mentions, in order."""
    if kind not in ("integer", "number"):
        return []
    out = []
    for mention in mentions:
        if mention.kind != "list":
            continue
        parts = [p.strip() for p in str(mention.value).split(",")]
        if len(parts) != size or not all(re.fullmatch(r"-?\d+(?:\.\d+)?", p) for p in parts):
            continue
        out += [Mention("number", float(p), mention.start, mention.end, p) for p in parts]
    return out


def _strict(param: _Param) -> bool:
    items = param.schema.get("items") if isinstance(param.schema.get("items"), Mapping) else {}
    return "enum" in param.schema or "enum" in (items or {})


def _scalar(params: Sequence[_Param], name: str) -> bool:
    return next(p for p in params if p.name == name).kind != "array"


def _values(param: _Param, text: str) -> list[Any]:
    """The values ``param`` received (for an array: one list), optional ones only on evidence."""
    if param.kind == "boolean":
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
    hints = [h for h in _found_hints(param, text) if param.required or not _own(param, h)]
    if not hints:
        return []
    if param.kind == "array":
        return [hints]
    if param.kind in ("integer", "number"):
        return []
    return hints[:1] if _strict(param) and not param.exclusive else hints
