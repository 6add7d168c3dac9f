"""Clause rules that pick clips: coverage, exclusion, order and inclusion.

Words become selectors through :meth:`Sheet.select` (the pool's own tags, else the clips
whose captions say the word). A list ("the vows and the rings") gives one constraint per
item; an item that names no clip is reported as unparsed. Pure.
"""

from __future__ import annotations

import re

from services.planner.ingest.brief.lexicon import number, words
from services.planner.ingest.brief.rules import NUMW, X
from services.planner.ingest.brief.sheet import Clause, Found, Selection, Sheet

__all__ = ["before_after", "coverage", "exclusion", "first_last", "inclusion"]

_ITEM = r"(?:the\s+)?[\w'’-]+(?:\s+(?!and\b|or\b)[\w'’-]+)?"
_COVER = re.compile(
    rf"\bcover(?:s|ing)?\s+(?P<list>{_ITEM}(?:\s*,\s*{_ITEM})*(?:\s*,?\s+(?:and|&)\s+{_ITEM})?)",
    re.I,
)
_EXCLUDE = re.compile(
    rf"\b(?:no|nothing(?:\s+(?:of|from|with|showing))?|without|leave\s+out|skip|drop|avoid|"
    rf"exclude|cut\s+out|lose\s+the|not?\s+(?:any|one)|don'?t\s+(?:show|use|include|want)|"
    rf"do\s+not\s+(?:show|use|include|want))\s+(?P<x>{X}+)",
    re.I,
)
_KEEP_OUT = re.compile(
    rf"\bkeep\s+(?P<x>{X}+?)\s+out(?:\s+of\s+(?:it|this|there|the\s+\w+))?\b", re.I
)
_BEFORE = re.compile(
    rf"(?:^|\x00)\s*(?:and\s+)?(?P<x>{X}+?)\s+(?:should\s+|has\s+to\s+|must\s+|needs?\s+to\s+|to\s+)?"
    rf"(?:come\s+|go\s+|be\s+|comes\s+|goes\s+|appear\s+|happen\s+)?"
    rf"(?P<w>before|after|ahead\s+of|prior\s+to|followed\s+by)\s+(?P<y>{X}+)",
    re.I,
)
_FIRST = re.compile(
    rf"\b(?:open(?:s|ing)?|start(?:s|ing)?|begin(?:s|ning)?|kick\s+off|lead(?:s|ing)?(?:\s+off)?)\s+"
    rf"(?:it\s+|things\s+)?(?:on|with)\s+(?P<x>{X}+)",
    re.I,
)
_LAST = re.compile(
    rf"\b(?:end(?:s|ing)?|finish(?:es|ing)?|clos(?:e|es|ing)|land(?:s|ing)?|"
    rf"wrap(?:s|ping)?(?:\s+up)?|conclude)\s+(?:it\s+|things\s+)?(?:on|with)\s+(?P<x>{X}+)",
    re.I,
)
_SUFFIX = re.compile(
    rf"(?:^|\band\b)\s*(?P<x>{X}+?)\s+(?P<k>first|last|at\s+the\s+(?:end|start|beginning)|"
    rf"to\s+(?:close|finish|end)(?:\s+(?:it|things))?(?:\s+out)?|to\s+(?:open|start)"
    rf"(?:\s+(?:it|things))?)(?=\s*(?:$|\x00|\band\b|[,.]))",
    re.I,
)
_AT_LEAST = re.compile(
    rf"\bat\s+least\s+(?P<n>{NUMW})\s+(?P<x>{X}+?)(?:\s+(?:shots?|clips?))?(?=\s*(?:$|\x00))",
    re.I,
)
_INCLUDE = re.compile(
    rf"\b(?:include|including|show|showing|feature|featuring|add|put\s+in|with|"
    rf"make\s+sure\s+(?:to\s+)?(?:include|show|get|use))\s+(?P<x>{X}+)",
    re.I,
)
_MUST_BE_IN = re.compile(
    rf"(?:^|\x00)\s*(?:and\s+)?(?P<x>{X}+?)\s+(?:(?:has|have|needs?|must|should)\s+to\s+"
    rf"(?:be\s+in(?:\s+(?:it|there|the\s+\w+))?|make\s+it(?:\s+in)?|appear|feature|"
    rf"be\s+(?:there|included|shown))|(?:is|are)\s+a\s+must|(?:must|should)\s+be\s+in\s+\w+"
    rf"|(?:is|are)\s+(?:in(?:cluded)?|in\s+(?:it|there)|there)(?=\s*(?:$|\x00)))",
    re.I,
)
_MARKER = re.compile(
    rf"(?:^|\x00)\s*(?:and\s+)?(?P<x>{X}+?)\s+(?:somewhere(?:\s+in\s+(?:the\s+middle|between))?|"
    rf"in\s+the\s+middle|in\s+between|front\s+and\s+cent(?:re|er)|at\s+least\s+once)\b",
    re.I,
)
_LEAD = re.compile(r"(?:make\s+sure|ensure|be\s+sure)\s+(?:that\s+)?", re.I)
_THEN = re.compile(rf"(?:^|\x00)\s*(?:and\s+)?then\s+(?P<x>{X}+)", re.I)
_OF = re.compile(rf"\bof\s+(?P<x>the\s+{X}+)$", re.I)
_PRONOUN = re.compile(r"^(?:it|that|this|they|those|them)$", re.I)
_TAIL = re.compile(r"\s+(?:at\s+least\s+once|please|too|as\s+well|if\s+you\s+can)\s*$", re.I)


