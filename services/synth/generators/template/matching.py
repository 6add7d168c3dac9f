"""Mentions to parameters: the best-pairs-first assignment (how well a pair fits is
:func:`~services.synth.generators.template.fits._score`) whose later rounds add coordinated
values ("Oslo and Bergen") as more calls, and whether an optional parameter may take a
mention (the query ties them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from services.synth.generators.template.fits import _PLACE, _PLACE_PREP, _score
from services.synth.generators.template.kinds import named_after, qualified, said_kinds
from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import STOPWORDS, stem
from services.synth.generators.template.specs import _Param
from services.synth.generators.template.surroundings import _JOINING as _JOINING_WORDS
from services.synth.generators.template.wording import _DIMENSIONS, KIND_WORDS, qualifiers
from services.synth.surface import label


def _assign(
    params: Sequence[_Param],
    mentions: Sequence[Mention],
    text: str,
    nouns: frozenset[str],
    guess: bool = True,
) -> None:
    """Typed mentions first; for required text parameters still empty, the word said right
    after their noun ("the color magenta"), the words that qualify one of the tool's nouns
    ("jazz events"), then bare phrases unless ``guess`` is off."""
    said_kinds(params, text, nouns)
    _match([p for p in params if not p.spans], [m for m in mentions if m.kind != "phrase"], text)
    empty = [p for p in params if p.required and not p.spans and p.kind == "string"]
    named_after(empty, text)  # "the color magenta"
    empty = [p for p in empty if not p.spans]
    kinds = [p for p in empty if not p.stems.keys() & _PLACE]  # a place is no kind of thing
    if kinds:
        _match(kinds, qualifiers(text, nouns), text)
    for param in (p for p in kinds if not p.spans):  # "a single room" for ``room_type``
        own = {stem(w) for w in words(label(param.name))} - KIND_WORDS - nouns
        _match([param], qualifiers(text, frozenset(own)), text)
    empty = [p for p in empty if not p.spans]
    empty = empty if guess else []  # a follow-up that says "the same": the first ask set them
    empty += [  # "through the train" for an optional mode of transportation
        p
        for p in params
        if not p.required and not p.spans and p.kind == "string" and set(p.stems) & _MEANS
    ]
    if empty:
        _match(empty, [m for m in mentions if m.kind == "phrase"], text)
    for param in empty:  # "the number of trees": words that name another parameter
        param.spans = [m for m in param.spans if not _names_other(param, m)]
    for param in params:
        qualified(param, text, nouns)


def _names_other(param: _Param, mention: Mention) -> bool:
    """Whether a phrase's words are all words of the tool's other parameters."""
    said = {stem(w) for w in words(mention.text)}
    return bool(said) and said <= param.others


def _match(params: Sequence[_Param], mentions: Sequence[Mention], text: str) -> None:
    """Mentions to parameters, best pairs first (ties: schema order, then text order).

    Round one gives each parameter at most one mention. Later rounds run the same matching
    on what is left, and keep a round's values only where they are coordinated with the
    same parameter's previous value ("Oslo and Bergen", "36 and 48, while Mary chose 60 and
    96"): that is one more call. Array parameters take every mention they win.
    """
    left = list(mentions)
    later = _run_members(left, text, params)
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


def _run_members(mentions: Sequence[Mention], text: str, params: Sequence[_Param] = ()) -> set[int]:
    """The names after the first of a list of names joined by "and"/"or" ("in Bangladesh
    and India"), and the numbers after the first of a list each said with the same unit
    word (see :func:`_unit_run`) or with one after the last ("the next 10 and 20 years",
    unless the tool has twins): they wait for the parameter that takes the first ("Chicago,
    Illinois" is no such list)."""
    ordered = sorted(mentions, key=lambda m: m.start)
    named = {stem(w) for p in params for w in words(label(p.name))}
    twins = _twinned(params)  # "masses of 10 and 20 kg": one each
    return {
        id(b)
        for a, b in pairwise(ordered)
        if (a.kind == b.kind == "name" and _ANDED.fullmatch(text[a.end : b.start]))
        or _unit_run(a, b, text, named)
        or (not twins and _unit_after(a, b, text))
    }


def _twinned(params: Sequence[_Param]) -> bool:
    """Whether two number parameters are twins: numbered (``mass1``, ``mass2``) or named
    alike but for one word (``first_note_frequency``, ``start_x``)."""
    said = [label(p.name).lower().split() for p in params if p.kind in ("integer", "number")]
    for one, two in ((a, b) for i, a in enumerate(said) for b in said[i + 1 :]):
        if re.sub(r"\d+$", "", " ".join(one)) == re.sub(r"\d+$", "", " ".join(two)):
            return True
        if len(one) == len(two) > 1 and sum(a != b for a, b in zip(one, two, strict=True)) == 1:
            return True
    return False


def _unit_after(one: Mention, two: Mention, text: str) -> bool:
    """Whether two numbers are a list with one unit word after the last ("in the next 10
    and 20 years")."""
    unit = one.after[0] if one.after else ""
    plain = unit.isalpha() and unit not in STOPWORDS and unit not in _JOINING_WORDS
    joined = _ANDED.fullmatch(text[one.end : two.start]) or text[one.end : two.start] == ", "
    said = two.after[:1] == (unit,) and text[two.end :].lstrip().lower().startswith(unit)
    return one.kind == two.kind == "number" and plain and bool(joined) and said


_UNIT_JOIN = re.compile(r"\s*([a-z]+)\s*(?:,|,?\s*and|,?\s*or|&)\s*(?:([a-z]+)\s+)?", re.I)


def _unit_run(one: Mention, two: Mention, text: str, named: set[str]) -> bool:
    """Whether two numbers are a list said each with one unit word, maybe with one word
    before each ("for the first 2 years, first 3 years and first 5 years"); not when a
    word between names a parameter ("length 12 meters and width 5 meters")."""
    if one.kind != "number" or two.kind != "number" or not one.after or not two.after:
        return False
    gap = _UNIT_JOIN.fullmatch(text[one.end : two.start])
    if gap is None or gap[1].lower() != one.after[0] or two.after[:1] != one.after[:1]:
        return False
    return not {stem(w.lower()) for w in gap.groups() if w} & named


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
        if unit:
            return first.after[:1] == (unit[1].lower(),)
        return _same_unit(mention, first) and _coordinated(text, mention, first)
    last = param.spans[-1]
    if (mention.kind == "spelled") != (last.kind == "spelled"):
        return False  # "… a depth of 40. Invoke it four times": a count, no fifth depth
    if _shortened(mention, param.spans):
        return False  # "Apple Inc. … lawsuits involving Apple": the same company again
    if _measured(last) and not _measured(mention):
        return False  # "5'11\" tall … type 2 diabetes": a bare number is no more heights
    fit = _score(param, mention)
    skipped = any(last.end <= m.start < mention.start and _score(param, m) >= fit for m in left)
    return not skipped and (_coordinated(text, last, mention) or _parallel(last, mention))


_UNITS = frozenset(u for units in _DIMENSIONS.values() for u in units)


def _measured(mention: Mention) -> bool:
    """Whether a number is said with a unit ("180 lbs", "5'11\"", "12 m")."""
    if mention.kind != "number":
        return False
    said = re.sub(r"^[-\d.,\s$€£]+", "", mention.text)
    return bool(said) or (mention.after[:1] != () and mention.after[0].lower() in _UNITS)


def _parallel(first: Mention, then: Mention) -> bool:
    """Two values said in the same words ("the average temperature in New York …, the
    average temperature in Los Angeles"): one more of the same, however far apart."""
    said = first.before[-3:]
    return first.kind == then.kind and len(said) == 3 and then.before[-3:] == said


def _same_unit(one: Mention, two: Mention) -> bool:
    """Two numbers each said with the same unit word ("solar for 12 months and wind for 8
    months"): values of one list, whatever is said between them."""
    said = one.kind == two.kind == "number" and one.after[:1] == two.after[:1]
    return said and bool(one.after) and one.after[0].isalpha()


def _shortened(mention: Mention, said: Sequence[Mention]) -> bool:
    """Whether a name says again, shorter, one said before ("Apple" after "Apple Inc.")."""
    own = words(mention.text)
    return mention.kind == "name" and any(
        m.kind == "name" and len(words(m.text)) > len(own) == len(set(own) & set(words(m.text)))
        for m in said
    )


def _coordinated(text: str, first: Mention, then: Mention) -> bool:
    gap = text[first.end : then.start]
    return bool(_JOIN.search(gap)) and len(gap.split()) <= 14


def _admissible(param: _Param, mention: Mention) -> bool:
    """An optional parameter takes a value only when the query ties it to the parameter."""
    if mention.kind == "phrase":
        return _by_means(param, mention)
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


_MEANS = frozenset(stem(w) for w in "mode transportation transport vehicle means method".split())


def _by_means(param: _Param, mention: Mention) -> bool:
    """A plain phrase said after "by", "via" or "through" ("through the train", "by bus")
    for a parameter that is the means or mode of something."""
    before = mention.before[:-1] if mention.before[-1:] == ("the",) else mention.before
    said = before[-1:] and before[-1] in ("by", "via", "through")
    return bool(said) and bool(set(param.stems) & _MEANS) and len(words(mention.text)) == 1


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
    counted = mention.kind in ("number", "spelled") and param.kind == "integer"
    if mention.kind in ("name", "quoted") and _says_what(param, mention):
        return True
    if _described_as(param, mention):
        return True
    if _near(param, mention) or _placed(param, mention) or _by_means(param, mention):
        return True
    return counted and _counts(param, mention)


def _says_what(param: _Param, mention: Mention) -> bool:
    """Whether a name ends in the noun the parameter's description opens with, what it says
    the parameter is ("in the 'British Library'" for "The library where the book should be
    fetched from")."""
    said = words(str(mention.value))
    described = [w for w in words(str(param.schema.get("description", ""))) if w not in _ARTICLES]
    return bool(said) and bool(described) and stem(said[-1]) == stem(described[0])


_ARTICLES = frozenset("the a an".split())


def _described_as(param: _Param, mention: Mention) -> bool:
    """Whether a name holds a word its parameter's description says it is, and no other
    parameter's ("the 'New York Public Library'" for "The library where the book should be
    fetched from")."""
    if mention.kind not in ("name", "quoted"):
        return False
    said = {stem(w) for w in words(str(mention.value))} - {"name", "title", "id"}
    own = {w for w, weight in param.stems.items() if weight >= 1.0} - param.others
    return bool(said & own)


def _placed(param: _Param, mention: Mention) -> bool:
    """A name said after "in", "near" or "at" ("in Rome, Italy", "in the Netherlands") for a
    place parameter; after "on" ("on Switch", "on Netflix") for a platform."""
    before = mention.before[:-1] if mention.before[-1:] == ("the",) else mention.before
    if mention.kind == "name" and before[-1:] == ("on",):
        return bool({stem(w) for w in words(label(param.name))} & _PLATFORM)
    said = mention.kind == "name" and before[-1:] and before[-1] in _PLACE_PREP
    return bool(said) and bool(param.stems.keys() & _PLACE)


_PLATFORM = frozenset(stem(w) for w in "platform console network channel website site".split())


def _near(param: _Param, mention: Mention, ahead: int = 2) -> bool:
    """Whether a word around ``mention`` is one of ``param``'s; after "is the" what it is
    said to be ("'y' is the function variable")."""
    after = mention.after
    if after[:1] in (("is",), ("was",), ("are",)) and after[1:2] in (("a",), ("an",), ("the",)):
        after = after[2:]
    near = {stem(w) for w in mention.before} | {stem(w) for w in after[:ahead]}
    return any(w in param.stems for w in near)
