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

The steps live beside this module: ``specs`` (the schemas as the reader sees them),
``routing`` (1), ``mentions`` (with ``numerals`` and ``dates``), ``fits``, ``matching``,
``pairing``, ``values`` (with ``options``, ``flags`` and ``phrasings``) and ``mappings`` (2),
``asks`` (calls across the asks of one request), ``scenes`` (consecutive asks of one tool
read together); here are :func:`read` and the calls of one ask (3).
"""

from __future__ import annotations

import re
from bisect import bisect
from collections.abc import Mapping, Sequence
from datetime import date
from functools import partial
from itertools import pairwise
from typing import Any

from services.synth.calls import Call, Tool
from services.synth.generators.template.asks import (
    _SAME,
    _complete_calls,
    _each_of,
    _fitting_calls,
    _inherit,
    _same_again,
)
from services.synth.generators.template.fits import _PLACE
from services.synth.generators.template.flags import _flag_each
from services.synth.generators.template.mappings import _dicts
from services.synth.generators.template.matching import _LISTED, _assign, _placed
from services.synth.generators.template.mentions import Mention, find_mentions, words
from services.synth.generators.template.options import (
    _OPTION_JOIN,
    _capitalised,
    _found_hints,
    _own,
    _said_form,
)
from services.synth.generators.template.pairing import (
    _clock,
    _coefficients,
    _currencies,
    _ends,
    _not_options,
    _offering,
    _order_ends,
    _order_twins,
    _pair_list,
    _respective,
    _said_once,
    _twin_pair,
    _unplaced,
)
from services.synth.generators.template.phrases import compiled, stem
from services.synth.generators.template.phrasings import (
    _converted,
    _emptied,
    _none_said,
    _said_as,
    _versus,
)
from services.synth.generators.template.routing import (
    _respelled,
    _route,
    _unquoted_names,
    _unwrapped,
)
from services.synth.generators.template.scenes import (
    _followed,
    _joined,
    _scene_calls,
    _without_asides,
)
from services.synth.generators.template.specs import (
    _naming,
    _nouns,
    _Param,
    _param,
    _stems,
    _strict,
    _Tool,
    _tool,
)
from services.synth.generators.template.values import _labelled, _values
from services.synth.generators.template.wording import unit_said
from services.synth.surface import NUMBER_WORDS, label

__all__ = ["read"]


def read(query: str, tools: Sequence[Tool], reference: date | None = None) -> tuple[Call, ...]:
    """The calls that answer ``query`` from ``tools`` (none when no tool fits)."""
    specs = [_tool(t) for t in tools]
    if not specs or not query.strip():
        return ()
    query = _respelled(_unquoted_names(_unwrapped(query), specs), specs)
    calls: list[Call] = []
    for spec, texts in _runs(_route(query, specs)):
        new = _run_calls(spec, texts, calls, reference)
        calls.extend([c for c in new if c not in calls])  # a closing recap: nothing new
    return tuple(_fitting_calls(_complete_calls(_inherit(calls, specs), specs), specs))


def _run_calls(
    spec: _Tool, texts: Sequence[str], earlier: Sequence[Call], reference: date | None
) -> list[Call]:
    """The calls of one run of asks of ``spec``. A call that repeats one an earlier run made
    is left out by :func:`read`: a closing sentence that lists the asks again ("Can you
    provide the house price, the lawsuits involving Mr. John Doe …?") asks nothing new."""
    calls_of = partial(_calls, spec, reference=reference)
    scenes = (
        _scene_calls(spec, texts, calls_of)
        or _joined(spec, texts, calls_of)
        or _followed(spec, texts, calls_of)
    )
    if scenes:
        return scenes
    calls = list(earlier)
    said: list[tuple[str, list[Call]]] = []
    for text in texts:
        pairs = _pair_list(spec, text)
        if pairs:
            said.append((text, [Call(spec.name, values) for values in pairs]))
            calls.extend(said[-1][1])
            continue
        first = next(((t, c) for t, c in said if c and c[0].name == spec.name), ("", []))
        new = _same_again(_calls(spec, text, reference), text, calls, *first[::-1])
        said.append((text, _each_of(spec, new, text, calls)))
        calls.extend(said[-1][1])
    return _without_asides(said)


def _runs(groups: Sequence[tuple[_Tool, str]]) -> list[tuple[_Tool, list[str]]]:
    """Consecutive asks of the same tool together: their clauses may be scenes of one
    request (see :mod:`scenes`)."""
    runs: list[tuple[_Tool, list[str]]] = []
    for spec, text in groups:
        if runs and runs[-1][0] is spec:
            runs[-1][1].append(text)
        else:
            runs.append((spec, [text]))
    return runs


def _blank(said: re.Match[str]) -> str:
    """As many spaces as ``said``: the text keeps its length, so what is found in it still
    stands where it stands in the text as said."""
    return " " * len(said[0])


def _params(spec: _Tool) -> list[_Param]:
    """The tool's parameters, each with the words the tool and the others say."""
    params = [_param(n, s, r) for n, s, r in spec.props]
    tool_words = {w for w, weight in spec.words.items() if weight >= 1.0}
    named = {w for w, weight in spec.words.items() if weight >= 2.0}  # the tool's name
    for param in params:
        others = {w for p in params if p is not param for w in _stems(label(p.name))}
        param.shared = frozenset(tool_words | others)
        param.naming = frozenset(named | others)
        param.others = frozenset(w for p in params if p is not param for w in p.stems)
        options = set(param.hints)
        param.exclusive = not any(options & set(p.hints) for p in params if p is not param)
    return params


def _said_outright(params: Sequence[_Param], text: str) -> tuple[dict[str, list[Any]], str, str]:
    """The values said outright (mappings, ``label: value`` fields, what a value is said to
    be, conversions, choices, values the descriptions offer): them, the text without the
    mappings and fields, and that text with the offered values blanked out."""
    values, text = _dicts(params, text)
    labelled, text = _labelled(params, text)
    values.update({n: v for n, v in labelled.items() if n not in values})
    for said in (_said_as(params, text), _converted(params, text), _versus(params, text)):
        values.update({n: v for n, v in said.items() if n not in values})
    whole = text
    for param in params:  # a value the description itself offers ("e.g. vegan") is said
        if param.name not in values and not _strict(param) and param.kind in ("string", "array"):
            hints = [h for h in _found_hints(param, text) if not _own(param, h)]
            hints = [h for h in hints if not _counting(h, text)]
            hints = [h for h in hints if not _capitalised(h, text)]  # names are mentions
            if hints:
                values[param.name] = [hints] if param.kind == "array" else hints
                said = "|".join(re.escape(h) for h in hints)
                said = rf"['\"“]?(?<!\w)(?:{said})(?:e?s)?(?!\w)['\"”]?"  # not the x of 2x^2
                text = compiled(said, re.I).sub(_blank, text)
    return values, whole, text


def _calls(spec: _Tool, text: str, reference: date | None) -> list[Call]:
    params = _params(spec)
    tool_words = {w for w, weight in spec.words.items() if weight >= 1.0}
    values, whole, text = _said_outright(params, text)  # whole: as said, nothing blanked
    rest = [p for p in params if p.name not in values]
    typed = [p for p in rest if p.kind != "boolean" and not _strict(p)]
    naming = _naming(spec)
    said = find_mentions(text, reference, naming)
    offering = _offering(typed, said)
    typed = [p for p in typed if p.name not in offering]
    found = _not_options(params, said)
    found = [m for m in found if m.kind != "phrase" or stem(m.text.split()[0]) not in naming]
    found = [m for m in found if not _tools_own_name(m, tool_words) and not _described(spec, m)]
    found = [_of_what(m, tool_words, params) for m in found]
    mentions = _clock(typed, _currencies(typed, _unplaced(typed, found), text))
    paired = _ends(typed, mentions, text)
    paired += _respective([p for p in typed if p not in paired], mentions, text)
    paired += _coefficients([p for p in typed if p not in paired], mentions)
    taken = {id(m) for p in paired for m in p.spans}
    free = [m for m in mentions if id(m) not in taken]
    again = bool(_SAME.search(text))  # a variant says what changes: the rest is known
    _assign([p for p in typed if p not in paired], free, text, _nouns(spec), guess=not again)
    _order_twins(typed, mentions)
    _order_ends(typed)
    for param in rest:
        found = _values(param, text) or unit_said(label(param.name), param.kind, text)
        found = found or _none_said(param, text) or _emptied(param, text)
        if found:
            values[param.name] = found
    _twin_pair(params, values, text)
    _said_once(params, values)
    _placed_too(params, values)
    if not values and not params:
        return [Call(spec.name, {})]
    if _crossed(params, values, text):
        return [Call(spec.name, arguments) for arguments in _product(values)]
    options = _options_listed(params, values, text)
    if options:
        rest = {n: v for n, v in values.items() if n != options}
        return [
            Call(spec.name, {**arguments, options: option})
            for arguments in _zipped(params, rest)
            for option in values[options]
        ]
    _flags_each(params, values, text)
    _options_each(params, values, text)
    _said_for(params, values, whole)
    rows = _zipped(params, values)
    return [Call(spec.name, arguments) for arguments in _counted(rows, text)]


def _tools_own_name(mention: Mention, tool_words: set[str]) -> bool:
    """Whether a name of several words says only the tool's own words ("train a Random
    Forest Model" for a tool that trains "a Random Forest Model on given data"): it names
    what is asked, it is no value."""
    said = words(mention.text)
    return mention.kind == "name" and len(said) > 1 and {stem(w) for w in said} <= tool_words


def _of_what(mention: Mention, tool_words: set[str], params: Sequence[_Param]) -> Mention:
    """A name "<the tool's words> of <a name>" ("the Real GDP of California" for a GDP tool
    with an option 'Real'): the name after "of"; the words before it say what is asked. A
    head that a parameter's name says ("the Battle of Hastings" for ``battle_name``) is part
    of the name."""
    head, of, tail = mention.text.partition(" of ")
    if mention.kind != "name" or not of or not tail[:1].isupper():
        return mention
    options = {stem(str(h).lower()) for p in params for h in p.hints}
    said = {stem(w) for w in words(head)}
    if not said <= tool_words | options or any(said <= _stems(label(p.name)) for p in params):
        return mention
    start = mention.start + len(head) + len(of)
    before = (*mention.before, *words(head), "of")[-5:]
    return Mention("name", tail, start, mention.end, tail, before, mention.after)


def _flags_each(params: Sequence[_Param], values: dict[str, list[Any]], text: str) -> None:
    """A flag said once for each call, on for one and off for another ("a detailed
    description of a neuron cell and then a less detailed description of a muscle cell"):
    one value per call, in the order said, when the other values make that many calls."""
    count = max((len(v) for v in values.values()), default=0)
    for param in params:
        if param.kind != "boolean" or len(values.get(param.name, ())) != 1 or count < 2:
            continue
        each = _flag_each(param, text)
        if len(each) == count:
            values[param.name] = each


def _options_each(params: Sequence[_Param], values: dict[str, list[Any]], text: str) -> None:
    """Options of a list parameter said each beside one call's values ("an Italian restaurant
    in New York that provides vegetarian food and a Japanese one in Los Angeles that offers
    delivery"): each call takes the options said from its first value up to the next call's,
    when every call has some."""
    count = max((len(v) for v in values.values()), default=0)
    drivers = [p for p in params if p.kind != "array" and len(p.spans) == count > 1]
    drivers = [p for p in drivers if len(values.get(p.name, ())) == count]
    if not drivers:
        return
    cuts = [min(p.spans[i].start for p in drivers) for i in range(1, count)]
    for param in params:
        found = values.get(param.name, [])
        if param.kind != "array" or not param.hints or param.spans or len(found) != 1:
            continue
        each: list[list[Any]] = [[] for _ in range(count)]
        for option in found[0]:
            said = re.search(_said_form(option), text, re.I)
            if said is None:
                break
            each[bisect(cuts, said.start())].append(option)
        else:
            if all(each):
                values[param.name] = each


_FOR = re.compile(r"\s+for\s+(?:the\s+|an?\s+)?([\w -]{1,40})")


def _said_for(params: Sequence[_Param], values: dict[str, list[Any]], text: str) -> None:
    """Fewer values of a parameter than calls, each said "for" one call's option ("an
    emission factor of 2.7 for the diesel vehicle, and of 0 for the electric vehicle"):
    each goes to that call only; the others take none."""
    count = max((len(v) for v in values.values()), default=0)
    drivers = [p for p in params if p.hints and len(values.get(p.name, ())) == count > 1]
    for param in (p for p in params if 0 < len(p.spans) < count):
        found = values.get(param.name, [])
        for driver in drivers:
            said = [_FOR.match(text, m.end) for m in param.spans]
            named = [_found_hints(driver, m[1]) if m else [] for m in said]
            if len(found) != len(said) or any(len(n) != 1 for n in named):
                continue
            at = [
                values[driver.name].index(n[0]) if n[0] in values[driver.name] else -1
                for n in named
            ]
            if -1 in at or len(set(at)) != len(at):
                continue
            each: list[Any] = [None] * count
            for index, value in zip(at, found, strict=True):
                each[index] = value
            values[param.name] = each
            break


def _counting(hint: str, text: str) -> bool:
    """Whether an offered value is only said right after numbers ("a base of 10 units" for
    a unit that "defaults to 'units'"): there it is what the numbers count."""
    said = list(compiled(rf"(?<!\w){re.escape(hint)}(?!\w)", re.I).finditer(text))
    return bool(said) and all(re.search(r"\d\s*$", text[: m.start()]) for m in said)


def _placed_too(params: Sequence[_Param], values: dict[str, list[Any]]) -> None:
    """A required place left empty takes the name said after "in" that a parameter which is
    no place took ("the impact of the elephant in the Serengeti ecosystem": the
    ``ecosystem`` and the ``location``): where the request asks it, it is said there. A
    city's name is no state's."""
    for place in params:
        if place.name in values or not place.required or place.kind != "string":
            continue
        if not place.stems.keys() & _PLACE:
            continue
        took = [p for p in params if len(values.get(p.name, ())) == len(p.spans) == 1]
        for other in (p for p in took if not p.stems.keys() & _PLACE):
            if _placed(place, other.spans[0]):
                values[place.name] = list(values[other.name])
                break


def _described(spec: _Tool, mention: Mention) -> bool:
    """Whether a name of several words is one the tool's description says ("train a Random
    Forest Model" for "Train a Random Forest Model on given data"): it names what the tool
    does, it is no value."""
    if mention.kind != "name" or len(mention.text.split()) < 2:
        return False
    told = str(spec.tool["function"].get("description", ""))
    return bool(compiled(rf"(?<!\w){re.escape(mention.text)}(?!\w)").search(told))


_COUNTED = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten)\s+(?:from|of|with|at|using)\s+(?:an?|the)\b",
    re.I,
)
"""A count before the values of one call ("two from a normal distribution with a mean of 5"):
that call asked that many times."""