def _sel(found: Found) -> Selection | None:
    return found.selection


def _add_items(
    sheet: Sheet, kind: str, start: int, end: int, span: tuple[int, int], **params: object
) -> list[Found]:
    """One ``kind`` constraint per list item in ``text[start:end]``; the words ``span``."""
    added = []
    items = sheet.items(start, end)
    for index, (a, b) in enumerate(items):
        selection = sheet.select(a, b)
        if selection is None:
            sheet.lose(a, b)
            continue
        words_of = span
        if len(items) > 1:  # each item points at its own words; the first also at the verb
            words_of = (span[0] if index == 0 else a, span[1] if index == len(items) - 1 else b)
        found = Found(kind, {**selection.selector, **params}, *words_of, selection=selection)
        added.append(found)
        sheet.found.append(found)
    sheet.take(*span)
    return added


def _trim(text: str, start: int, end: int) -> int:
    """``end`` pulled back past a trailing "please", "at least once", "if you can"…"""
    tail = _TAIL.search(text[start:end])
    return start + tail.start() if tail else end


def coverage(sheet: Sheet) -> None:
    """ "cover the kitchen, the living room and the garden" → ``coverage`` of those topics."""
    for match in _COVER.finditer(sheet.text):
        start, end = match.span()
        if not sheet.free(start, end):
            continue
        topics: list[str] = []
        for a, b in sheet.items(*match.span("list")):
            selection = sheet.select(a, b)
            if selection is None:
                sheet.lose(a, b)
                continue
            tags = selection.selector.get("tags")
            topics.append(tags[0] if tags else sheet.text[selection.start : selection.end])
        sheet.take(start, end)
        if topics:
            params = {"topics": list(dict.fromkeys(topics)), "min_fraction": 1.0}
            sheet.found.append(Found("coverage", params, start, end))


def exclusion(sheet: Sheet, clause: Clause) -> None:
    """ "no speeches", "nothing of the garage", "leave out X", "keep X out" → ``must_exclude``."""
    view = sheet.view(clause)
    for pattern in (_KEEP_OUT, _EXCLUDE):
        for match in pattern.finditer(view):
            a, b = clause.start + match.start("x"), clause.start + match.end("x")
            b = _trim(sheet.text, a, b)
            span = (clause.start + match.start(), clause.start + match.end())
            _add_items(sheet, "must_exclude", a, b, span)
        view = sheet.view(clause)


def before_after(sheet: Sheet, clause: Clause) -> None:
    """ "X before Y", "X should come after Y", "it before Y" (it: the last clips named)."""
    match = _BEFORE.search(sheet.view(clause))
    if match is None:
        return
    x = _pick(sheet, clause.start + match.start("x"), clause.start + match.end("x"))
    y = _pick(sheet, clause.start + match.start("y"), clause.start + match.end("y"))
    start, end = clause.start + match.start("x"), clause.start + match.end("y")
    sheet.take(start, end)
    if x is None or y is None:
        for part, picked in (("x", x), ("y", y)):
            if picked is None:
                sheet.lose(clause.start + match.start(part), clause.start + match.end(part))
        return
    if match.group("w").lower() == "after":
        x, y = y, x
    params = {"before": x.selector, "after": y.selector}
    sheet.found.append(Found("order", params, start, end, selection=y))


def _pick(sheet: Sheet, start: int, end: int) -> Selection | None:
    text = sheet.text[start:end].strip()
    if _PRONOUN.match(text):
        earlier = [f for f in sheet.found if f.selection and (f.start or 0) < start]
        return earlier[-1].selection if earlier else None
    return sheet.select(start, end)


