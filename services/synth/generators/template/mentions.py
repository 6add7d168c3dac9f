"""What a query mentions, before anyone asks which parameter it is for. Pure.

A :class:`Mention` is a span of the query that can be an argument value: a number (digits,
``1,200``, ``5%``, ``$40``, ``3.5e-6``, a number word), a date (any form
:func:`~services.synth.surface.find_dates` reads, or a relative one against a reference
date), a clock time, quoted text, a bracketed list, a code (``LH400``, ``2022/AL2562``), a
name (a run of capitalised words), or a plain noun phrase (the words after a preposition).
Each mention keeps the words just before and after it, which is how the reader ties it to a
parameter's description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from services.synth.generators.template.concepts import phrase_span
from services.synth.generators.template.dates import (
    _MONTH_DOT,
    _MONTH_YEAR,
    _STAMP,
    _glued_dates,
    _joined_time,
)
from services.synth.generators.template.numerals import (
    _FEET_INCHES,
    _NUMBER,
    _POWER_OF_TEN,
    _RATING,
    _SPELLED,
    _number,
    _spelled,
)
from services.synth.generators.template.phrases import stem
from services.synth.generators.template.surroundings import _after
from services.synth.surface import RELATIVE as _RELATIVE
from services.synth.surface import find_dates, find_times, relative_dates

__all__ = ["Mention", "find_mentions", "words"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?")
_QUOTED = re.compile(
    r"(?<![A-Za-z])'(.{1,200}?)'(?![A-Za-z])|\"([^\"]{1,200})\"|“([^”]{1,200})”|`([^`]{1,200})`"
)
"""Quoted text: in single, double or curly quotes, or in backticks (a dataset `df`)."""
_TERM = r"(?:\d+(?:\.\d+)?\*?)?[xyz](?:\^\d+)?|\d+(?:\.\d+)?"
_EXPRESSION = re.compile(
    rf"(?<![\w^/.])(?=[^\s]*[xyz])"
    rf"(?:\d+(?:\.\d+)?[xyz]\^\d+|(?:{_TERM})(?:\s*[-+*/]\s*(?:{_TERM}))+)"
    rf"(?:\s*[-+*/]\s*(?:{_TERM}))*(?![\w^/])"
)
"""A polynomial said bare ("3x^2 + 2x - 1", "2x^2", "2x + 5"): in x, y or z, with an
operator or a coefficient and a power ("the coefficient of x^2" names a term, no value)."""
_ABBREVIATED = re.compile(r"\b(?:Inc|Corp|Co|Ltd|Jr|Sr|St|Bros)\.$")
_TUPLE = re.compile(r"\((\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*)\)")
_LIST = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\]){1,400})\]")
_UUID = re.compile(r"(?<![\w-])[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}(?![\w-])", re.I)
_CODE = re.compile(
    r"(?<![\w/])(?=[\w/.:-]*\d)(?=[\w/.:-]*[A-Za-z/])[A-Za-z0-9][\w/.:-]*[A-Za-z0-9](?![\w/])"
)
_IDENT = re.compile(
    r"(?<![\w/.@-])(?:(?:[A-Za-z]:|~)?/(?:[\w.-]+/)*[\w.-]*\w|[\w.-]+/(?:[\w.-]+/)+[\w.-]*\w|"
    r"(?:[\w.-]+/)*\w[\w-]*\.(?:csv|txt|json|xlsx?|pdf|py|png|jpe?g|docx?|html?|xml|mp3|mp4|wav)\b|"
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[A-Za-z]\w*_\w*[A-Za-z0-9](?![\w/@]))"
)
"""Identifiers, paths, file names and e-mail addresses ("personal_data", "C:/data/cars.csv",
"johndoe@email.com"): one value each, never cut at their ``_``, ``/`` or ``.``."""
_CAP = re.compile(
    r"(?<![\w'])(?:[A-G]#(?![\w#])|[A-ZÀ-Þ](?:[^\W\d_]|['&.-])*(?![\w]))"
    r"(?:\s+(?:(?:of|de|la|del|the|da|von|du)\s+)?"
    r"(?:[A-ZÀ-Þ](?:[^\W\d_]|['&.-])*(?![\w]))|\s+\d+\b)*"
)
"""Runs of capitalised words; a note with its sharp ("C# major", "F#") is one word."""
_MODEL = re.compile(r"\b([A-Z][a-z]+)(?:\s+[A-Z][a-z]+)*\s+[A-Z]{1,3}\d+[A-Za-z]?\b(?![-/.]\w)")
"""A brand and its model code ("Yamaha P125", "Galaxy S21"): one name."""
_LABELS = frozenset(
    "id no nr number case flight room order gate seat version code ref item product account "
    "unit building route bus train platform ticket table row section level floor".split()
)
"""Words that label the code after them ("Id B1004", "Flight UA123"), no brand."""
_NUMBERED = re.compile(r"(?:^|\s)(?:No\.?|Number|Nr\.?|ID|Id)(?:\s+\d+)?$")
"""A capitalised label that says a number follows ("Case No 28473", "Flight Number 330",
"user ID 12345")."""
_PHRASE = re.compile(
    r"\b(?:in|for|of|from|to|at|on|about|near|by|via|through|between|called|named|titled)\s+"
    r"(?:the\s+|a\s+|an\s+|my\s+)?"
    r"([a-z][\w'-]*(?:\s+(?!(?:and|or|in|for|of|from|to|at|on|with|by|that|which|if|is|are|as|"
    r"using|under|over|within|per|than|when|where|while|after|before)\b)[a-z][\w'-]*){0,2})"
)
_SEASON = re.compile(r"(?<![\w-])((?:1[89]|20)\d{2})[-–/]((?:1[89]|20)?\d{2})(?![\w-])")
_PUNCT = re.compile(r"[,;:.?!()—]")
_JOINED = re.compile(r"\b(?:and|or)\b|[,;]")
_TAG = re.compile(r"(?<![\w@#])[#@][A-Za-z0-9][\w-]*")
_AS_TAIL = re.compile(r"\s+as\s+(?:the\s+|a\s+|an\s+)?(?:[\w'-]+\s*){1,4}")
_SENTENCE_END = re.compile(r"(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)\.\s")
_COUNTED = re.compile(r"\d+(?:\.\d+)?-[A-Za-z]+")
_VERSUS = re.compile(
    r"(?<![\w'])[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*\s+(?:vs\.?|v\.)\s+[A-Z]\w*(?:\s+[A-Z]\w*)*"
    r"(?=\s+(?:[a-z]+\s+)?case\b)"
)
"""Two parties' names joined by "vs" and said as a case ("the Smith vs Jones lawsuit case")."""
_APPOSED = re.compile(r"\s+([a-z]+),\s*")
"""A noun and a comma right before a name: the name is what the noun names."""
_ORDINAL = re.compile(r"\b(\d{1,4})(?:st|nd|rd|th)\b", re.I)
_NOT_PHRASE = frozenset(
    "know knowing get getting find finding see make do be have use using help learn compare "
    "calculate check same each all both any more which what how next last past previous "
    "upcoming coming current following this that these those its their his her".split()
)
"""Words that start an ask, not a value ("to know the total", "for the same day"), or
refer back to one said before ("of these two functions", "of this route")."""
_FILLER = frozenset("a an the my me you it this that these those them there here some any".split())
_SET = re.compile(r"\b([A-Za-z_]\w{0,30})\s*(?:=|:)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)")
_NOT_NAMES = frozenset("i i'm i'd i'll also then and please can could what how".split())
_REGIONS = frozenset(
    (
        "alabama alaska arizona arkansas california colorado connecticut delaware florida "
        "georgia hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland "
        "massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio "
        "oklahoma oregon pennsylvania tennessee texas utah vermont virginia washington "
        "wisconsin wyoming usa uk england scotland france germany italy spain japan china "
        "india canada australia brazil mexico russia egypt kenya nigeria portugal greece "
        "ireland netherlands sweden norway denmark switzerland austria poland turkey"
    ).split()
    + "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV "
    "NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC US".lower().split()
    + ["new york", "new jersey", "new mexico", "north carolina", "south carolina"]
)
"""What may follow a place after a comma and belong to it ("Miami, Florida", "Austin, TX")."""


