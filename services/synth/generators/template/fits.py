"""How well a mention fits a parameter: its kind against the parameter's type and format,
the words around it (a place preposition, "<name> is", a value the schema offers), and the
kinds of value a parameter never takes (a gender for a sport, a number for a city)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import stem
from services.synth.generators.template.specs import _closed, _kind, _Param, undefaulted
from services.synth.generators.template.wording import unit_fit
from services.synth.surface import label

_PLACE = frozenset("location city place area region country state address town".split())


_PLACE_PREP = frozenset("in near at around".split())


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


_GENDERS = frozenset("male female men women man woman".split())
"""Words that say a gender: a value of a gender (or sex) parameter, of no other one."""


def _gendered(param: _Param) -> bool:
    return bool(param.stems.keys() & {"gender", "sex"})


def _never_text(param: _Param, mention: Mention) -> bool:
    """Whether a text parameter never takes ``mention``: a gender for anything but a gender
    ("the top female player" is no sport), an ordinal ("the 1st move"), a count of other
    things ("1000 rows and 20 columns"), a number for a place ("open 24 hours" is no
    city)."""
    if str(mention.value).lower() in _GENDERS and not _gendered(param):
        return True
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", mention.text, re.I):
        return True  # "the 1st move is e4": an ordinal says which one
    number = mention.kind == "number"
    return number and (_counted(param, mention) or _place_only(param))


def _counted(param: _Param, mention: Mention) -> bool:
    """Whether a number counts things its parameter does not name ("1000 rows")."""
    noun = mention.after[0] if mention.after else ""
    plural = len(noun) > 3 and noun.isalpha() and noun.endswith("s") and not noun.endswith("ss")
    return plural and stem(noun) not in param.stems


def _score(param: _Param, mention: Mention) -> float:
    kind = param.kind
    schema = param.schema
    if kind == "array":
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        kind = _kind(items or {})
        if mention.kind == "list":
            return 2.0
    compat = _COMPAT.get(kind, {}).get(mention.kind, 0.0)
    if kind in ("integer", "number") and mention.kind == "quoted":
        compat = 1.0 if re.fullmatch(r"-?\d+(?:\.\d+)?", str(mention.value)) else 0.0
    if not compat or (kind == "string" and mention.kind in ("name", "phrase") and _closed(param)):
        return 0.0  # "Can be 'summary' or 'detailed'": one of those, never a name
    if (
        kind == "string"
        and mention.kind == "number"
        and re.search(r"(?:^|_)(?:id|number|code)$", param.name, re.I)
    ):
        compat = 0.9  # "patient with id 546382"
    if kind == "string" and _never_text(param, mention):
        return 0.0
    if kind == "string" and _no_date(param, mention):
        return 0.0  # "the NASDAQ stock price … on March 11": NASDAQ is no date
    if kind == "string" and mention.kind == "name":
        compat = _name_fit(param) * (0.5 if _owned_thing(param, mention) else 1.0)
    if kind == "string" and re.search(r"(?:^|_)id$", param.name, re.I):
        compat = {"code": 1.0, "name": 0.6}.get(mention.kind, compat)  # "ID rs6034464"
    if kind == "integer" and mention.kind != "spelled" and not float(mention.value).is_integer():
        return 0.0
    if mention.kind == "number" and _chance(param) and not 0 <= float(mention.value) <= 1:
        return 0.0  # "winning exactly 5 times" is no probability
    if mention.kind == "number" and _calendar_year(param) and not _year_like(mention):
        return 0.0  # "$1M in 2019": the amount is no year
    fmt = schema.get("format")
    if fmt == "date-time":
        compat = {"datetime": 1.5, "quoted": 0.3}.get(mention.kind, 0.0)
    elif mention.kind == "date":
        compat = 1.5 if fmt == "date" or "date" in param.stems else compat
    if not compat:
        return 0.0
    context = _cues(param, mention)
    for distance, word in enumerate(reversed(mention.before)):
        if word == "=" + param.name.lower():
            return compat * 100.0
        context += _weight(param, word) / (1.0 + 0.5 * distance)
    owner = mention.after[:1] == ("s",)  # "Germany's men soccer team": only a team says
    for distance, word in enumerate(mention.after):
        weight = _weight(param, word)
        context += 0.0 if owner and weight < 2.0 else weight / (1.0 + 0.5 * distance)
    if mention.kind == "number":  # "300 K" for a temperature, "2 moles" for a quantity
        fit = unit_fit(f"{label(param.name)} {undefaulted(schema)}", mention)
        if fit < 0:
            return 0.0  # "2 meters" is never a charge in Coulombs
        context += fit
    return compat * max(1.0 + context, 0.1)


def _cues(param: _Param, mention: Mention) -> float:
    """What the words right around a mention say of ``param`` beyond its own words: a
    place preposition, "from" a maker, a name holding the parameter's name, a value the
    schema offers, "<name> is"."""
    context = 0.0
    if mention.before[-1:] and mention.before[-1] in _PLACE_PREP and param.stems.keys() & _PLACE:
        near = mention.before[-1] in ("near", "around")  # says a place, "in" says less
        context += 2.0 if near else 1.0  # "in Brooklyn", "near Berlin" for a location
    if mention.kind == "name" and mention.before[-1:] == ("from",) and _maker(param):
        context += 1.0  # "piano from Yamaha" for a manufacturer
    if mention.kind == "name" and _names_itself(param, mention):
        context += 2.0  # "the Premier League" for a league, "Hilton Hotel" for a hotel
    if mention.kind in ("quoted", "name") and _offered(param, mention):
        context += 2.0  # "the 'verdict' details" for "i.e., victim, accused, verdict"
    if _named_as(param, mention):
        context += 3.0  # "the text is '…'": the parameter named, then its value
    return context


def _weight(param: _Param, word: str) -> float:
    """How much a word near a value says ``param``; a participle says its noun ("titled"
    ~ ``title``, "priced" ~ ``price``, "dated" ~ ``date``)."""
    found = param.stems.get(stem(word), 0.0)
    if found or len(word) < 5 or not word.endswith("ed"):
        return found
    return max(param.stems.get(word[:-1], 0.0), param.stems.get(word[:-2], 0.0))


def _offered(param: _Param, mention: Mention) -> bool:
    """Whether ``mention`` is one of the values ``param``'s schema offers (an example its
    description gives, an option)."""
    return str(mention.value).lower() in {h.lower() for h in param.hints}


def _named_as(param: _Param, mention: Mention) -> bool:
    """Whether the words just before say "<the parameter's name> is" ("the text is '…'",
    "its language is English")."""
    own = {stem(w) for w in label(param.name).split()}
    said = mention.before[-len(own) - 1 :]
    if len(said) != len(own) + 1 or said[-1] not in ("is", "was", "are"):
        return False
    return {stem(w) for w in said[:-1]} == own  # its whole name: "gauge pressure is"


def _no_date(param: _Param, mention: Mention) -> bool:
    """Whether a name or phrase without a digit is said for a date parameter ("April
    2022" may be one)."""
    said = mention.kind in ("name", "phrase") and not re.search(r"\d", mention.text)
    return said and _dated(param)


def _dated(param: _Param) -> bool:
    """Whether a text parameter is a date: named one ("date", "start_date") and said in a
    date format, or with a format of its schema."""
    said = label(param.name).lower().split()
    fmt = param.schema.get("format") in ("date", "date-time")
    return fmt or (said[-1:] == ["date"] and bool(_DATE_FORMAT.search(undefaulted(param.schema))))


_DATE_FORMAT = re.compile(r"y{2,4}|\bmm\b|\bdd\b|\bISO\b|\bformat\b", re.I)


def _place_only(param: _Param) -> bool:
    """Whether ``param`` names a place by its name, never by a number (a city, not an
    address or a postal code)."""
    coded = re.search(r"address|zip|postal|code", param.name, re.I)
    return bool(param.stems.keys() & _PLACE) and not coded


def _calendar_year(param: _Param) -> bool:
    """Whether ``param`` is a calendar year: its name ends in "year" ("year1",
    "start_year"; not "years", a span, nor "payment_per_year", a rate)."""
    said = label(param.name).lower().split()
    return re.sub(r"\d+$", "", said[-1]) == "year" and "per" not in said


def _year_like(mention: Mention) -> bool:
    value = float(mention.value)
    return value.is_integer() and 0 < value <= 2999 and mention.text.strip()[:1] not in "$€£"


_CHANCE = re.compile(r"\bprobabilit(?:y|ies)\b", re.I)


def _chance(param: _Param) -> bool:
    """Whether ``param`` is a probability, said as a fraction from 0 to 1 (a percentage
    is read as that fraction already)."""
    return bool(_CHANCE.search(f"{label(param.name)} {param.schema.get('description', '')}"))


def _names_itself(param: _Param, mention: Mention) -> bool:
    """Whether a name holds a word of the parameter's own name ("Orange County Court" for
    ``court``), other than the words every name parameter has ("name", "title")."""
    own = {stem(w) for w in words(label(param.name))} - {"name", "title", "id"}
    return bool(own & {stem(w) for w in words(mention.text)})


_ENTITY = frozenset(
    "name company person artist author team player title brand organization".split()
)


_CATEGORY = frozenset("type level format mode unit category status kind detail order".split())


def _owned_thing(param: _Param, mention: Mention) -> bool:
    """Whether a name said as an owner ("Van Gogh's painting") is offered to the name of a
    thing that is no one ("artwork_name", "song_title"): the owner made or has it."""
    said = {stem(w) for w in words(label(param.name))}
    thing = bool(said & {"name", "title"}) and not said & {
        stem(w) for w in _ENTITY - {"name", "title"}
    }
    return thing and mention.after[:1] == ("s",)


def _name_fit(param: _Param) -> float:
    """How well a proper name fits a text parameter: best one that names something (a
    company, a city, a title), least one that picks a kind or a level of something."""
    said = {stem(w) for w in words(label(param.name))}
    if said & {stem(w) for w in _ENTITY}:
        return 1.0
    if said & {stem(w) for w in _CATEGORY}:
        return 0.5
    return 0.8


_MAKERS = frozenset(
    stem(w) for w in "manufacturer maker brand vendor supplier provider retailer store".split()
)


def _maker(param: _Param) -> bool:
    """Whether a parameter names who makes or sells something: said after "from"."""
    return bool({stem(w) for w in words(label(param.name))} & _MAKERS)
