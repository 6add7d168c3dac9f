"""What a function does, said the way a person asks for it, read from its description.

"Calculates the circumference of a circle with a given radius." → "calculate the
circumference of a circle"; "Retrieve the weather for a specified location" → "retrieve
the weather". The description's first clause, its verb in the base form, cut before the
first word that only points at a value to come ("given", "specified", "based on", "using"),
before any word in ``avoid`` (the request's parameter names: saying one leaks a label), and
at most :data:`MAX_WORDS` words long. None when the description does not open with a verb
(the realiser then falls back to the function's name).
"""

from __future__ import annotations

import re
from functools import lru_cache

from services.synth.generators.template.phrases import NOUN_SWAPS
from services.synth.surface import NUMBER_WORDS

__all__ = ["MAX_WORDS", "described_action", "is_verb"]

MAX_WORDS = 9

_VERBS = frozenset(
    "add adjust analyse analyze apply arm assess book build buy calculate cancel check "
    "combine compare compute conduct convert count create delete determine display draw "
    "estimate evaluate examine fetch find fit gather generate get identify list load locate "
    "lock log look make move order perform place play plot post predict project provide "
    "query quote read recommend record remove rent replace report reserve retrieve return "
    "reverse run schedule search send set show solve sort start switch track train transfer "
    "translate turn update verify".split()
)
_SAID_AS = {"return": "get", "provide": "give me", "retrive": "retrieve", "query": "look up"}
_OPENERS = re.compile(
    r"^(?:this (?:function|tool|api|endpoint)\s+|(?:a )?(?:function|tool|api|method)"
    r" (?:that|to|which|for)\s+|used to\s+|helps? (?:you )?(?:to )?)",
    re.I,
)
_STOP = re.compile(
    r"\s*(?:[,;:(]|\.(?:\s|$)|\s-\s|\b(?:given|specified|specific|particular|certain|"
    r"provided|based on|using|according to|if|whether|when|where|which|that|by its|by their|"
    r"e\.g\.|such as|including|optionally|and return|and returns)\b).*$",
    re.I,
)
_DANGLING = frozenset(
    "in of to for at on by with the a an and or from its their his her into about between "
    "within under over as per this across around near through".split()
)


def _base_form(word: str) -> str:
    """ "Calculates" → "calculate", "fetches" → "fetch", "applies" → "apply"."""
    word = word.lower()
    if word in _VERBS:
        return word
    for ending, swap in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("es", "e")):
        if word.endswith(ending) and word[: -len(ending)] + swap in _VERBS:
            return word[: -len(ending)] + swap
    if word.endswith("es") and word[:-2] in _VERBS:
        return word[:-2]
    return word[:-1] if word.endswith("s") and word[:-1] in _VERBS else ""


def is_verb(word: str) -> bool:
    """Whether ``word`` is one of the verbs a description opens with, in any form."""
    return word.lower() in _VERBS or word.lower() == "include" or bool(_base_form(word))


def _numeric(word: str) -> bool:
    """A number word or digits: said in the request, it would read as a value."""
    return any(c.isdigit() for c in word) or word in NUMBER_WORDS


def described_action(description: str, avoid: frozenset[str] = frozenset()) -> str | None:
    """The action a request asks for, from ``description`` (see the module doc)."""
    return _action(description.strip(), avoid)


@lru_cache(maxsize=8192)
def _action(description: str, avoid: frozenset[str]) -> str | None:
    text = _OPENERS.sub("", description)
    words = text.split()
    if not words:
        return None
    verb = _base_form(words[0].strip(".,:;"))
    if not verb:
        return None
    rest = _STOP.sub("", " ".join(words[1:]))
    kept: list[str] = []
    for word in re.findall(r"[A-Za-z][\w'\-]*|\d[\w.\-]*", rest):
        root = word.lower().split("'")[0]
        if root in avoid and root in NOUN_SWAPS:
            word = NOUN_SWAPS[root]
            if kept and kept[-1] in ("a", "an"):  # the swapped noun may want the other
                kept[-1] = "an" if word[0] in "aeiou" else "a"
        elif root in avoid or root.rstrip("s") in avoid or _numeric(root):
            while kept and kept[-1] not in _DANGLING:  # no half a noun phrase: "a cooking"
                kept.pop()
            break
        word = word if word.isupper() and len(word) > 1 else word.lower()
        if not kept or kept[-1] != word:  # "an SMS text message" → never "text text"
            kept.append(word)
    kept = kept[: MAX_WORDS - 1]
    while kept and kept[-1] in _DANGLING:
        kept.pop()
    if not kept:
        return None
    return " ".join([_SAID_AS.get(verb, verb), *kept])
