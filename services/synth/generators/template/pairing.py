"""Mentions fitted to one tool before matching, and the values a request's structure pairs
with parameters: options of closed sets left to them, currencies said by name as ISO codes,
"Tokyo, Japan" as place and region, "from A to B" ends, "base and height as 6 and 10",
a polynomial's coefficients, numbered twins in the order the request says them, and lists
of pairs ("3 and 4, 5 and 12")."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from services.synth.generators.template.fits import _score
from services.synth.generators.template.matching import _LISTED
from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import compiled, stem
from services.synth.generators.template.specs import _kind, _Param, _stems, _strict, _Tool
from services.synth.surface import label


def _not_options(params: Sequence[_Param], mentions: list[Mention]) -> list[Mention]:
    """Without the names, codes, quotes and phrases that are an option of a parameter with a
    closed set of values ("Drama and Comedy movies" for a ``category`` enum,
    "premium_economy", "the amount of protein"), or
    two or more of the examples a parameter's description offers ("Drama and Comedy" for
    "e.g. Drama, Comedy"): that parameter takes them, no other one. One example said alone
    ("from HSBC" for "e.g. HSBC") may be one value among others of its own parameter. Two
    or more names a flag's description lists ("additional information like Director, Cast")
    say that flag, no value."""
    options = {str(h).lower() for p in params if _strict(p) for h in p.hints}
    said = {str(m.value).lower() for m in mentions if m.kind in ("name", "code", "quoted")}
    for param in (p for p in params if p.kind == "string" and not _strict(p)):
        offered = {h.lower() for h in param.hints} & said
        options |= offered if len(offered) > 1 else set()
    for param in (p for p in params if p.kind == "boolean"):
        told = str(param.schema.get("description", ""))
        offered = {v for v in said if compiled(rf"(?<!\w){re.escape(v)}(?!\w)", re.I).search(told)}
        options |= offered if len(offered) > 1 else set()
    if not options:
        return mentions
    kinds = ("name", "code", "quoted", "phrase")  # "the amount of protein" for an enum's
    return [m for m in mentions if m.kind not in kinds or str(m.value).lower() not in options]


def _offering(params: Sequence[_Param], mentions: Sequence[Mention]) -> set[str]:
    """The text parameters two or more of whose offered examples the request says ("an
    Italian … and a Japanese restaurant" for "e.g. Italian, Japanese"): those examples are
    their values (see :func:`_not_options`), no other name is."""
    said = {str(m.value).lower() for m in mentions if m.kind in ("name", "code", "quoted")}
    return {
        p.name
        for p in params
        if p.kind == "string" and not _strict(p) and len({h.lower() for h in p.hints} & said) > 1
    }


_CURRENCY = re.compile(
    r"\b(?:(?P<adj>us|american|canadian|australian|hong kong|singapore|new zealand|british|"
    r"japanese|chinese|indian|russian)\s+)?"
    r"(?P<unit>dollars?|euros?|pounds?(?: sterling)?|yen|swiss francs?|francs?|yuan|"
    r"renminbi|rupees?|rubles?|roubles?)\b",
    re.I,
)


_ISO_CURRENCY = {
    "dollar": "USD", "us dollar": "USD", "american dollar": "USD", "canadian dollar": "CAD",
    "australian dollar": "AUD", "hong kong dollar": "HKD", "singapore dollar": "SGD",
    "new zealand dollar": "NZD", "euro": "EUR", "pound": "GBP", "pound sterling": "GBP",
    "yen": "JPY", "swiss franc": "CHF", "franc": "CHF", "yuan": "CNY", "renminbi": "CNY",
    "rupee": "INR", "ruble": "RUB", "rouble": "RUB", "british pound": "GBP",
    "japanese yen": "JPY", "chinese yuan": "CNY", "indian rupee": "INR", "russian ruble": "RUB",
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
            said_as = ("currency",)  # "in Euros" says a currency: that parameter's word
            found.append(Mention("code", code, m.start(), m.end(), code, before, said_as))
    kept = [m for m in mentions if not any(f.start < m.end and m.start < f.end for f in found)]
    return sorted(kept + found, key=lambda m: m.start)


_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")


def _clock(params: Sequence[_Param], mentions: list[Mention]) -> list[Mention]:
    """A time said for a tool that asks its hour and its minutes apart ("at 6:30 PM" for
    ``hours`` and ``minutes``): two numbers, as said on the clock face."""
    said = {w for p in params if p.kind == "integer" for w in label(p.name).lower().split()}
    if not said & {"hour", "hours"} or not said & {"minute", "minutes"}:
        return mentions
    out: list[Mention] = []
    for m in mentions:
        clock = _CLOCK.match(m.text) if m.kind == "time" else None
        if clock is None:
            out.append(m)
            continue
        hour, minute = (float(clock[i]) for i in (1, 2))
        cut = m.start + clock.end(1)
        out.append(Mention("number", hour, m.start, cut, clock[1], m.before, ("hours",)))
        out.append(Mention("number", minute, cut + 1, m.end, clock[2], m.before, ("minutes",)))
    return out


_REGION_WORDS = frozenset("country state region province".split())


def _unplaced(params: Sequence[_Param], mentions: list[Mention]) -> list[Mention]:
    """ "Tokyo, Japan" is two values when the tool asks the country (or state) apart: the
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


_SPAN_OPEN = re.compile(r"\b(?:between|from)\s+(?:the\s+)?(?:two\s+[a-z]+s?,?\s+)?$", re.I)
"""What opens an end pair: "between", "from", "between two cities, " (then the two)."""


_TO = re.compile(r"\s+to\s+", re.I)
"""Two codes joined by "to" ("USD to AUD", "JFK to LAX") are an end pair with no "from"."""


_BACK_TO = re.compile(r"\bto\s+(?:the\s+)?$", re.I)


_FROM = re.compile(r"\s+from\s+(?:the\s+)?", re.I)
"""Two places joined by "from" after "to" ("return to New York City from Miami"): the end
first, then the start."""


_SPAN_JOIN = re.compile(r"\s+(?:back\s+)?(?:and|to)\s+(?:the\s+)?", re.I)


def _ends(params: Sequence[_Param], mentions: Sequence[Mention], text: str) -> list[_Param]:
    """ "from A to B", "between A and B" for a start and an end parameter (``origin`` /
    ``destination``, ``start_city`` / ``end_city``): A is the start, B the end, as often as
    the query says it; "to B from A" says them the other way round. Returns the two
    parameters when it did."""

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
        placed = any(m is first or m is then for m in [*start.spans, *end.spans])
        opened = _SPAN_OPEN.search(text[: first.start])
        if (opened and _SPAN_JOIN.fullmatch(join)) or (_coded(first, then) and _TO.fullmatch(join)):
            start.spans.append(first)
            end.spans.append(then)
        elif _BACK_TO.search(text[: first.start]) and _FROM.fullmatch(join) and not placed:
            start.spans.append(then)  # "return to New York from Miami": Miami is the start
            end.spans.append(first)
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


_COEFFICIENT = re.compile(
    r"\bcoefficient of (?:the )?x(?:\s*(?:\^|\*\*)\s*(\d)|(²|³))?(?![\w^*])|\bconstant\b", re.I
)
"""What a parameter's description says it is of a polynomial: "Coefficient of x^2" (its
power), "of x" (one), "Constant term" (none)."""


_TERM = re.compile(r"([+-]?)(\d+(?:\.\d+)?)?(\*?x(?:(?:\^|\*\*)(\d+))?)?")


def _coefficients(params: Sequence[_Param], mentions: Sequence[Mention]) -> list[_Param]:
    """A polynomial said whole ("3x^2 + 4x + 2 = 0") for parameters its description says are
    its coefficients ("Coefficient of x^2", "Coefficient of x", "Constant term"): each takes
    the coefficient of its power (none said: zero), once per polynomial. Returns them."""
    powers: dict[int, _Param] = {}
    for param in (p for p in params if p.kind in ("integer", "number")):
        said = _COEFFICIENT.search(str(param.schema.get("description", "")))
        if said is None:
            continue
        if said[0].lower() == "constant":
            power = 0
        elif said[1] or said[2]:
            power = int(said[1]) if said[1] else {"²": 2, "³": 3}[said[2]]
        else:
            power = 1
        powers.setdefault(power, param)
    if len(powers) < 2:
        return []
    for mention in (m for m in mentions if m.kind == "quoted" and "x" in m.text):
        terms = _terms(mention.text)
        if not terms or max(terms) not in powers:
            continue
        for power, param in powers.items():
            value = float(terms.get(power, 0.0))
            param.spans.append(Mention("number", value, mention.start, mention.end, str(value)))
    return list(powers.values()) if any(p.spans for p in powers.values()) else []


def _terms(said: str) -> dict[int, float]:
    """The coefficient of each power of x in a polynomial ("5x^2 - 7x + 3": 2 → 5, 1 → -7,
    0 → 3); empty when it is no sum of such terms."""
    flat = re.sub(r"\s+", "", said.split("=")[0])
    out: dict[int, float] = {}
    at = 0
    while at < len(flat):
        term = _TERM.match(flat, at)
        if term is None or term.end() == at or not (term[2] or term[3]):
            return {}
        value = float(term[2] or 1) * (-1 if term[1] == "-" else 1)
        power = (int(term[4]) if term[4] else 1) if term[3] else 0
        out[power] = out.get(power, 0.0) + value
        at = term.end()
    return out


_NAMED_PAIR = re.compile(
    r"\b([A-Za-z]+)\s+and\s+([A-Za-z]+)\s+(?:as|of|are|were|being|=)\s*$", re.I
)


def _respective(params: Sequence[_Param], mentions: Sequence[Mention], text: str) -> list[_Param]:
    """ "its base and height as 6cm and 10cm": two parameters named, then two values of
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


_ORDERED = (
    ("initial", "final"), ("start", "end"), ("begin", "end"), ("first", "last"),
    ("min", "max"), ("minimum", "maximum"), ("lower", "upper"), ("low", "high"),
    ("old", "new"), ("before", "after"),
)  # fmt: skip
"""Words that name the two ends of one thing in the order they come ("initial_value",
"final_value")."""


def _order_ends(params: Sequence[_Param]) -> None:
    """Two parameters named as the ends of one thing (``initial_value``, ``final_value``),
    one value each, take them in the order said ("invested $5000 … has grown to $7000")
    when no word around the values says which end it is."""
    for one in params:
        for two in params:
            ends = _ends_of(one, two)
            if ends is None or len(one.spans) != 1 or len(two.spans) != 1:
                continue
            said = {stem(w) for m in (*one.spans, *two.spans) for w in (*m.before, *m.after)}
            if said & {stem(w) for w in ends} or one.spans[0].start < two.spans[0].start:
                continue
            one.spans, two.spans = two.spans, one.spans


def _ends_of(one: _Param, two: _Param) -> tuple[str, str] | None:
    """The pair of end words that tells ``one`` (the first end) from ``two``, if any."""
    first, then = label(one.name).lower().split(), label(two.name).lower().split()
    if one.kind != two.kind or len(first) != len(then):
        return None
    differ = [(a, b) for a, b in zip(first, then, strict=True) if a != b]
    return differ[0] if len(differ) == 1 and differ[0] in _ORDERED else None


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


_NUM = r"-?\d+(?:\.\d+)?"
_PAIR = re.compile(rf"({_NUM})\s+and\s+({_NUM})")
_PAIR_LIST = re.compile(rf"{_NUM}\s+and\s+{_NUM}(?:(?:\s*[,;]|,?\s+and)\s+{_NUM}\s+and\s+{_NUM})+")


def _pair_list(spec: _Tool, text: str) -> list[dict[str, Any]] | None:
    """Pairs of numbers said as a list ("two side lengths: 3 and 4, 5 and 12") for a tool
    whose required values are two numbers: one set of values per pair, in order."""
    required = [(n, s) for n, s, needed in spec.props if needed]
    if len(required) != 2 or any(_kind(s) not in ("integer", "number") for _, s in required):
        return None
    found = _PAIR_LIST.search(text)
    if found is None:
        return None

    def typed(said: str, schema: Mapping[str, Any]) -> float | int:
        return int(float(said)) if _kind(schema) == "integer" else float(said)

    (first, one), (second, two) = required
    return [{first: typed(a, one), second: typed(b, two)} for a, b in _PAIR.findall(found[0])]


def _said_once(params: Sequence[_Param], values: dict[str, list[Any]]) -> None:
    """A word said once is the value of one parameter: where two text parameters took the
    same one ("Monday" for ``day`` and for ``museum``), the one whose description offers it
    ("e.g. Monday, Tuesday") keeps it and the other lets it go; a further value that is part
    of another parameter's value ("C" of "C foot") is none."""
    _in_longer_option(params, values)
    texts = [p.name for p in params if p.kind == "string" and p.name in values]
    if len(values) < 2 or not texts:
        return
    _flag_word_out(params, values, texts)
    offered = {p.name: {h.lower() for h in p.hints} for p in params}
    for name in texts:
        for other in (t for t in texts if t != name):
            mine = [v for v in values[name] if isinstance(v, str)]
            theirs = {str(v).lower() for v in values[other]}
            gone = [v for v in mine if v.lower() in theirs & offered[other] - offered[name]]
            if gone:
                values[name] = [v for v in values[name] if v not in gone]
    for name in texts:  # "a flute with a C foot": "C" is part of a value, no other value
        inside = [v for v in values[name][1:] if isinstance(v, str) and _within(v, name, values)]
        values[name] = [v for v in values[name] if v not in inside]
    for name in [n for n in texts if not values[n]]:
        del values[name]


def _in_longer_option(params: Sequence[_Param], values: dict[str, list[Any]]) -> None:
    """An option whose words are all words of a longer option another list took ("violin"
    of "violin lessons": the lessons, not the instrument ``Violins``) is none of its own."""
    lists = {p.name: p for p in params if p.kind == "array" and _strict(p) and p.name in values}
    said = {
        name: [v for found in values[name] if isinstance(found, list) for v in found]
        for name in lists
    }
    stems = {v: {stem(w) for w in words(str(v))} for found in said.values() for v in found}
    for name in lists:
        longer = [stems[v] for other in lists if other != name for v in said[other]]
        gone = {v for v in said[name] if any(stems[v] < s for s in longer)}
        if gone:
            values[name] = [[v for v in found if v not in gone] for found in values[name]]
            if not any(values[name]):
                del values[name]


def _flag_word_out(
    params: Sequence[_Param], values: dict[str, list[Any]], texts: Sequence[str]
) -> None:
    """A flag set by its name's word takes that word from the plain text value it opens
    ("organic bananas" with ``organic`` on: the product is "bananas")."""
    flags = [p for p in params if p.kind == "boolean" and values.get(p.name) == [True]]
    said = {w for p in flags for w in _stems(label(p.name))}
    for name in texts:
        values[name] = [
            v.split(" ", 1)[1]
            if isinstance(v, str) and " " in v and v[:1].islower() and stem(v.split()[0]) in said
            else v
            for v in values[name]
        ]


def _within(value: str, name: str, values: Mapping[str, list[Any]]) -> bool:
    """Whether ``value`` is a word or words of a longer value another parameter took."""
    said = rf"(?<!\w){re.escape(value.lower())}(?!\w)"
    others = [v for n, found in values.items() if n != name for v in found]
    flat = [x for v in others for x in (v if isinstance(v, list) else [v])]
    return any(
        isinstance(x, str) and x.lower() != value.lower() and re.search(said, x.lower())
        for x in flat
    )


_NUMBERED_NAME = re.compile(r"(.*?)_?(\d)$")


def _twin_pair(params: Sequence[_Param], values: dict[str, list[Any]], text: str) -> None:
    """Two text parameters that differ only by their number (``color1``, ``color2``) take the
    two words joined by "and" next to the noun they share ("mix yellow and blue colors",
    "two primary colors, red and blue"), in that order, over any other guess."""
    twins = [p for p in params if p.kind == "string" and _NUMBERED_NAME.fullmatch(p.name)]
    bases = {_NUMBERED_NAME.fullmatch(p.name)[1] for p in twins}  # type: ignore[index]
    if len(twins) != 2 or len(bases) != 1:
        return
    noun = re.escape(label(bases.pop()).split()[-1].lower())
    pair = r"([a-z]+)\s+and\s+([a-z]+)"
    found = re.search(rf"\b{pair}\s+{noun}s?\b", text) or re.search(
        rf"\b{noun}s?\b[,:]?\s+{pair}\b", text
    )
    if found:
        first, second = sorted(twins, key=lambda p: p.name)
        values[first.name], values[second.name] = [found[1]], [found[2]]
