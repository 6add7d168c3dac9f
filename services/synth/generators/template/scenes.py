"""Scenes of one ask: a request that states a whole set of values several times, clause by
clause ("The first triangle has a base of 12 m and a height of 15 m. The second …", "If you
play 20 times, … exactly 5 times? Also, if you play 50 times, …"), asks one call per
scene; what the other clauses say ("in km/h", "a significance level of 0.05 for both")
holds for every scene."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from services.synth.calls import Call
from services.synth.generators.template.asks import _SAME, _THESE
from services.synth.generators.template.mentions import find_mentions
from services.synth.generators.template.phrases import stem
from services.synth.generators.template.routing import _CLAUSE, _OPENS, _opened
from services.synth.generators.template.specs import _Tool

_BACK = re.compile(r"\b(?:this|its?)\b|\bthat\s+(?:one|case)\b", re.I)
"""A clause that refers back to the scene just before ("the verdict details for this
case") belongs to that scene."""


_FIRST = re.compile(r"\s+(?:where\s+|and\s+)?(?=the\s+first\b)", re.I)
"""Where the first of several scenes starts inside a sentence ("three circles, where the
first circle has …", "four sets: the first set is …")."""


_WISH = re.compile(r",?\s+and\s+(?=I\s+(?:want|would like|need|prefer|wish)\b)", re.I)
"""Where a wish follows the last scene ("…, the fourth circle has a radius of 20m, and I
want the output in meters"): a clause of its own, for every scene that says nothing else."""


def _pieces(text: str) -> list[str]:
    """The clauses of ``text``, the first of several scenes cut where it starts."""
    return _opened(p for c in _CLAUSE.split(text) if c for p in _FIRST.split(c))


def _scene_calls(
    spec: _Tool, texts: Sequence[str], calls_of: Callable[[str], list[Call]]
) -> list[Call] | None:
    """One call per scene, with what the other clauses say where a scene says nothing; a
    scene that says "repeat these … for" varies every scene before it; ``None`` when fewer
    than two clauses hold a whole set of values."""
    if any(re.search(r"\brespectively\b", t, re.I) for t in texts):
        return None  # values given as lists that line up, not scene by scene
    pieces = [p for t in texts for p in _pieces(t)]
    pieces[-1:] = _WISH.split(pieces[-1], maxsplit=1) if pieces else []
    required = {n for n, _, needed in spec.props if needed}
    own = [calls_of(p) for p in pieces]
    if any(len(c) > 1 and all(required <= set(x.arguments) for x in c) for c in own):
        return None  # a clause that lists whole asks ("the factorial of 5, of 3 …")
    whole = [len(c) == 1 and required <= set(c[0].arguments) for c in own]
    if sum(whole) >= 2:  # a clause of only words ("a historical event") leads up to a scene
        valued = [w and _typed(p) for w, p in zip(whole, pieces, strict=True)]
        whole = valued if any(valued) else whole
    numbered = [
        _OPENS.match(p) is not None and _typed(p) and not _of_twins(spec, p) for p in pieces
    ]
    if sum(numbered) >= 2:  # "the first …, the second …": those are the scenes
        whole = numbered
    if sum(whole) < 2:
        return None
    scenes, again, shared = _cast(pieces, whole)
    common = calls_of(_uncounted(" ".join(shared), len(scenes))) if shared else []
    context = common[0].arguments if len(common) == 1 else {}
    out: list[Call] = []
    for index, scene in enumerate(scenes):
        said = calls_of(scene)
        if len(said) != 1:
            return None  # a list of values in one clause: no scene
        if out and _SAME.search(scene) and _THESE.search(scene):  # "repeat these for …"
            out += [Call(c.name, {**c.arguments, **said[0].arguments}) for c in out]
            continue
        kept = out[-1].arguments if index in again and out else context
        call = Call(said[0].name, {**context, **kept, **said[0].arguments})
        if not required <= set(call.arguments):
            return None
        out.append(call)
    return out


def _of_twins(spec: _Tool, piece: str) -> bool:
    """Whether a numbered clause is about one of a parameter's numbered twins ("The first
    charge has a magnitude of 5 coulombs" for ``charge1``): it says a value, not a scene."""
    opened = _OPENS.match(piece)
    noun = re.match(r"\s*(?:one\b|([a-z]+))", piece[opened.end() :], re.I) if opened else None
    if noun is None or noun[1] is None:
        return False
    twins = {
        stem(m[1].lower()) for n, _, _ in spec.props if (m := re.fullmatch(r"(.+?)_?[0-9]", n))
    }
    return stem(noun[1].lower()) in twins


def _cast(pieces: Sequence[str], whole: Sequence[bool]) -> tuple[list[str], set[int], list[str]]:
    """The scenes (a clause that refers back joins the scene before), which of them keep
    what the one before set ("the same number of shares"), and the shared clauses."""
    scenes: list[str] = []
    again: set[int] = set()
    shared: list[str] = []
    for piece, complete in zip(pieces, whole, strict=True):
        if not complete and scenes and _SAME.search(piece) and _typed(piece):
            again.add(len(scenes))
        if complete or len(scenes) in again:
            scenes.append(piece)
        elif scenes and _BACK.search(piece):
            scenes[-1] = f"{scenes[-1]} {piece}"
        else:
            shared.append(piece)
    return scenes, again, shared


_COUNT_WORDS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _uncounted(text: str, scenes: int) -> str:
    """``text`` without the number word that counts the scenes ("two triangles", "two
    scenarios"): it says how many asks, it is no value."""
    if not 1 < scenes < len(_COUNT_WORDS):
        return text
    return re.sub(rf"\b{_COUNT_WORDS[scenes]}\b", " ", text, flags=re.I)


def _typed(text: str) -> bool:
    """Whether ``text`` says a value of its own (not only words)."""
    return any(m.kind not in ("phrase", "spelled") for m in find_mentions(text))


def _joined(
    spec: _Tool, texts: Sequence[str], calls_of: Callable[[str], list[Call]]
) -> list[Call] | None:
    """Asks of one tool that only together state a whole set of values ("I have two
    functions, the first one is '4x+7' and the second one is '2x+5'"): one call, or one per
    value a list among them says ("the income is $50000. The tax as single and as married"),
    or one per call the last of them makes, with what it says over what the others set ("…
    for 10 years. What for the first 2 years, first 3 years and first 5 years?");
    an ask after them that says a variant ("What if the process is not isothermal?") is that
    call again with what the variant changes."""
    if len(texts) < 2 or not spec.props:
        return None
    required = {n for n, _, needed in spec.props if needed}
    if any(required <= set(c.arguments) for t in texts for c in calls_of(t)):
        return None
    cut = next((i for i, t in enumerate(texts) if i and _SAME.search(t)), len(texts))
    joined = calls_of(" ".join(texts[:cut]))  # "… is 0.7. The frequency of AA, Aa and aa?"
    if not joined or any(not required <= set(c.arguments) for c in joined):
        return None
    closing = calls_of(texts[cut - 1]) if cut > 1 else []
    if len(closing) > 1 and len({frozenset(c.arguments) for c in closing}) == 1:
        joined = [Call(spec.name, {**joined[0].arguments, **c.arguments}) for c in closing]
    if len(joined) > 1:
        return None if cut < len(texts) else joined
    variants = [calls_of(t) for t in texts[cut:]]  # "What if the process is not isothermal?"
    if any(len(v) != 1 for v in variants):
        return None
    return [
        *joined,
        *(Call(spec.name, {**joined[0].arguments, **v[0].arguments}) for v in variants),
    ]


def _followed(
    spec: _Tool, texts: Sequence[str], calls_of: Callable[[str], list[Call]]
) -> list[Call] | None:
    """An ask of the same tool that lacks a required value and points back ("the output
    for this wind farm for May"), or only adds values to the one call before it, adds what
    it says to the calls just before it."""
    required = {n for n, _, needed in spec.props if needed}
    groups: list[list[Call]] = []
    merged = False
    for text in texts:
        calls = calls_of(text)
        lacking = all(not required <= set(c.arguments) for c in calls)
        back = groups and (_BACK.search(text) or _adds(calls, groups[-1]))
        if groups and lacking and len(calls) == 1 and back and not _SAME.search(text):
            said = calls[0].arguments
            groups[-1] = [Call(c.name, {**c.arguments, **said}) for c in groups[-1]]
            merged = True
        else:
            groups.append(calls)
    return [c for group in groups for c in group] if merged else None


def _without_asides(said: Sequence[tuple[str, list[Call]]]) -> list[Call]:
    """The calls of a run of asks, each with the clause it was read from, without those a
    clause that only leads up to another ask made ("I'm curious about a historical event.
    Can you tell me the date of the 'Battle of Waterloo'?"): a clause that says no value of
    its own (a number, a name, a quote) only words, and another clause of the run, which
    does say one, sets every parameter it set. A variant ("What if the process is not
    isothermal?") is an ask of its own."""
    if len(said) < 2:
        return [c for _, calls in said for c in calls]
    typed = [_typed(text) if any(c.arguments for c in calls) else True for text, calls in said]
    valued = [c for (_, calls), known in zip(said, typed, strict=True) if known for c in calls]
    out: list[Call] = []
    for (text, calls), known in zip(said, typed, strict=True):
        for call in calls:
            covered = any(set(call.arguments) <= set(c.arguments) for c in valued)
            if not call.arguments or known or _SAME.search(text) or not covered:
                out.append(call)
    return out


def _adds(calls: Sequence[Call], before: Sequence[Call]) -> bool:
    """Whether an ask only adds values to the one call before it: it repeats none of that
    call's parameters with another value ("… for 10 years. You will also pay in $200 a
    year")."""
    if len(calls) != 1 or len(before) != 1:
        return False
    said, known = calls[0].arguments, before[0].arguments
    return bool(set(said) - set(known)) and all(
        known[k] == v for k, v in said.items() if k in known
    )
