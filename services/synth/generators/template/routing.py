"""Which tool each part of a request asks for: the request cut into clauses and asks, each
scored against the candidates' words weighted by rarity (IDF), and grouped by the tool it
picks; a request that no tool clearly fits yields no group (irrelevance)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from services.synth.generators.template.asks import _SAME
from services.synth.generators.template.mentions import find_mentions, words
from services.synth.generators.template.pairing import _CURRENCY
from services.synth.generators.template.phrases import VERB_SYNONYMS, compiled, doer, stem
from services.synth.generators.template.specs import _stems, _Tool
from services.synth.generators.template.wording import _DIMENSIONS
from services.synth.surface import label

_SPAN_WORDS = (
    r"(?:\d|(?:few|couple|several|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    r"twenty|hours?|days?|weeks?|months?|quarters?|years?|decades?|century|centuries|"
    r"seasons?|nights?|rounds?|games?|matches)\b)"
)
"""What follows "the last" when it says a span of time ("the last 5 rounds"), not the last
of several asks."""


_TITLED = "".join(rf"(?<!\b{t}\.)" for t in ("Mr", "Mrs", "Ms", "Dr", "Prof"))
"""Before "Mr. John Doe", "Dr. Smith": a title's period ends no sentence."""


_CLAUSE = re.compile(
    r"(?<=[?!])\s+|(?<=\.)" + _TITLED + r"\s+(?-i:(?![a-z]))|"  # "Apple Inc. is": no end
    r"\s*\b(?:(?<!\bthat\s)(?<!\bwhich\s)(?<!\bwho\s)also|"  # "a shop that also sells"
    r"additionally|secondly|thirdly|finally|lastly|after that|"
    r"and then|then|followed by|furthermore|moreover|plus)\b,?\s*|"
    r",\s+and\s+(?=(?:how|what|which)\s+(?:would|will|does|do|is|are|about)\b)|"
    r",?\s*(?:and\s+)?(?=\bthe\s+(?:second|third|fourth|fifth|other|"
    r"last(?!\s+" + _SPAN_WORDS + r"))\b)",
    re.I,
)


_OPENS = re.compile(
    r"\W*(?:(?:on|in|for|at|with)\s+)?(?:the|a)\s+(?:first|second|third|fourth|fifth|other|"
    r"last(?!\s+" + _SPAN_WORDS + r"))\b",
    re.I,
)
"""A clause that opens with which of several it is about ("In the first scenario", "The
second one", "the last equation"): a new ask."""


_LEAD = re.compile(r"(?:\w+\s+)?\w+,?\s*")
"""A piece too short to be a clause ("On" before "the second day", "I would" before
"also like to know"): it opens the next."""


def _opened(pieces: Iterable[str]) -> list[str]:
    """The clauses among ``pieces``, a lone opening word or two kept with the next one."""
    out: list[str] = []
    carry = ""
    for piece in pieces:
        if not piece or not piece.strip(" ,."):
            continue
        if _LEAD.fullmatch(piece) and not re.search(r"[.?!]\s*$", piece):
            carry = f"{carry}{piece} "
            continue
        out.append(f"{carry}{piece}")
        carry = ""
    if carry and out:
        out[-1] = f"{out[-1]} {carry}"
    return out


_FLOOR = 1.5
"""The least IDF-weighted word overlap for a clause to ask for a tool among several
(lower, and a request no candidate serves still finds one: how irrelevance is read)."""


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


def _respelled(query: str, specs: Sequence[_Tool]) -> str:
    """A word one letter off a long word of a parameter's name ("acceleeration" for
    ``acceleration``) as that word: a slip of the keyboard, not another word. Never inside
    quotes, never a capitalised word, never a change at the word's end ("formats")."""
    vocab = {
        w
        for spec in specs
        for name, _, _ in spec.props
        for w in label(name).lower().split()
        if len(w) >= 8 and w.isalpha()
    }
    if not vocab:
        return query
    grouped = [g.span() for g in _GROUPED.finditer(query)]

    def said(m: re.Match[str]) -> str:
        word = m[0]
        if word in vocab or not word.islower() or any(a < m.start() < b for a, b in grouped):
            return word
        return next((v for v in sorted(vocab) if _slip(word, v)), word)

    return re.sub(r"(?<![\w'-])[A-Za-z]{7,}(?![\w'-])", said, query)