@dataclass(frozen=True)
class Mention:
    """One candidate value: its ``kind``, parsed ``value``, span and surrounding words."""

    kind: str
    value: object
    start: int
    end: int
    text: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


def words(text: str) -> list[str]:
    """Lower-case words and numbers of ``text``."""
    return [w.lower() for w in _WORD.findall(text)]


_Span = tuple[int, int, str, object]


class _Spans:
    """Spans found so far; a new one that overlaps a kept one is dropped (first finder wins)."""

    def __init__(self, text: str, naming: frozenset[str] = frozenset()) -> None:
        self.text = text
        self.naming = naming
        self.spans: list[_Span] = []
        self.taken: list[tuple[int, int]] = []

    def add(self, start: int, end: int, kind: str, value: object) -> None:
        if any(s < end and start < e for s, e in self.taken):
            return
        if kind in ("name", "code") and self.naming and _naming(self.text[start:end], self.naming):
            return
        self.taken.append((start, end))
        self.spans.append((start, end, kind, value))


def _naming(said: str, naming: frozenset[str]) -> bool:
    return {stem(w) for w in words(said)} <= naming


def find_mentions(
    text: str, reference: date | None = None, naming: frozenset[str] = frozenset()
) -> list[Mention]:
    """Every mention in ``text``, in text order (see :func:`_found`, which keeps the last
    texts read: routing, scenes and values read the same clauses again)."""
    return list(_found(text, reference, naming))


