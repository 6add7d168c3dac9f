"""The words after a mention that describe it: up to a joining word ("base 6 and height
10": 6 gets no "height"), save what "in" names after a unit ("12 feet in length") and what
a mention is said to be ("University of California was a party")."""

from __future__ import annotations

__all__ = ["_after"]

_JOINING = frozenset(
    "and or but with of in for at on from to after before while by is are was were s using".split()
)

_MEASURE = frozenset(
    "length height width depth diameter radius size area volume weight mass duration "
    "distance thickness altitude elevation".split()
)
"""What "in" names after a number's unit ("12 feet in length", "2 cm in diameter")."""
_COPULA = frozenset("is was are were".split())
"""Before what a mention is ("University of California was a party")."""


def _after(tail: list[str]) -> tuple[str, ...]:
    """The words that describe a mention from behind: up to three, up to a joining word
    ("base 6 and height 10": 6 gets no "height"; '"ACGT" using the reference': what it is
    used with), save "in" before what a unit measures ("12 feet in length"), and an owner's
    "'s" before what it owns ("Germany's men soccer team": only the parameter that names such
    a thing reads those, see ``matching``)."""
    if len(tail) >= 3 and tail[1] == "in" and tail[2] in _MEASURE:
        return tuple(tail[:3])
    if len(tail) >= 3 and tail[0] in _COPULA and tail[1] in ("a", "an", "the"):
        said = tail[:2] + [w for w in _kept(tail[2:4])]  # "'y' is the function variable"
        return tuple(said)  # "University of California was a party": what it is
    if tail[:1] == ["s"] and len(tail) > 1 and tail[1] not in _JOINING:
        return ("s", *_after(tail[1:4])[:3])  # "Germany's men soccer team": whose team
    said: list[str] = []
    for word in tail[:3]:
        if word in _JOINING and said:
            break
        if word in _JOINING:
            return (word,)
        said.append(word)
    return tuple(said)


def _kept(words: list[str]) -> list[str]:
    """``words`` up to the first joining word."""
    out: list[str] = []
    for word in words:
        if word in _JOINING:
            break
        out.append(word)
    return out