def _slip(said: str, word: str) -> bool:
    """Whether ``said`` is ``word`` with one letter added, dropped or changed, away from
    the last three letters."""
    if abs(len(said) - len(word)) > 1 or said == word:
        return False
    at = next((i for i, (a, b) in enumerate(zip(said, word, strict=False)) if a != b), None)
    if at is None or at >= min(len(said), len(word)) - 3:
        return False
    return any(said[at + a :] == word[at + b :] for a, b in ((1, 1), (1, 0), (0, 1)))


def _names_param(
    specs: Sequence[_Tool], segments: Sequence[tuple[int, list[str]]], clause: str
) -> bool:
    """Whether a clause no tool owns names a parameter of the ask just before it, and of
    no other tool ("… in the year 2018, and also include the species information"), its
    words or words of their family ("if it's available" for ``availability``)."""
    said = {stem(w) for w in words(clause)}

    def named(spec: _Tool) -> bool:
        return any(
            all(w in said or any(_kin(x, w) for x in said) for w in _stems(label(n)))
            for n, _, _ in spec.props
        )

    before = specs[segments[-1][0]]
    return named(before) and not any(named(s) for s in specs if s is not before)


def _route(query: str, specs: Sequence[_Tool]) -> list[tuple[_Tool, str]]:
    """Clauses grouped by the tool each one asks for, in order of first mention."""
    df: dict[str, int] = {}
    for spec in specs:
        for word in spec.words:
            df[word] = df.get(word, 0) + 1
    idf = {w: math.log(1 + len(specs) / n) for w, n in df.items()}
    clauses = [
        piece
        for c in _opened(_CLAUSE.split(query))
        for part in _verb_split(c, specs)
        if part.strip(" ,.")
        for piece in _ask_split(part, specs, idf)
    ]
    owners = _untied([_owner(clause, specs, idf) for clause in clauses], clauses, specs, idf)
    if any(o is not None for o in owners):
        owners = _sole(owners, clauses, specs, idf)
        while owners[-1] is None and _recap(clauses[-1]):  # "… with these tasks?"
            clauses, owners = clauses[:-1], owners[:-1]
    if all(o is None for o in owners):
        whole = _asked(query)
        scores = [_overlap(whole, s, idf) for s in specs]
        best = max(range(len(specs)), key=lambda i: scores[i])
        if scores[best] < (0.5 if len(specs) == 1 else _FLOOR):
            return []
        owners = [best] * len(clauses)
    segments: list[tuple[int, list[str]]] = []
    pending: list[str] = []
    for index, clause in enumerate(clauses):
        owner = owners[index]
        if owner is None and segments and not pending and _names_param(specs, segments, clause):
            owner = segments[-1][0]  # "…, and also include the species information"
        adds = owner is None and segments and not pending
        back = _points_back(clause) or _BACK.search(clause)
        if adds and (back or _closes_sentence(clause, query)):
            segments[-1][1].append(clause)  # "I specifically want to know about its 'material'"
            continue  # "… a brief about this movie and also include …?"
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
        if pending and segments and _OPENS.match(clause):  # "… for July. The second project"
            segments[-1][1].extend(pending)  # what came between ends the ask before
            pending = []
        segments.append((owner, [*pending, clause]))
        pending = []
    return [(specs[i], " ".join(parts)) for i, parts in segments]


_THIS = re.compile(r"\b(?:this|these|those)\s+(?!is\b|are\b)[a-z]+", re.I)


def _points_back(clause: str) -> bool:
    """Whether a clause with no value of its own points back at what the ask before it
    said ("What bugs are available during this time?"): it is more of that ask."""
    return bool(_THIS.search(clause)) and not _valued(clause)


_BACK = re.compile(r"\b(?:its|their)\b", re.I)
"""A pronoun that points back to what the ask before is about ("I want to know about its
'material'"): a clause no tool owns that says one adds to that ask; one that says "this"
does only with no value of its own (see :func:`_points_back`: "The driver keeps this
acceleration for 10 seconds" may set up the next ask)."""