@lru_cache(maxsize=4096)
def _found(text: str, reference: date | None, naming: frozenset[str]) -> tuple[Mention, ...]:
    """Every mention in ``text``, in text order; spans never overlap (first finder wins).

    The finders run from the most specific form to the loosest: explicit settings, quoted
    text and lists, dates and times, numbers with units, codes, names, bare numbers, number
    words, and last the noun phrases after a preposition. A name or code whose word stems
    are all in ``naming`` (the words of the tool's and its parameters' names: "the SNP ID
    rs6034464", "on Spotify") names what is asked and is no mention.
    """
    found = _Spans(text, naming)
    for m in _FEET_INCHES.finditer(text):  # "6 feet 2 inches", 5'11": one height, in inches
        found.add(m.start(), m.end(), "number", float(int(m[1]) * 12 + int(m[2])))
    for m in _UUID.finditer(text):  # "id: 3acaaf82-…": one id, not a setting of 3
        found.add(m.start(), m.end(), "code", m[0])
    _find_literals(found)
    for m in _POWER_OF_TEN.finditer(text):  # "8.854 x 10^-12": one number
        found.add(m.start(), m.end(), "number", float(m[1]) * 10 ** int(m[2]))
    for m in _EXPRESSION.finditer(text):  # "3x^2 + 2x - 1": one value, in Python's power
        found.add(m.start(), m.end(), "quoted", m[0].replace("^", "**"))
    _find_dates(found, reference)
    for m in _SEASON.finditer(text):  # "the 2019-2020 season", "2018/19": one value
        if int(m[2][-2:]) == (int(m[1]) + 1) % 100:
            found.add(m.start(), m.end(), "code", m[0])
    for m in _NUMBER.finditer(text):  # with a unit, currency, percent sign or exponent first
        if m["unit"] or m["pct"] or m["cur"] or "e" in m["num"].lower():
            found.add(m.start(), m.end(), "percent" if m["pct"] else "number", _number(m))
    for m in _RATING.finditer(text):  # "above 4/5": a rating of 4 (out of 5)
        if float(m[1]) <= float(m[2]):
            found.add(m.start(), m.end(), "number", float(m[1]))
    for m in _ORDINAL.finditer(text):  # "the 16th century" (dates took theirs already)
        found.add(m.start(), m.end(), "number", float(m[1]))
    for m in _IDENT.finditer(text):
        found.add(m.start(), m.end(), "code", m[0])
    for m in _MODEL.finditer(text):  # "a Yamaha P125 piano": the brand and its model
        if not _sentence_start(text, m.start()) and m[1].lower() not in _LABELS:
            found.add(m.start(), m.end(), "name", m[0])
    for m in _CODE.finditer(text):
        if not _COUNTED.fullmatch(m[0]):  # "a 7-day trip": a number and its unit
            found.add(m.start(), m.end(), "code", m[0])
    for m in _VERSUS.finditer(text):  # "the R vs Adams legal case": one case's name
        found.add(m.start(), m.end(), "name", m[0])
    _find_names(found)
    for m in _NUMBER.finditer(text):
        found.add(m.start(), m.end(), "percent" if m["pct"] else "number", _number(m))
    for m in _SPELLED.finditer(text):
        found.add(m.start(), m.end(), "spelled", _spelled(m[0]))
    for m in _PHRASE.finditer(text):
        if not set(m[1].split()) <= _FILLER and m[1].split()[0] not in _NOT_PHRASE:
            start, end = phrase_span(text, m.start(1), m.end(1))
            found.add(start, end, "phrase", text[start:end])
    return tuple(_mentions(text, _places(text, sorted(found.spans))))