def first_last(sheet: Sheet, clause: Clause) -> None:
    """ "open on X", "start with X", "X first"; "end on Y", "close with Y", "Y last",
    "Y to close it out", "Y at the end" → ``order`` first / last."""
    for pattern, fixed in ((_FIRST, "first"), (_LAST, "last"), (_SUFFIX, None)):
        for match in pattern.finditer(sheet.view(clause)):
            if fixed is None:
                keyword = match.group("k").lower()
                where = "first" if re.search(r"first|start|begin|open", keyword) else "last"
            else:
                where = fixed
            a, b = clause.start + match.start("x"), clause.start + match.end("x")
            b = _trim(sheet.text, a, b)
            start = clause.start + match.start()
            end = clause.start + match.end() if fixed is None else b
            while sheet.text[start].isspace() or sheet.text[start : start + 4].lower() == "and ":
                start += 4 if not sheet.text[start].isspace() else 1
            selection = sheet.select(a, b)
            sheet.take(start, end)
            if selection is None:
                sheet.lose(a, b)
                continue
            found = Found("order", {where: selection.selector}, start, end, selection=selection)
            sheet.found.append(found)


def inclusion(sheet: Sheet, clause: Clause, previous: Found | None) -> Found | None:
    """Clips the brief asks for → ``must_include`` (and "X, then Y" → X before Y).

    "at least two dance shots"; "include / show / featuring X"; "X has to be in it";
    "X somewhere in the middle"; "… of the mountains"; a clause that is nothing but a list
    of the pool's subjects ("the vows and the rings"). Returns the clause's last item, for a
    following "then".
    """
    view = sheet.view(clause)
    match = _AT_LEAST.search(view)
    if match is not None:
        a, b = clause.start + match.start("x"), clause.start + match.end("x")
        span = (clause.start + match.start(), clause.start + match.end())
        count = number(match.group("n")) or 1
        selection = sheet.select(a, b, union=True)
        sheet.take(*span)
        if selection is None:
            sheet.lose(a, b)
        else:
            found = Found(
                "must_include",
                {**selection.selector, "min_count": int(count)},
                *span,
                selection=selection,
            )
            sheet.found.append(found)
            return found
        return None
    added = _keyword_items(sheet, clause)
    if added is None:
        return None
    if previous is not None and added and _THEN.search(view):
        first = added[0]
        anchored = previous.kind == "order" and "first" in previous.params
        if not anchored and previous.selection is not None and first.selection is not None:
            params = {"before": previous.selection.selector, "after": first.selection.selector}
            start = previous.start if previous.start is not None else first.start
            sheet.found.append(Found("order", params, start, first.end, selection=None))
    return added[-1] if added else None


def _keyword_items(sheet: Sheet, clause: Clause) -> list[Found] | None:
    view = sheet.view(clause)
    for pattern in (_INCLUDE, _MUST_BE_IN, _MARKER, _THEN):
        match = pattern.search(view)
        if match is None:
            continue
        a, b = clause.start + match.start("x"), clause.start + match.end("x")
        b = _trim(sheet.text, a, b)
        lead = _LEAD.match(sheet.text, a, b)
        a = lead.end() if lead else a
        start = clause.start + _first_char(view, match.start())
        end = clause.start + match.end()
        return _add_items(sheet, "must_include", a, b, (start, end))
    bare = _bare(sheet, clause)
    if bare is None:
        return None
    return _add_items(sheet, "must_include", *bare, bare)


def _first_char(view: str, index: int) -> int:
    """The first character at or after ``index`` that is neither space nor claimed."""
    while index < len(view) and (view[index].isspace() or view[index] == "\x00"):
        index += 1
    return index


def _bare(sheet: Sheet, clause: Clause) -> tuple[int, int] | None:
    """The span of a clause (or its "of the …" tail) whose every content word names clips."""
    view = sheet.view(clause)
    match = _OF.search(view.rstrip())
    if match is not None:
        a, b = clause.start + match.start("x"), clause.start + match.end("x")
    else:
        stripped = view.strip()
        if not stripped or "\x00" in stripped:
            return None
        a = clause.start + view.index(stripped)
        b = a + len(stripped)
    content = [w for w in words(sheet.text[a:b], a) if not w.filler]
    if not content:
        return None
    for a_item, b_item in sheet.items(a, b):
        for word in words(sheet.text[a_item:b_item], a_item):
            if not word.filler and not sheet.vocabulary.match([word]):
                joined = sheet.vocabulary.match(words(sheet.text[a_item:b_item], a_item))
                if not any(m.start <= word.start and word.end <= m.end for m in joined):
                    return None
    return a, b