_RECAP = re.compile(
    r"\b(?:with|on|for|about|to|do|answer|complete|handle)\s+(?:all\s+(?:of\s+)?)?"
    r"(?:these|those|this|them|that|the above)\b(?!\s+(?:is|are|was|were)\b)",
    re.I,
)
"""A closing clause that points back at what was asked ("Can you assist John with these
tasks?", "Could you help me with all of this?"): it asks nothing of its own."""


def _recap(clause: str) -> bool:
    """Whether a clause only points back at what was asked (see :data:`_RECAP`); one that
    holds the end of a quote is part of an ask."""
    return bool(_RECAP.search(clause)) and not re.search(r"['\"“”]", clause)


_OPENERS = re.compile(
    r"(?:\b(?:also|additionally|secondly|thirdly|finally|lastly|after that|then|followed by|"
    r"furthermore|moreover|plus)\b[\s,]*)+$",
    re.I,
)
"""The words that open a sentence's ask ("After that, consider …"), cut off the clause."""


def _closes_sentence(clause: str, query: str) -> bool:
    """Whether a clause goes on with a sentence an ask began and ends it ("Could you provide
    a brief about this movie and also include extras like the cast?"): it adds to that ask;
    context for the next ask opens a sentence of its own ("After that, consider …")."""
    said = clause.strip()
    if _SAME.search(said):
        return False  # "…, then repeat the same analysis for 'deletion'?": an ask again
    if not re.match(r"[a-z]", said) or not re.search(r"[.?!][\"”']?$", said):
        return False
    before = _OPENERS.sub("", query[: max(query.find(said), 0)]).rstrip(" ,")
    return bool(before) and before[-1] not in ".?!"


def _asked(text: str) -> set[str]:
    """The words a request asks with; a currency said by name ("500 US dollars") also
    says "currency", two units of one measure ("24 inches … in centimeters") "unit"."""
    said = _stems(text)
    if _CURRENCY.search(text):
        said |= {"currency"}
    return said | {"unit"} if _two_units(text) else said


def _two_units(text: str) -> bool:
    """Whether ``text`` names two units of one measure by their words ("15 kilometers …
    into miles"): what a unit conversion asks."""
    said = {w for w in words(text.lower()) if len(w) > 2}
    return any(len(said & units) > 1 for units in _DIMENSIONS.values())


def _overlap(said: set[str], spec: _Tool, idf: Mapping[str, float]) -> float:
    """The IDF-weighted words a clause shares with a tool; a word of the same family as a
    tool's word ("projected" ~ "projection", "weigh" ~ "weight") counts as that word, and
    as the weightiest of its family ("contribution" in a description, "contrib" in the
    name: the name's weight); one whose doer the tool says ("law" for "lawyer") counts
    :data:`_DOER` as much."""
    own = tuple(spec.words)
    score = 0.0
    for word in said:
        family = _family(word, own)
        score += max((share * spec.words[w] * idf[w] for w, share in family), default=0.0)
    return score