def _find_literals(found: _Spans) -> None:
    """``a=2`` settings, quoted text, bracketed lists, coordinate tuples."""
    text = found.text
    for m in _SET.finditer(text):  # "a=2", "x: 4" name the parameter outright
        found.add(m.start(2), m.end(2), "number", float(m[2]))
    quotes = [q.span() for q in _QUOTED.finditer(text)]
    for m in _LIST.finditer(text):  # "['Sam', 'Alice']": one list, unless inside a quote
        if not any(a < m.start() < b for a, b in quotes):
            found.add(m.start(), m.end(), "list", m[1])
    for m in _QUOTED.finditer(text):
        found.add(m.start(), m.end(), "quoted", next(g for g in m.groups() if g is not None))
    for m in _LIST.finditer(text):
        found.add(m.start(), m.end(), "list", m[1])
    for m in _TUPLE.finditer(text):  # "(40.71, -74.00)": a pair of coordinates
        found.add(m.start(), m.end(), "list", m[1])


def _find_dates(found: _Spans, reference: date | None) -> None:
    """Timestamps, dates (with a clock time said right after them), tags, relative dates
    against ``reference`` (without one, as said: "next Friday", unless the day is also
    said as a date), clock times."""
    text = found.text
    for m in _STAMP.finditer(text):
        found.add(m.start(), m.end(), "datetime", f"{m[1]}T{m[2]}:{m[3]}:00Z")
    times = find_times(text)
    dated = find_dates(_MONTH_DOT.sub(lambda m: m[0][:-1] + " ", text))
    dated = (*dated, *_glued_dates(text))
    for start, end, iso in dated:
        joined = _joined_time(text, end, times)
        if joined:
            found.add(start, joined[0], "datetime", f"{iso}T{joined[1][:5]}:00Z")
        found.add(start, end, "date", iso)
    for m in _TAG.finditer(text):
        found.add(m.start(), m.end(), "code", m[0])
    for start, end, iso in relative_dates(text, reference) if reference else ():
        joined = _joined_time(text, end, times)  # "tomorrow at 09:30 UTC"
        if joined:
            found.add(start, joined[0], "datetime", f"{iso}T{joined[1][:5]}:00Z")
        found.add(start, end, "date", iso)
    undated = reference is None and not dated and not _MONTH_YEAR.search(text)
    for m in _RELATIVE.finditer(text) if undated else ():
        start = m.start() + (len(m[0]) - len(m[0][3:]) if m[0].lower().startswith("on ") else 0)
        found.add(start, m.end(), "date", text[start : m.end()])  # no day to count from
    for start, end, clock in times:
        found.add(start, end, "time", clock[:5])


def _find_names(found: _Spans) -> None:
    """Runs of capitalised words, not a sentence's first word, cut before a kept span."""
    text = found.text
    for m in _CAP.finditer(text):
        said = _SENTENCE_END.split(m[0], maxsplit=1)[0]  # "Hilton New York. Can you": two
        kept = said if _ABBREVIATED.search(said) else said.rstrip(".")  # "Apple Inc."
        start, name = m.start(), re.sub(r"'s$", "", kept)
        if _sentence_start(text, start):  # the sentence's first word is capitalised anyway
            first = name.split(" ", 1)
            if len(first) == 1 and not re.fullmatch(r"[A-Z]{2,5}", name):
                continue
            if len(first) > 1:  # an acronym alone ("pairs: USD to AUD") is a name anyway
                start, name = start + len(first[0]) + 1, first[1]
                joined = re.match(r"(?:(?:of|de|la|del|the|da|von|du)\s+)+", name)
                if joined:  # "All the Drama …": not "the Drama"
                    start, name = start + joined.end(), name[joined.end() :]
        if not name[:1].isalpha() or name.split(" ", 1)[0].lower() in _NOT_NAMES:
            continue
        if _NUMBERED.search(name):  # "Case No 28473": a label and its number, no name
            continue
        end = start + len(name)
        clash = min((s for s, e in found.taken if start < e and s < end), default=None)
        if clash is not None:  # "Bergen" before "March 3, 2027": keep the part before it
            name = re.sub(r"(?:\s+(?:of|de|la|del|the|da|von|du))*\s*$", "", text[start:clash])
            if not name or clash <= start:
                continue
        found.add(start, start + len(name), "name", name)


