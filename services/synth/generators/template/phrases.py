"""The template generator's wording: verb phrases from function names, openers, connectors.

Both halves of the generator use this vocabulary: the realiser to write a request, the solver
to recognise one (a user who says "look up" means what a function named ``get_*`` does).
"""

from __future__ import annotations

import re
from functools import lru_cache

from services.synth.surface import label

__all__ = [
    "ASK_WORDS",
    "BOOL_FALSE",
    "BOOL_TRUE",
    "CONNECTORS",
    "NOUN_SWAPS",
    "OPENERS",
    "STOPWORDS",
    "VERB_SYNONYMS",
    "compiled",
    "stem",
    "verb_phrase",
]

VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "get": ("fetch", "look up", "retrieve", "show me"),
    "search": ("look for", "find", "search for"),
    "find": ("look for", "search for", "locate"),
    "book": ("reserve",),
    "reserve": ("book",),
    "create": ("make", "set up", "add"),
    "add": ("put in", "insert"),
    "send": ("deliver",),
    "cancel": ("call off", "drop"),
    "check": ("verify", "find out"),
    "list": ("show", "give me"),
    "convert": ("change",),
    "calculate": ("compute", "work out"),
    "update": ("change", "modify"),
    "delete": ("remove",),
    "schedule": ("arrange", "plan"),
    "buy": ("purchase",),
    "rent": ("hire",),
    "track": ("follow",),
    "translate": ("render",),
    "lock": ("secure",),
    "unlock": ("open",),
    "geocode": ("locate",),
}
"""Canonical verb → what a user may say instead. The solver reads these both ways."""

NOUN_SWAPS: dict[str, str] = {
    "message": "text",
    "messages": "texts",
    "address": "location",
    "tickets": "seats",
    "ticket": "seat",
    "door": "entrance",
    "room": "space",
    "rooms": "spaces",
    "title": "heading",
    "query": "request",
    "topic": "subject",
}
"""A word a request says instead of a function-name word that is also a parameter's name
("schedule a whatsapp text" for ``schedule_whatsapp_message(message=…)``); a word not listed
is left out."""

OPENERS = (
    "{vp}",
    "Please {vp}",
    "Could you {vp}",
    "I'd like to {vp}",
    "I need to {vp}",
    "Can you {vp}",
    "Help me {vp}",
    "I want to {vp}",
)
CONNECTORS = ("Also, ", "Then ", "After that, ", "Additionally, ", "And ", "Next, ")
"""Sentence starters that join several calls; the solver drops them."""

BOOL_TRUE = ("on", "enabled", "turned on", "included", "true", "yes")
BOOL_FALSE = ("off", "disabled", "turned off", "excluded", "false", "no")
"""The first four are how the realiser writes a flag; the solver reads them all."""

STOPWORDS = frozenset(
    "a an the to of for in on at by with and or please could can you i i'd like need want "
    "help me my is are be it this that from as set its into "
    "your yours our we us they them their these those he his she her if new".split()
)
"""Words that say nothing of what a tool does: articles, prepositions, pronouns, "if",
"new" ("Calculate your weight" shares no word with "your stay in Japan", "Create a new
player profile" none with "New York")."""

ASK_WORDS = frozenset(
    "what how much many who which when where find get calculate give show tell me do does "
    "will would should the of given specific certain some also want know".split()
)
"""Words that ask, not say what: never a value and never a tool's word."""

_ARTICLE_VERBS = frozenset("book create add send schedule make open post reserve rent buy".split())
_VOWEL = re.compile(r"^[aeiou]")


@lru_cache(maxsize=16384)
def compiled(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` behind a cache that holds the patterns built per value and parameter
    (``re`` keeps only 512, which one synthesis run overflows, recompiling them again and
    again)."""
    return re.compile(source, flags)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A crude plural/inflection fold so "flights" meets "flight" and "booking" meets "book"."""
    word = word.lower()
    for suffix in ("ies", "ing", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            if suffix == "s" and word.endswith("ing") and len(word) > 5:
                word = word[:-3]  # "ratings" meets "rating": both "rat"
            break
    return word


def doer(said: str, word: str) -> bool:
    """Whether ``word`` is the one who does what ``said`` names ("law" ~ "lawyer", "art" ~
    "artist", "bank" ~ "banker")."""
    return len(said) >= 3 and said.isalpha() and word in {said + e for e in _DOER_ENDINGS}


_DOER_ENDINGS = ("er", "yer", "ist", "ian", "r")


def verb_phrase(name: str, synonym: int = 0, avoid: frozenset[str] = frozenset()) -> str:
    """``book_hotel`` → "book a hotel"; ``synonym`` > 0 swaps the verb for one of its synonyms.

    Words in ``avoid`` (the request's parameter names) are not said: the verb becomes a
    synonym, an object word its :data:`NOUN_SWAPS` entry or nothing.
    """
    words = label(name).split()
    verb, rest = words[0], _avoiding(words[1:], avoid)
    choices = VERB_SYNONYMS.get(verb, ())
    said = choices[(synonym - 1) % len(choices)] if synonym and choices else verb
    if said in avoid:
        said = next((c for c in choices if c not in avoid), said)
    if not rest:
        return said
    obj = " ".join(rest)
    if rest[0] in ("to", "for", "from", "on", "in", "by", "with", "at", "into"):
        article = ""
    elif rest[-1].endswith("s") or verb in ("get", "check", "calculate", "convert", "track"):
        article = "" if rest[-1].endswith("s") else "the "
    elif verb in _ARTICLE_VERBS:
        article = "an " if _VOWEL.match(obj) else "a "
    else:
        article = "the "
    return f"{said} {article}{obj}"


def _avoiding(words: list[str], avoid: frozenset[str]) -> list[str]:
    if not avoid:
        return words
    said = [NOUN_SWAPS.get(w, "") if w in avoid else w for w in words]
    said = [w for w in said if w]
    while said and said[-1] in ("to", "for", "from", "on", "in", "by", "with", "at", "of"):
        said.pop()
    return said
