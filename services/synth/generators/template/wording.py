"""How requests word what a schema leaves to them: kinds, units and losses. Pure.

The reader asks these when a value has no form of its own: the words qualifying a noun of
the tool ("jazz events": the genre), a unit said after "in" ("in miles"), an amount said as
a loss ("a loss of $1000": -1000 where the schema takes losses as negative amounts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import ASK_WORDS, STOPWORDS, stem
from services.synth.surface import label

__all__ = ["KIND_WORDS", "qualifiers", "sign", "unit_said"]

KIND_WORDS = frozenset("type kind name title category level mode id".split())
"""Words of a parameter's name that say it picks a kind, not which noun it qualifies."""
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|[^\sA-Za-z]+")
_NOT_QUALIFIER = frozenset(
    "best top nearest closest local nearby good great popular famous recent latest new "
    "next last past previous upcoming coming current following same other another each "
    "every all some any many much few several various different more most total average "
    "overall entire whole full about over under into through during between per via than "
    "like near this that these those its their his her our your minimum maximum required "
    "estimated expected".split()
)
"""Words before a noun that rank, place, count or bound it rather than say which kind it
is ("the required minimum population size")."""
_NUMBER_WORD = re.compile(
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|first|second|third|fourth|fifth|dozen"
)


def qualifiers(text: str, nouns: frozenset[str]) -> list[Mention]:
    """The one or two plain words just before one of ``nouns`` (word stems) in ``text``
    ("upcoming jazz events" for ``event_finder``: "jazz"), as phrases: which kind of that
    thing is asked."""
    tokens = list(_TOKEN.finditer(text))
    found = []
    for index, token in enumerate(tokens):
        if stem(token[0].lower()) not in nouns:
            continue
        said: list[re.Match[str]] = []
        for before in reversed(tokens[max(0, index - 2) : index]):
            word = before[0]
            if not word.islower() or not _qualifies(word, nouns):
                break
            said.insert(0, before)
        if not said:
            continue
        start, end = said[0].start(), said[-1].end()
        phrase = text[start:end]
        before_words = tuple(words(text[max(0, start - 40) : start])[-5:])
        found.append(Mention("phrase", phrase, start, end, phrase, before_words, (token[0],)))
    return found


def _qualifies(word: str, nouns: frozenset[str]) -> bool:
    plain = word not in STOPWORDS and word not in ASK_WORDS and word not in _NOT_QUALIFIER
    participle = len(word) > 4 and word.endswith("ed")  # "a customized contract": how
    counted = bool(_NUMBER_WORD.fullmatch(word))  # "three personality traits"
    return plain and not participle and not counted and stem(word) not in nouns and word.isalpha()


_UNIT_WORD = re.compile(
    r"\bin\s+(?:square\s+|cubic\s+)?((?!and/|or/)[a-z]{1,3}/[a-z]{1,3}(?:\^?[23]|[²³])?(?![\w/^])|"
    r"miles?|kilomet(?:er|re)s?|met(?:er|re)s?|feet|foot|inch(?:es)?|yards?|"
    r"centimet(?:er|re)s?|millimet(?:er|re)s?|celsius|fahrenheit|kelvin|"
    r"pounds|kilograms?|grams?|ounces?|liters?|litres?|gallons?|seconds?|minutes?|hours?|"
    r"mph|km|cm|mm|kg|lbs?)\b",
    re.I,
)


def unit_said(name: str, kind: str, text: str) -> list[str]:
    """A unit parameter's value said as "in miles", "in square meters", "in kg/m³" (a unit
    of units is one value): the reader asks it when none of the options its description
    offers is said."""
    if kind != "string" or "unit" not in {stem(w) for w in words(label(name))}:
        return []
    found = _UNIT_WORD.search(text)
    return [found[1].lower()] if found else []


_LOSS = frozenset(
    "loss losses lost lose losing decrease decreased drop dropped fell deficit".split()
)
_SIGNED = re.compile(r"\bnegative\b|\bloss|\blos[te]\b", re.I)


def sign(said: str, before: Sequence[str], value: float) -> int:
    """-1 for an amount said as a loss (``before``: the words just before it, "with a loss
    of $1000") when the parameter (``said``: its name and description) takes losses as
    negative amounts ("gain or loss", "negative if lost"); else 1."""
    lost = set(before[-3:]) & _LOSS
    return -1 if lost and _SIGNED.search(said) and value > 0 else 1


_DIMENSIONS: dict[str, frozenset[str]] = {
    "temperature": frozenset("k kelvin celsius fahrenheit degree degrees °c °f c f".split()),
    "mass": frozenset("kg g mg kilogram kilograms gram grams lb lbs pound pounds".split()),
    "mole": frozenset("mol mole moles".split()),
    "length": frozenset(
        "m meter meters metre metres km kilometer kilometers cm mm mile miles ft feet foot "
        "inch inches yard yards centimeter centimeters millimeter millimeters".split()
    ),
    "time": frozenset("s sec secs second seconds min minute minutes hr hrs hour hours".split()),
    "charge": frozenset("coulomb coulombs".split()),
}
"""What a parameter measures, by a word of its name or description, and the units a
request states such a value in."""
_DIMENSION_WORDS = {
    "weight": "mass", "quantity": "mole", "moles": "mole", "temp": "temperature",
    "distance": "length", "radius": "length", "height": "length", "width": "length",
    "diameter": "length", "meters": "length", "metres": "length", "duration": "time",
    "seconds": "time", "coulombs": "charge",
}  # fmt: skip


def unit_fit(said: str, mention: Mention) -> float:
    """1.0 when the unit a number is said in measures what the parameter does ("300 K"
    for ``temperature1``, "20 kg" for ``mass1``, "2 moles" for ``quantity1``; ``said``: the
    parameter's name and description), -1.0 when it measures another dimension the
    parameter's name and description do not, else 0."""
    unit = re.sub(r"^[-\d.,\s$€£]+", "", mention.text).lower() or (mention.after[:1] or ("",))[0]
    per = re.search(
        r"\b(?:per|a|each|every)\s+(year|month|week|day|hour|minute|second)\b", said, re.I
    )
    if (
        per
        and unit.rstrip("s") == per[1].lower()
        and not re.search(rf"\bin\s+{per[1]}s\b", said, re.I)
    ):
        return -1.0  # "for 10 years" is no count "per year": a span, not how often
    measured = next((d for d, units in _DIMENSIONS.items() if unit in units), None)
    if measured is None:
        return 0.0
    own = {_DIMENSION_WORDS.get(w, w) for w in words(said)} & _DIMENSIONS.keys()
    if not own:
        return 0.0
    return 1.0 if measured in own else -1.0