def _mentions(text: str, spans: list[_Span]) -> list[Mention]:
    """The spans as mentions, each with the words around it."""
    out, previous = [], 0
    for index, span in enumerate(spans):
        following = next((s[0] for s in spans[index + 1 :] if s[2] != "phrase"), len(text))
        out.append(_mention(text, *span, previous, following))
        if span[2] != "phrase":
            tail = _AS_TAIL.match(text, span[1])  # "JFK as the departure airport": its words
            previous = tail.end() if tail else span[1]
    return _series(text, out)


_RUN_GAP = re.compile(r"\s*(?:,|,?\s*and|,?\s*or|&)\s*")


def _series(text: str, mentions: list[Mention]) -> list[Mention]:
    """A run of one kind of value said as a list ("for 10, 20 and 30 years", "Oslo and
    Bergen") shares its words: each member gets the words before the first and after the
    last. An amount and a plain number are of two kinds (see :func:`_priced`)."""
    out = list(mentions)
    start = 0
    while start < len(out):
        end = start
        while (
            end + 1 < len(out)
            and out[end + 1].kind == out[start].kind != "phrase"
            and _RUN_GAP.fullmatch(text[out[end].end : out[end + 1].start])
            and _priced(out[end + 1]) == _priced(out[start])
        ):
            end += 1
        if end > start:
            first, last = out[start], out[end]
            for index in range(start, end + 1):
                m = out[index]
                before = m.before if index == start else first.before
                after = m.after if index == end else last.after
                out[index] = Mention(m.kind, m.value, m.start, m.end, m.text, before, after)
        start = end + 1
    return out


def _priced(mention: Mention) -> bool:
    """Whether a number is said with a currency sign: "$1,000,000 and 500,000 outstanding
    shares" are an amount and a count, no list of one kind of value."""
    return mention.kind == "number" and mention.text[:1] in "$€£"


def _places(
    text: str, spans: list[tuple[int, int, str, object]]
) -> list[tuple[int, int, str, object]]:
    """ "Miami, Florida" is one place: a name, a comma, then a state or country name."""
    out: list[tuple[int, int, str, object]] = []
    for span in spans:
        if out and _region_after(text, out[-1], span):
            start = out[-1][0]
            out[-1] = (start, span[1], "name", text[start : span[1]])
            continue
        out.append(span)
    return out


def _region_after(
    text: str, place: tuple[int, int, str, object], span: tuple[int, int, str, object]
) -> bool:
    names = place[2] == "name" and span[2] == "name"
    region = str(span[3]).lower() in _REGIONS
    return names and region and re.fullmatch(r",\s*", text[place[1] : span[0]]) is not None


def _sentence_start(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \"'“")
    return not before or before[-1] in ".?!:;"


def _mention(
    text: str, start: int, end: int, kind: str, value: object, floor: int, ceiling: int
) -> Mention:
    """The mention with up to five words before it (not reaching back past the previous
    mention: "base and height as 6 and 10" gives 10 no words) and up to three after it, up
    to a punctuation mark or the next mention ("5% annual yield after 3 years": "annual
    yield after"); six when they start with "as"."""
    said = text[max(0, start - 60, floor) : start]
    if floor > start - 60:  # "12 feet in length and 8 feet": what is said before the
        pieces = _JOINED.split(said)  # join describes the value before it
        apposed = _APPOSED.fullmatch(said) if kind == "name" else None  # "a player, Serena"
        said = apposed[1] if apposed else pieces[-1]
    before = tuple(words(said)[-5:])
    tail = words(text[end : end + 60])
    if tail[:1] == ["as"]:
        after = tuple(tail[:6])
    elif kind == "name" and _APPOSED.fullmatch(text[end:ceiling]):
        after = ()  # "a Tennis player, Serena Williams": the player is the next name
    else:
        after = _after(words(_PUNCT.split(text[end : min(end + 60, ceiling)], 1)[0]))
    if kind == "number" and text[start] in "$€£":
        after = (*after, "usd")
    if kind == "number":
        setting = re.search(r"\b([A-Za-z_]\w{0,30})\s*(?:=|:)\s*$", text[:start])
        if setting:
            before = (*before, "=" + setting[1].lower())
    return Mention(kind, value, start, end, text[start:end], before, after)
