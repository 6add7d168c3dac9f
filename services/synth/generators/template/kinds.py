"""Words that qualify a parameter's own noun, read as its value: "solar energy and wind
energy" for ``energy_type``, "with a city view" for ``view``. Saying the noun ties the
words before it to the parameter more surely than any name elsewhere in the request."""

from __future__ import annotations

import re
from collections.abc import Sequence

from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import ASK_WORDS, STOPWORDS, compiled, stem
from services.synth.generators.template.specs import _closed, _Param, _strict
from services.synth.generators.template.wording import KIND_WORDS, qualifiers
from services.synth.surface import label

__all__ = ["named_after", "qualified", "said_kinds"]

_PICKING = frozenset("type kind category".split())
"""Words of a parameter's name that say it picks a kind of the noun beside them."""


def _own_nouns(param: _Param, nouns: frozenset[str]) -> frozenset[str]:
    return frozenset({stem(w) for w in words(label(param.name))} - KIND_WORDS - nouns)


def _free_text(param: _Param) -> bool:
    return param.kind == "string" and not _strict(param) and not _closed(param)


def said_kinds(params: Sequence[_Param], text: str, nouns: frozenset[str]) -> None:
    """A required parameter that picks a kind of a noun ("energy_type", "cell_type") takes
    the words that qualify that noun, each once and in the order said ("solar energy for
    12 months and wind energy for 8": two calls); not the tool's own words ("a hotel
    room" is no kind of room for ``hotel_booking``)."""
    for param in params:
        named = {stem(w) for w in words(label(param.name))}
        if not param.required or param.spans or not _free_text(param) or not named & _PICKING:
            continue
        own = _own_nouns(param, frozenset())
        said = [m for m in qualifiers(text, own) if not _stems(m) & nouns] if own else []
        seen: set[str] = set()
        for mention in said:
            if mention.text.lower() not in seen:
                seen.add(mention.text.lower())
                param.spans.append(mention)


def qualified(param: _Param, text: str, nouns: frozenset[str]) -> None:
    """An optional text parameter named by a noun the request says takes the words that
    qualify that noun ("with a city view" for ``view``, "red dominant color" for
    ``dominant_color``), when they are said once."""
    if param.required or param.spans or not _free_text(param):
        return
    own = _own_nouns(param, nouns)
    said = qualifiers(text, own) if own else []
    offered = {h.lower() for h in param.hints}  # "the real roots" when 'real' is offered
    said = [m for m in said if m.text.lower() in offered or not _stems(m) & param.shared]
    if len(said) == 1:  # "a hotel room" for ``room_type``: the tool's own word, no kind
        param.spans.append(said[0])


_AFTER = re.compile(r"\s+([a-z][a-z-]+)(?=\s*(?:[,.?!;]|$|(?:and|or|by|in|with|for|using)\b))")
"""A plain word right after a parameter's noun, where a clause or a list goes on."""


def named_after(params: Sequence[_Param], text: str) -> None:
    """An empty required text parameter named by one noun takes the plain words said right
    after that noun ("the color magenta and …", "color navy by using …"): the request names
    what it gives, then gives it; one value each time, in order. A word of the tool's ("the
    DNA sequence" for ``DNA_id`` of ``fetch_DNA_sequence``) is the noun's head, no value."""
    for param in params:
        own = [w for w in words(label(param.name)) if w not in KIND_WORDS]
        if not param.required or param.spans or not _free_text(param) or len(own) != 1:
            continue
        for noun in compiled(rf"\b{re.escape(own[0])}\b", re.I).finditer(text):
            said = _AFTER.match(text, noun.end())
            word = said[1] if said else ""
            if not word or word in STOPWORDS or word in ASK_WORDS or stem(word) in param.shared:
                continue
            before = tuple(words(text[max(0, noun.start() - 40) : noun.end()])[-5:])
            param.spans.append(Mention("phrase", word, said.start(1), said.end(1), word, before))


def _stems(mention: Mention) -> set[str]:
    return {stem(w) for w in words(mention.text)}
