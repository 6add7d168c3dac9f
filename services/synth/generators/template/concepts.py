"""A plain noun phrase said after a preposition, shaped as a value: a named idea keeps its
head ("the theory of relativity", "the law of universal gravitation"), a trailing
participle is no part of it ("… gravitation published by Newton"), nor a verb before its
object ("renting a sedan")."""

from __future__ import annotations

import re

__all__ = ["phrase_span"]

_HEAD = (
    r"(?:theory|theories|law|laws|principle|theorem|hypothesis|paradox|effect|conservation|"
    r"equation|rule)"
)
_HEADED = re.compile(rf"\bthe\s+({_HEAD}\s+of\s+)$", re.I)
"""The head of a named idea just before a phrase ("the theory of" relativity)."""
_TAIL = re.compile(r"\s+of\s+(?=[a-z])")
"""What a head said last in a phrase names ("the discovery of the theory" of relativity)."""


_RELATIVE = re.compile(r"[a-z]+\s+who\s+[a-z]+(?:\s+(?:about|on|with|in))?\s+(?=[a-z])")
"""Who a phrase is about, before what they do ("people who like" jogging, "twitter who
tweets about" psychology): the value is what they do it to."""
_IRREGULAR = frozenset(
    "made built written done given taken known seen held found sold told paid sent kept "
    "brought bought taught caught drawn grown shown thrown chosen driven eaten fallen "
    "forgotten hidden ridden risen spoken stolen torn worn woven begun sung spent".split()
)
"""Past participles not spelled with -ed ("a dog made of …"): no part of a phrase either."""
_VERB_FIRST = re.compile(r"[a-z]+\s+(?:a|an|the)\s+(?=[a-z])")
"""A phrase that opens with a verb and its object's article ("renting a sedan"): the value
is the object."""
_WORDS = re.compile(
    r"[a-z][\w'-]*(?:\s+(?!(?:and|or|in|for|of|from|to|at|on|with|by|that|which|as|if|is|"
    r"are)\b)[a-z][\w'-]*){0,2}"
)


def phrase_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the value of the phrase ``text[start:end]`` lies."""
    relative = _RELATIVE.match(text, start)
    if relative:
        said = _WORDS.match(text, relative.end())
        start, end = (relative.end(), said.end()) if said else (start, end)
    if re.fullmatch(_HEAD, text[start:end].split()[-1], re.I):
        tail = _TAIL.match(text, end)
        said = _WORDS.match(text, tail.end()) if tail else None
        end = said.end() if said else end
    verb = _VERB_FIRST.match(text[start:end])
    if verb:  # "renting a sedan", "book a suite": what is rented, booked
        start += verb.end()
    said = text[start:end].split()
    while len(said) > 1 and (
        (len(said[-1]) > 4 and said[-1].endswith("ed")) or said[-1].lower() in _IRREGULAR
    ):
        said.pop()  # "universal gravitation published": the participle tells what was done
    end = start + len(" ".join(said))
    head = _HEADED.search(text[:start])
    return (head.start(1) if head else start), end