def _counted(rows: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Each call as many times as its count says, when every call has one ("two from a
    normal distribution with a mean of 5, and two from one with a mean of 10")."""
    counts = [NUMBER_WORDS[m[1].lower()] for m in _COUNTED.finditer(text)]
    if len(rows) < 2 or len(counts) != len(rows):
        return rows
    return [row for row, count in zip(rows, counts, strict=True) for _ in range(count)]


def _zipped(params: Sequence[_Param], values: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """One set of arguments per value of the longest list; lists as long line up, a shorter
    one gives its last value to the rest, a lone value goes to every call."""
    count = max((len(v) for v in values.values()), default=1)
    rows = []
    for index in range(count):
        arguments = {}
        for name, found in values.items():
            if len(found) == count:
                if found[index] is not None:  # "… of 0 for the electric one": that call's
                    arguments[name] = found[index]
            else:
                arguments[name] = found[
                    0 if not _scalar(params, name) else min(index, len(found) - 1)
                ]
        rows.append(arguments)
    return rows


def _options_listed(
    params: Sequence[_Param], values: Mapping[str, list[Any]], text: str
) -> str | None:
    """The parameter whose several values are options its schema offers (an enum, "e.g.
    'Open', 'Close'"), said as one plain list ("the 'Open', 'Close', 'High', and 'Low'
    prices for Microsoft and Apple", "both the shortest and scenic routes"): each option is
    asked for every call the other values make, unless they go "respectively"."""
    if re.search(r"\brespectively\b", text, re.I):
        return None
    for param in params:
        found = values.get(param.name, [])
        offered = {h.lower() for h in param.hints}
        if param.kind == "boolean" and found == [True, False]:
            return param.name  # a flag asked both ways (see ``values._both_ways``)
        if param.kind == "array" or len(found) < 2:
            continue
        if not all(isinstance(v, str) and v.lower() in offered for v in found):
            continue
        if _plain_list(found, text):
            return param.name
    return None


def _plain_list(said: Sequence[str], text: str) -> bool:
    """Whether ``said`` stand somewhere in ``text`` one after another, joined by commas,
    "and", "or", maybe with one word before the next ("the status and scheduled trial date";
    "the shortest … both the shortest and scenic routes": the second time)."""
    found = []
    for value in said:
        form = r"[\s_-]+".join(re.escape(w) for w in re.split(r"[\s_-]+", value))
        found += [
            (m.start(), m.end(), value)
            for m in compiled(rf"(?<!\w){form}(?!\w)", re.I).finditer(text)
        ]
    found.sort()
    run = found[:1]
    for before, then in pairwise(found):
        gap = text[before[1] : then[0]].replace("'", " ").replace('"', " ")
        run = [*run, then] if re.fullmatch(_OPTION_JOIN, gap) else [then]
        if {v for _, _, v in run} >= set(said):
            return True
    return len(said) == 1


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


def _scalar(params: Sequence[_Param], name: str) -> bool:
    return next(p for p in params if p.name == name).kind != "array"
