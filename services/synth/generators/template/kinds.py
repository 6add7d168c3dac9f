"""Words that qualify a parameter's own noun, read as its value: "solar energy and wind
energy" for ``energy_type``, "with a city view" for ``view``. Saying the noun ties the
words before it to the parameter more surely than any name elsewhere in the request."""

from __future__ import annotations

from collections.abc import Sequence

from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import stem
from services.synth.generators.template.specs import _closed, _Param, _strict
from services.synth.generators.template.wording import KIND_WORDS, qualifiers
from services.synth.surface import label

__all__ = ["qualified", "said_kinds"]

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


def _stems(mention: Mention) -> set[str]:
    return {stem(w) for w in words(mention.text)}
