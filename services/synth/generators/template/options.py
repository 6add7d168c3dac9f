"""The options a parameter offers (an enum, a description's examples and glosses) found
in the text: by their words' stems, by what a description glosses them as, clipped in a list
of options, or said apart; and whether a found option is asked or only the tool's own word."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise

from services.synth.generators.template.mentions import words
from services.synth.generators.template.phrases import compiled, stem
from services.synth.generators.template.specs import _Param, _strict

_IRREGULAR = {
    "children": "child", "people": "person", "men": "man", "women": "woman",
    "feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose",
}  # fmt: skip


def _base(word: str) -> str:
    """A word's stem without quotes around it, irregular plurals as their singular, a
    participle as its verb ("detailed" says "detail")."""
    word = word.strip("'")
    word = word[:-2] if word.endswith("ed") and len(word) >= 6 else word
    return stem(_IRREGULAR.get(word, word))


def _found_hints(param: _Param, text: str) -> list[str]:
    """The hints the text says, in its order; words compared by their stems ("scenic
    views" says "Scenic View", "toll roads" says "tolls", "children" says "child"), without the
    quotes around them; an option also by what its description glosses it as ("an electric
    vehicle" says "EV"). Options told apart only by their case ("AA", "Aa", "aa") are found
    as written."""
    if _case_twins(param.hints):
        hits = [
            (re.search(rf"(?<!\w){re.escape(str(h))}(?!\w)", text), str(h)) for h in param.hints
        ]
        return [h for m, h in sorted((m.start(), h) for m, h in hits if m)]
    text = _NAME_RUN.sub(lambda m: _own_name(m[0], param.hints), text)
    said = [p for w in words(text) for p in ([w, *w.split("-")] if "-" in w.strip("-") else [w])]
    lowered = f" {' '.join(_base(w) for w in said)} "  # "gas-powered" also says "gas"
    found = []
    glossed = _glosses(str(param.schema.get("description", "")))
    told = [(h, h) for h in sorted(param.hints, key=len, reverse=True)]
    told += [(gloss, option) for option, gloss in glossed if option in param.hints]
    for hint, option in told:
        said = " ".join(_base(w) for w in words(hint))
        if said and f" {said} " in lowered:
            found.append((lowered.index(f" {said} "), option))
            lowered = lowered.replace(f" {said} ", " \x00 ")
            continue
        if hint != option:  # a gloss is found said whole only
            continue
        short = _SHORT_UNIT.fullmatch(said)  # "24h" said as "24 hour", "24-hour"
        whole = short and re.search(rf" {short[1]} {short[2]}[a-z]* ", lowered)
        if whole:
            found.append((whole.start(), hint))
            lowered = lowered[: whole.start()] + " \x00 " + lowered[whole.end() :]
            continue
        head = _head(param, said)  # "disabled people" for the option "Disabled Access"
        rest = said.split()[1:]  # "guitar shop … violin lessons": "lessons" went elsewhere
        if head and f" {head} " in lowered and not any(f" {w} " in lowered for w in rest):
            found.append((lowered.index(f" {head} "), hint))
            lowered = lowered.replace(f" {head} ", " \x00 ")
    if _strict(param):
        found += _clipped(param, lowered, {h for _, h in found})
    return list(dict.fromkeys(h for _, h in sorted(found)))


_GLOSS = re.compile(
    r"['\"]([^'\"]{1,40})['\"]\s+(?:refers to|means|stands for|is for)\s+(?:an?\s+|the\s+)?"
    r"([a-z][\w -]{0,40}?)(?=\s*(?:[,.;)]|\band\b|$))",
    re.I,
)


@lru_cache(maxsize=4096)
def _glosses(description: str) -> tuple[tuple[str, str], ...]:
    """The options a description glosses ("'gas' refers to a gasoline vehicle, … 'EV'
    refers to an electric vehicle"): (option, what the request says for it)."""
    return tuple((m[1], m[2]) for m in _GLOSS.finditer(description))


def _clipped(param: _Param, lowered: str, found: set[str]) -> list[tuple[int, str]]:
    """Options of one word said clipped in a list of options found ("protein, calories and
    carbs" for "Carbohydrates"): a word of four letters or more that starts the option, said
    right after a found one."""
    tokens = lowered.split()
    out = []
    for hint in (h for h in param.hints if h not in found and len(words(h)) == 1):
        whole = _base(hint)
        for index, token in enumerate(tokens):
            before = tokens[max(0, index - 2) : index]
            listed = before[-1:] == ["\x00"] or before in (["\x00", "and"], ["\x00", "or"])
            if (
                listed
                and len(token) >= 4
                and whole.startswith(token)
                and len(whole) > len(token) + 2
            ):
                out.append((lowered.index(f" {token} "), hint))
                break
    return out


def _head(param: _Param, said: str) -> str | None:
    """The first word of an enum option of several words, when that word is long and no
    other option has it: said without the option's other words, it says the option alone
    ("disabled people" for "Disabled Access")."""
    first, *rest = said.split() or [""]
    if not rest or not _strict(param) or len(first) < 6 or not first.isalpha():
        return None
    others = [h for h in param.hints if " ".join(_base(w) for w in words(h)) != said]
    if any(first in {_base(w) for w in words(h)} for h in others):
        return None
    return first


_SHORT_UNIT = re.compile(r"(\d+(?:\.\d+)?) ([a-z]{1,2})")
"""An option that is a number and a unit's letter ("24h", "4k"): said with the unit's
word ("24 hour format")."""


_NAME_RUN = re.compile(r"(?<![\w'-])[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]*)+")
"""Capitalised words said together ("Natural History Museum"): a name."""


def _own_name(name: str, hints: Sequence[str]) -> str:
    """A name as said when a hint opens or closes it ("New York City", "Retrieve Personal
    Info" at a sentence's start), else nothing: an option said inside a longer name
    ("history" in "Natural History Museum") is no option said."""
    said = " ".join(_base(w) for w in words(name))
    for hint in hints:
        own = " ".join(_base(w) for w in words(str(hint)))
        if own and (f" {said} ".startswith(f" {own} ") or f" {said} ".endswith(f" {own} ")):
            return name
    return " "


def _case_twins(hints: Sequence[object]) -> bool:
    """Whether two options differ only in their case."""
    lowered = [str(h).lower() for h in hints]
    return len(set(lowered)) < len(set(map(str, hints)))


def _capitalised(hint: str, text: str) -> bool:
    """Whether the text says ``hint`` as a name (every word capitalised, "Amazon rainforest"
    is not one) or in quotes: then it is a mention of its own."""
    if compiled(rf"['\"“]{re.escape(hint)}['\"”]", re.I).search(text):
        return True  # quoted: a mention too
    found = compiled(rf"\b{re.escape(hint)}\b", re.I).search(text)
    said = [w for w in found[0].split() if w[:1].isalpha()] if found else []
    return bool(said) and all(w[:1].isupper() for w in said)


def _own(param: _Param, hint: str) -> bool:
    """Whether a hint is one of the request's own words ("severe" in "severe weather alerts")."""
    return {stem(w) for w in words(hint)} <= param.shared


def _listed_with(option: str, found: Sequence[str], text: str) -> bool:
    """Whether an option is said in one list with another option ("the status and scheduled
    trial date" for ``status`` and ``trial_date``): then it is asked, though the tool's own
    word."""
    others = [o for o in found if o != option]
    said = _said_form(option)
    return any(
        re.search(
            rf"{said}{_OPTION_JOIN}{_said_form(o)}|{_said_form(o)}{_OPTION_JOIN}{said}", text, re.I
        )
        for o in others
    )


def _scattered(param: _Param, text: str, found: Sequence[str]) -> list[str]:
    """More options of a list, each of several words said apart ("the location and the
    year when the park was established" for "Location" and "Established Year"), from words
    the options found do not say ("guitar" and the "lessons" of "violin lessons": no "Guitar
    Lessons")."""
    for option in found:
        text = compiled(_said_form(option), re.I).sub(" ", text)
    said = {_base(w) for w in words(text)}
    return [
        h
        for h in param.hints
        if h not in found and len(words(h)) > 1 and {_base(w) for w in words(h)} <= said
    ]


def _options_listed(found: Sequence[str], text: str) -> bool:
    """Whether two or more options of a list are said one after another ("the average price
    and ratings"): asked, though the tool's own words say them too."""
    if len(found) < 2:
        return False
    stems = [{_base(w) for w in words(h)} for h in found]
    said = [_base(w) for w in words(text)]
    at = [next((i for i, w in enumerate(said) if w in s), -1) for s in stems]
    gaps = [said[a + 1 : b] for a, b in pairwise(sorted(at))]
    return -1 not in at and all(g in ([], ["and"], ["or"]) for g in gaps)


_OPTION_JOIN = r"\s*(?:,|,?\s*and|,?\s*or|&)\s*(?:(?<=\s)[a-z]+\s+)?"
"""Between two options of one list: a join, and maybe one word ("and scheduled")."""


def _said_form(option: str) -> str:
    """A pattern for an option as said: its words' stems, joined by any space or "_"."""
    return r"\b" + r"\w*[\s_-]+".join(re.escape(stem(w)) for w in words(option)) + r"\w*"
