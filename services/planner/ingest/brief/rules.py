"""Clause rules of the ``rules`` compiler: timing, shape, reuse, runs, transitions, beats, music.

Each rule reads one clause through :meth:`Sheet.view`, adds what it finds (claiming its words)
and leaves the rest to the next rule. The clip-selecting rules (order, inclusion, exclusion,
coverage) live in :mod:`selection`. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.planner.ingest.brief.lexicon import number, stem, words
from services.planner.ingest.brief.sheet import Clause, Found, Sheet
from services.planner.ingest.brief.times import TimeSpan, find_spans

__all__ = ["TransitionNotes", "beats", "durations", "music", "orientation", "reuse", "runs"]

NUMW = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a|an|single)"
X = r"[^\x00]"

_REUSE = re.compile(
    r"\b(?:no|don'?t|do\s+not|never|not)\s+(?:\w+\s+){0,3}?(?:clips?|shots?|footage)\s+"
    r"(?:\w+\s+){0,2}?(?:twice|more\s+than\s+once|again)\b"
    r"|\b(?:no|don'?t|do\s+not|never|without)\s+(?:reus\w*|repeat\w*)"
    r"(?:\s+(?:any\s+|the\s+)?(?:clips?|shots?|footage))?"
    r"|\bno\s+repeats\b|\b(?:use\s+)?each\s+clip\s+(?:only\s+)?once\b",
    re.I,
)
_RUN = re.compile(
    rf"\b(?P<q>never\s+more\s+than|no\s+more\s+than|not\s+more\s+than|at\s+most|"
    rf"max(?:imum)?(?:\s+of)?|never|not|no)\s+(?P<n>{NUMW})\s+(?P<x>{X}+?)\s+"
    rf"(?:in\s+a\s+row|back[\s-]to[\s-]back|consecutive(?:ly)?|one\s+after\s+(?:the\s+)?other)\b",
    re.I,
)
_DOWNBEAT = re.compile(
    r"(?:(?<!the\s)\b(?:end|ends|ending|finish|finishes|finishing|land|lands|landing|close|closing|stop|"
    r"wrap)\s+(?:\w+\s+){0,2}?)?(?:right\s+|exactly\s+|bang\s+)?on\s+(?:a|the)\s+down[\s-]?beats?\b",
    re.I,
)
_BEAT = re.compile(
    r"\b(?:(?P<every>every|each|all(?:\s+of)?(?:\s+the)?)\s+)?(?:cuts?|cutting|edits?)\s+"
    r"(?:\w+\s+)?(?:right\s+)?(?:on|to|with)\s+(?:the\s+)?beats?\b"
    r"|\b(?:on|to)\s+the\s+beats?\b",
    re.I,
)
_ORIENTATION = re.compile(
    r"\b(?P<portrait>vertical|portrait|upright)\b|(?<![\d:])(?P<p2>9:16|4:5)\b"
    r"|\b(?P<landscape>landscape|horizontal|widescreen)\b|(?<![\d:])(?P<l2>16:9)\b"
    r"|\b(?P<square>square)\b|(?<![\d:])(?P<s2>1:1)\b",
    re.I,
)
_TRACK = re.compile(
    r"(?:\b(?:set\s+(?:it\s+)?to|to|on|over|with|use|using|under)\s+)?"
    r"(?:the\s+|a\s+|that\s+|this\s+)?"
    r"(?P<mood>[\w-]+)\s+(?:track|song|music|tune|soundtrack)\b",
    re.I,
)
_SHOT_WORD = re.compile(r"\b(?:shots?|each|apiece|per\s+shot|a\s+shot|every\s+shot|cuts)\b", re.I)
_TYPES = {
    "fade_black": r"(?:fades?|fading|dips?)\s+(?:to|from|through)\s+black|black\s+fades?",
    "dissolve": r"(?:(?:soft|slow|gentle|quick|short|long|subtle)\s+)?(?:(?:cross[\s-]?)?"
    r"dissolves?|cross[\s-]?fades?|(?<!to\s)fades?\b(?!\s+to\s+black))",
    "wipe": r"(?:(?:soft|slow|quick|fast)\s+)?wipes?\b",
    "cut": r"(?:hard|straight|clean|simple|plain)\s+cuts?\b|\bcuts?(?=\s+only\b)|\bjust\s+cuts\b"
    r"|\bno\s+cuts\b",
}
_TYPE = re.compile("|".join(f"(?P<{k}>{v})" for k, v in _TYPES.items()), re.I)
_TRANSITION_WORD = re.compile(r"\btransitions?\b", re.I)
_NEGATED = re.compile(
    r"(?:\bno|\bnot|\bwithout|\bavoid|\bhate|\bnever|\bzero)\s+(?:\w+\s+)?$", re.I
)
_ONLY = re.compile(r"\s*(?:only|,?\s*nothing\s+else)\b", re.I)
_COUNT = re.compile(
    rf"\b(?:at\s+most|no\s+more\s+than|max(?:imum)?(?:\s+of)?|up\s+to|only|just)\s+"
    rf"(?P<n>{NUMW}|zero|no)\s+(?:\w+\s+)?(?:transitions?|{'|'.join(_TYPES.values())})",
    re.I,
)


def _span(clause: Clause, match: re.Match[str], group: int | str = 0) -> tuple[int, int]:
    return clause.start + match.start(group), clause.start + match.end(group)


def reuse(sheet: Sheet, clause: Clause) -> None:
    """ "no clip twice", "don't reuse clips", "no clip used more than once" → ``no_reuse``."""
    for match in _REUSE.finditer(sheet.view(clause)):
        sheet.add(Found("no_reuse", {"max_uses": 1}, *_span(clause, match)))


def runs(sheet: Sheet, clause: Clause) -> None:
    """ "never two X in a row" (run of 1), "at most two X in a row" → ``max_consecutive_tag``."""
    for match in _RUN.finditer(sheet.view(clause)):
        count = number(match.group("n"))
        if count is None:
            continue
        quantifier = match.group("q").lower()
        run = int(count) - 1 if quantifier in ("never", "not", "no") else int(count)
        start, end = _span(clause, match)
        tag = _one_tag(sheet, *_span(clause, match, "x"))
        if run < 1 or tag is None:
            sheet.take(start, end)
            sheet.lose(*_span(clause, match, "x"))
            continue
        sheet.add(Found("max_consecutive_tag", {"tag": tag, "max_run": run}, start, end))


def _one_tag(sheet: Sheet, start: int, end: int) -> str | None:
    for match in sheet.vocabulary.match(words(sheet.text[start:end], start)):
        if match.tags:
            spoken = stem(sheet.text[match.start : match.end])
            exact = [t for t in match.tags if stem(t) == spoken]
            return (exact or list(match.tags))[0]
    return None


def downbeat(sheet: Sheet, clause: Clause) -> None:
    """ "end on a downbeat", "land on the downbeat" → ``end_on_downbeat``."""
    for match in _DOWNBEAT.finditer(sheet.view(clause)):
        sheet.add(Found("end_on_downbeat", {"tolerance_s": 0.1}, *_span(clause, match)))


def beats(sheet: Sheet, clause: Clause) -> None:
    """ "cut on the beat" (80 % of cuts), "every cut on the beat" (all) → ``beat_alignment``."""
    for match in _BEAT.finditer(sheet.view(clause)):
        fraction = 1.0 if match.group("every") else 0.8
        params = {"tolerance_s": 0.1, "min_fraction": fraction}
        sheet.add(Found("beat_alignment", params, *_span(clause, match)))


def orientation(sheet: Sheet, clause: Clause) -> None:
    """ "vertical", "portrait", "landscape", "9:16" → ``orientation``."""
    for match in _ORIENTATION.finditer(sheet.view(clause)):
        groups = {k: v for k, v in match.groupdict().items() if v}
        value = next(iter(groups)).rstrip("2")
        value = {"p": "portrait", "l": "landscape", "s": "square"}.get(value, value)
        sheet.add(Found("orientation", {"value": value}, *_span(clause, match)))


def music(sheet: Sheet, clause: Clause) -> None:
    """A track id, or "to the upbeat track" (a track's mood or id) → ``music``."""
    view = sheet.view(clause)
    for track in sheet.tracks:
        verb = r"(?:\b(?:use|using|to|on|over|with|set\s+to)\s+)?"
        literal = rf"{verb}(?<![\w-]){re.escape(track['id'])}(?![\w-])"
        for match in re.finditer(literal, view, re.I):
            sheet.add(Found("music", {"track_id": track["id"]}, *_span(clause, match)))
    for match in _TRACK.finditer(sheet.view(clause)):
        mood = stem(match.group("mood"))
        tracks = [t for t in sheet.tracks if mood in (stem(t.get("mood") or ""), stem(t["id"]))]
        if len(tracks) == 1:
            sheet.add(Found("music", {"track_id": tracks[0]["id"]}, *_span(clause, match)))
        elif not tracks and mood in ("the", "a", "this", "that", "same", "one"):
            continue


def durations(sheet: Sheet, clause: Clause) -> None:
    """Lengths: of every shot when the clause speaks of shots, else of the whole edit."""
    view = sheet.view(clause)
    spans = [s for s in find_spans(view) if "\x00" not in view[s.start : s.end]]
    if not spans:
        return
    shot_word = _SHOT_WORD.search(view)
    for span in spans:
        start, end = clause.start + span.start, clause.start + span.end
        if shot_word is not None:
            a = min(span.start, shot_word.start())
            b = max(span.end, shot_word.end())
            low, high = _bounds(span, shot=True, longest=_longest(sheet))
            params = {"min_s": low, "max_s": high}
            sheet.add(Found("shot_length", params, clause.start + a, clause.start + b))
        else:
            low, high = _bounds(span, shot=False, longest=0.0)
            params = {"min_s": low, "max_s": high}
            if span.kind in ("exact", "approx"):
                params["target_s"] = span.value
            sheet.add(Found("duration", params, start, end))


def _longest(sheet: Sheet) -> float:
    return max(sheet.vocabulary.durations.values(), default=60.0)


def _bounds(span: TimeSpan, *, shot: bool, longest: float) -> tuple[float, float]:
    """What a length allows: exact ±7 % (at least 1 s; shots ±20 %), approximate ±15 %
    (at least 2 s; shots ±30 %), an upper bound from 60 % of it (shots from 0), a lower
    bound to 125 % of it (shots to the longest clip)."""
    value = span.value
    if span.kind == "range":
        return float(span.low or 0.0), value
    if span.kind == "max":
        return (0.0, value) if shot else (round(0.6 * value, 1), value)
    if span.kind == "min":
        return (value, max(value, longest)) if shot else (value, round(1.25 * value, 1))
    if shot:
        share = 0.2 if span.kind == "exact" else 0.3
        return round(value * (1 - share), 2), round(value * (1 + share), 2)
    if span.kind == "exact":
        tolerance = max(1.0, round(0.07 * value))
    else:
        tolerance = max(2.0, round(0.15 * value))
    return max(0.0, value - tolerance), value + tolerance


# --------------------------------------------------------------------------- transitions


@dataclass
class TransitionNotes:
    """What the brief's transition clauses say, gathered before they become one constraint."""

    positive: dict[str, int] = field(default_factory=dict)
    """Type → where it was asked for."""
    negative: set[str] = field(default_factory=set)
    only: dict[str, int] = field(default_factory=dict)
    max_count: int | None = None
    min_s: float | None = None
    max_s: float | None = None
    spans: list[tuple[int, int]] = field(default_factory=list)


def transitions(sheet: Sheet, clause: Clause, notes: TransitionNotes) -> None:
    """ "hard cuts only", "soft dissolves", "at most one fade to black", "no wipes",
    "dissolves no longer than half a second" → notes for one ``transitions`` constraint."""
    view = sheet.view(clause)
    mentions = list(_TYPE.finditer(view))
    generic = _TRANSITION_WORD.search(view)
    if not mentions and generic is None:
        return
    marks: list[tuple[int, int]] = []
    for match in mentions:
        kind = match.lastgroup or ""
        marks.append(match.span())
        text = match.group().lower()
        if kind == "cut" and text.startswith("no"):
            notes.negative.add("cut")
        elif _NEGATED.search(view[: match.start()]):
            notes.negative.add(kind)
            marks.append(_NEGATED.search(view[: match.start()]).span())  # type: ignore[union-attr]
        else:
            notes.positive.setdefault(kind, clause.start + match.start())
            only_after = _ONLY.match(view[match.end() :])
            if only_after is not None:
                notes.only.setdefault(kind, clause.start + match.start())
                marks.append((match.end(), match.end() + only_after.end()))
            elif re.search(r"\b(?:only|just)\s+$", view[: match.start()]):
                notes.only.setdefault(kind, clause.start + match.start())
    for match in _COUNT.finditer(view):
        word = match.group("n").lower()
        count = 0 if word in ("zero", "no") else number(word)
        if count is not None:
            known = notes.max_count if notes.max_count is not None else int(count)
            notes.max_count = min(int(count), known)
            marks.append(match.span())
    if generic is not None:
        marks.append(generic.span())
    for span in find_spans(view):
        low, high = _transition_bounds(span)
        if low is not None:
            notes.min_s = max(low, notes.min_s or 0.0)
        if high is not None:
            notes.max_s = min(high, notes.max_s if notes.max_s is not None else high)
        marks.append((span.start, span.end))
    if not (mentions or notes.max_count is not None or notes.min_s or notes.max_s):
        return
    start = clause.start + min(a for a, _ in marks)
    end = clause.start + max(b for _, b in marks)
    notes.spans.append((start, end))
    sheet.take(start, end)


def _transition_bounds(span: TimeSpan) -> tuple[float | None, float | None]:
    value = span.value
    if span.kind == "max":
        return None, value
    if span.kind == "min":
        return value, None
    if span.kind == "range":
        return span.low, value
    share = 0.0 if span.kind == "exact" else 0.25
    return round(value * (1 - share), 2), round(value * (1 + share), 2)


ALL_TYPES = ("cut", "dissolve", "fade_black", "wipe")


def transition_constraint(sheet: Sheet, notes: TransitionNotes) -> None:
    """The notes as one ``transitions`` constraint; contradictions named, not raised."""
    if not notes.spans:
        return
    params: dict[str, object] = {}
    if notes.positive or notes.negative:
        params["allowed"] = sorted(_allowed(sheet, notes))
    if notes.max_count is not None:
        params["max_count"] = notes.max_count
    low, high = notes.min_s, notes.max_s
    if low is not None and high is not None and low > high:
        first, second = notes.spans[0], notes.spans[-1]
        sheet.conflicts.append(
            {
                "message": f"transitions must last at least {low} s and at most {high} s",
                "spans": [
                    {"start": a, "end": b, "text": sheet.text[a:b]} for a, b in (first, second)
                ],
                "kept": None,
            }
        )
        low = None
    if low is not None:
        params["min_duration_s"] = low
    if high is not None:
        params["max_duration_s"] = high
    if not params:
        return
    start, end = notes.spans[0]
    found = Found("transitions", params, start, end, more=list(notes.spans[1:]))
    sheet.found.append(found)


def _allowed(sheet: Sheet, notes: TransitionNotes) -> set[str]:
    """Types asked for (a cut is always fine unless refused or another type is "only"),
    or every type but the refused ones; an "only" against another wish keeps the later."""
    if not notes.positive:
        return set(ALL_TYPES) - notes.negative
    allowed = set(notes.positive)
    if not notes.only and "cut" not in notes.negative:
        allowed.add("cut")
    if notes.only:
        others = {k: at for k, at in notes.positive.items() if k not in notes.only}
        if others and max(others.values()) > max(notes.only.values()):
            allowed = set(others) | ({"cut"} if "cut" not in notes.negative else set())
        else:
            allowed = set(notes.only)
        if others:
            spans = [{"start": a, "end": b, "text": sheet.text[a:b]} for a, b in notes.spans]
            sheet.conflicts.append(
                {
                    "message": f"only {', '.join(sorted(notes.only))} is asked for, and also "
                    f"{', '.join(sorted(others))}; the later wish is kept",
                    "spans": spans,
                    "kept": ", ".join(sorted(allowed)),
                }
            )
    return allowed - notes.negative