@lru_cache(maxsize=65536)
def _family(word: str, own: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """The tool's words ``word`` counts as, each with its share: 1 for the word itself and
    its kin, :data:`_DOER` for the one who does it."""
    kin = tuple((w, 1.0) for w in own if w == word or _kin(word, w))
    return kin + tuple((w, _DOER) for w in own if doer(word, w))


_DOER = 0.8
"""How much a word counts for a tool that says the one who does it ("law" for "lawyer"),
against the tool's own word ("a concert that plays 'Rock'": the concert, not a player)."""


@lru_cache(maxsize=65536)
def _kin(said: str, word: str) -> bool:
    """Whether two long words are of one family: they share most of the shorter one's
    start, seven letters or more (short words differ too little to tell kin from chance)."""
    if min(len(said), len(word)) < 7 or not said.isalpha() or not word.isalpha():
        return False
    shared = next(
        (i for i, (a, b) in enumerate(zip(said, word, strict=False)) if a != b),
        min(len(said), len(word)),
    )
    return shared >= 7 and shared >= 0.7 * min(len(said), len(word))


def _untied(
    owners: list[int | None],
    clauses: Sequence[str],
    specs: Sequence[_Tool],
    idf: Mapping[str, float],
) -> list[int | None]:
    """A clause that fits two sibling tools equally ("the population size of tigers …" for
    the history and the projection) while the next or previous ask says which of the two it
    wants ("the projected population size …"): the other sibling, when the clause holds its
    own values (it is an ask of its own, not context)."""
    out = list(owners)
    for index, clause in enumerate(clauses):
        if owners[index] is not None:
            continue
        said = _asked(clause)
        scores = [_overlap(said, s, idf) for s in specs]
        top = max(scores)
        tied = [i for i, score in enumerate(scores) if score == top]
        if top < _FLOOR or len(tied) != 2:
            continue
        near = {owners[j] for j in (index - 1, index + 1) if 0 <= j < len(owners)}
        for taken, other in (tied, tied[::-1]):
            if taken in near and other not in near and _valued(clause):
                out[index] = other
    return out


def _owner(clause: str, specs: Sequence[_Tool], idf: Mapping[str, float]) -> int | None:
    """The tool a clause clearly asks for (by its IDF-weighted shared words), if any."""
    said = _asked(clause)
    scores = [_overlap(said, s, idf) for s in specs]
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
    spans = [g.span() for g in _GROUPED.finditer(text)] + _nested(text)
    grouped = [span for span in spans if span != (0, whole)]
    out, start = [], 0
    for m in pattern.finditer(text):
        if any(a < m.start() < b for a, b in grouped):
            continue
        out += [text[start : m.start()], m[1]]
        start = m.end()
    return [*out, text[start:]]


def _nested(text: str) -> list[tuple[int, int]]:
    """The spans of outermost ``(…)`` groups that hold another group ("(name …, address
    (street …))": one object value, never cut at its commas)."""
    spans, depth, start, inner = [], 0, 0, False
    for index, char in enumerate(text):
        if char == "(":
            depth, inner = depth + 1, inner or depth > 0
            start = index if depth == 1 else start
        elif char == ")" and depth:
            depth -= 1
            if depth == 0 and inner:
                spans.append((start, index + 1))
            inner = inner and depth > 0
    return spans


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
    last = None
    for owner, piece, join in zip(owners, pieces, joins, strict=True):
        if owner is None or (merged and owner == last):  # "in 1980 and 1990 …": one ask
            if merged:
                merged[-1] = f"{merged[-1]}{join}{piece}"
            else:
                lead = f"{lead}{join}{piece}"
            continue
        merged.append(f"{lead}{join if lead else ''}{piece}")
        lead, last = "", owner
    return merged


def _verb_split(clause: str, specs: Sequence[_Tool]) -> list[str]:
    """A clause cut before "and <verb>" when the verb is what a candidate function does
    ("the factorial of 8 and generate the primes"): two asks in one sentence."""
    verbs = _verbs(tuple(s.name for s in specs))
    if not verbs:
        return [clause]
    pattern = rf",?\s+and\s+(?=(?:{'|'.join(map(re.escape, verbs))})\b)"
    return compiled(pattern, re.I).split(clause)


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


def _valued(clause: str) -> bool:
    """Whether a clause says a value of its own (a number, a date, a name)."""
    return any(m.kind not in ("phrase", "spelled") for m in find_mentions(clause))


def _complete(spec: _Tool, clause: str) -> bool:
    """Whether a clause holds a value for each of the tool's required parameters (then it
    is a call of its own, not more values for the previous clause's call)."""
    required = sum(1 for _, _, needed in spec.props if needed)
    typed = [m for m in find_mentions(clause) if m.kind not in ("phrase", "spelled")]
    return len(typed) >= max(required, 1)


def _sole(
    owners: list[int | None],
    clauses: Sequence[str],
    specs: Sequence[_Tool],
    idf: Mapping[str, float],
) -> list[int | None]:
    """In a request that asks some tool clearly, a clause that says values of its own and
    shares words with one candidate only ("I'm thinking of renting a sedan from Enterprise
    for 10 days") asks that one, though its words weigh less than :data:`_FLOOR`; unless that
    one is the next ask anyway, which the clause then leads up to."""
    out = list(owners)
    for index, clause in enumerate(clauses):
        if owners[index] is not None:
            continue
        scores = [_overlap(_asked(clause), s, idf) for s in specs]
        fitting = [i for i, score in enumerate(scores) if score > 0]
        following = next((o for o in owners[index + 1 :] if o is not None), None)
        if len(fitting) != 1 or fitting[0] == following:  # context of the ask that follows
            continue
        if scores[fitting[0]] >= 1.0 and _valued(clause):
            out[index] = fitting[0]
    return out
