"""A plain noun phrase said after a preposition, shaped as a value: a named idea keeps its
head ("the theory of relativity", "the law of universal gravitation"), a trailing
participle is no part of it ("… gravitation published by Newton")."""

from __future__ import annotations

import re

__all__ = ["phrase_span"]

_HEAD = (
    r"(?:theory|theories|law|laws|principle|theorem|hypothesis|paradox|effect|conservation|"
    r"equation|rule)"
)
_HEADED = re.compile(rf"\bthe\s+({_HEAD}\s+of\s+)$", re.I)
"""The head of a named idea just before a phrase ("the theory of" relativity)."""
_TAIL = re.compile(
    r"\s+of\s+[a-z][\w'-]*(?:\s+(?!(?:and|or|in|for|of|from|to|at|on|with|by|that|which|"
    r"as|if|is|are)\b)[a-z][\w'-]*){0,2}"
)
"""What a head said last in a phrase names ("the discovery of the theory" of relativity)."""


def phrase_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the value of the phrase ``text[start:end]`` lies."""
    if re.fullmatch(_HEAD, text[start:end].split()[-1], re.I):
        tail = _TAIL.match(text, end)
        end = tail.end() if tail else end
    said = text[start:end].split()
    while len(said) > 1 and len(said[-1]) > 4 and said[-1].endswith("ed"):
        said.pop()  # "universal gravitation published": the participle tells what was done
    end = start + len(" ".join(said))
    head = _HEADED.search(text[:start])
    return (head.start(1) if head else start), end
