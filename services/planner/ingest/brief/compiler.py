"""The ``rules`` brief compiler: a brief and its pool → ledger, provenance, unparsed, conflicts.

>>> result = compile_rules("30 seconds, open on the venue, end on the kiss", clips, music)
>>> result.ledger[0]
{'id': 'L1', 'kind': 'duration', 'hard': True, 'min_s': 28.0, 'max_s': 32.0, 'target_s': 30.0}
>>> result.provenance[0]
{'constraint_id': 'L1', 'start': 0, 'end': 10, 'text': '30 seconds', 'source': 'brief'}

Defaults the compiler adds itself carry ``source: "default"`` (or ``"aspect"`` for the
brief's aspect field) and ``start``/``end``/``text`` null: ``music`` for a pool's only track
(hard), ``no_reuse`` (soft) when the brief says nothing about reuse, and ``orientation``
(soft) from an explicitly given aspect when the words say no shape. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.planner.ingest.brief import rules, selection
from services.planner.ingest.brief.conflicts import resolve
from services.planner.ingest.brief.lexicon import Vocabulary, words
from services.planner.ingest.brief.sheet import Found, Sheet, clauses

__all__ = ["CompiledBrief", "compile_rules", "orientation_of_aspect"]


@dataclass
class CompiledBrief:
    """What a compiler answers: the ledger (Task.1 wire form) and where each entry came from."""

    ledger: list[dict[str, Any]]
    provenance: list[dict[str, Any]]
    unparsed: list[dict[str, Any]]
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    """What a model proposed that failed the checks (``llm`` only), with the reason."""


def orientation_of_aspect(aspect: str) -> str:
    """``"9:16"`` → portrait, ``"16:9"`` → landscape, ``"1:1"`` → square."""
    width, height = (int(part) for part in aspect.split(":"))
    if width == height:
        return "square"
    return "portrait" if height > width else "landscape"


def compile_rules(
    text: str,
    clips: Sequence[dict[str, Any]],
    music: Sequence[dict[str, Any]],
    *,
    aspect: str | None = None,
) -> CompiledBrief:
    """Compile ``text`` against the pool (``clips``/``music`` in Task.1 wire form).

    ``aspect`` only when the user gave one (the Task.1 default says nothing).
    """
    vocabulary = Vocabulary.build((c["id"], c.get("caption", ""), c.get("tags", [])) for c in clips)
    vocabulary.durations = {c["id"]: float(c["duration_s"]) for c in clips}
    sheet = Sheet(text, vocabulary, list(music))
    _read(sheet)
    resolve(sheet, clips)
    _defaults(sheet, clips, music, aspect)
    return _answer(sheet)


def _read(sheet: Sheet) -> None:
    selection.coverage(sheet)
    pieces = clauses(sheet.text)
    notes = rules.TransitionNotes()
    for clause in pieces:
        rules.reuse(sheet, clause)
        rules.runs(sheet, clause)
        rules.downbeat(sheet, clause)
        rules.beats(sheet, clause)
        rules.transitions(sheet, clause, notes)
        rules.durations(sheet, clause)
        rules.orientation(sheet, clause)
        rules.music(sheet, clause)
    rules.transition_constraint(sheet, notes)
    previous: Found | None = None
    for clause in pieces:
        before = len(sheet.found)
        selection.exclusion(sheet, clause)
        selection.before_after(sheet, clause)
        selection.first_last(sheet, clause)
        last = selection.inclusion(sheet, clause, previous)
        named = [f for f in sheet.found[before:] if f.selection is not None]
        previous = last or (named[-1] if named else None)


def _defaults(
    sheet: Sheet,
    clips: Sequence[dict[str, Any]],
    music: Sequence[dict[str, Any]],
    aspect: str | None,
) -> None:
    kinds = {f.kind for f in sheet.found}
    if "music" not in kinds and len(music) == 1:
        note = "the pool's only music track"
        sheet.found.append(
            Found("music", {"track_id": music[0]["id"]}, None, None, source="default", note=note)
        )
    if "no_reuse" not in kinds:
        note = "no clip is used twice unless the brief allows it"
        sheet.found.append(
            Found("no_reuse", {"max_uses": 1}, None, None, hard=False, source="default", note=note)
        )
    if aspect and "orientation" not in kinds:
        value = orientation_of_aspect(aspect)
        found = Found(
            "orientation",
            {"value": value},
            None,
            None,
            hard=False,
            weight=2.0,
            source="aspect",
            note=f"aspect {aspect}",
        )
        sheet.found.append(found)
        if not any(c.get("orientation", "landscape") == value for c in clips):
            sheet.conflict(f"the aspect {aspect} asks for {value} clips; the pool has none", found)


def _answer(sheet: Sheet) -> CompiledBrief:
    stated = sorted(
        (f for f in sheet.found if f.source == "brief"), key=lambda f: (f.start or 0, f.end or 0)
    )
    ordered = stated + [f for f in sheet.found if f.source != "brief"]
    ledger, provenance = [], []
    for index, found in enumerate(ordered, 1):
        constraint_id = f"L{index}"
        entry: dict[str, Any] = {"id": constraint_id, "kind": found.kind, "hard": found.hard}
        if found.weight is not None:
            entry["weight"] = found.weight
        ledger.append({**entry, **found.params})
        spans = [(found.start, found.end), *found.more]
        for start, end in spans:
            row: dict[str, Any] = {
                "constraint_id": constraint_id,
                "start": start,
                "end": end,
                "text": None if start is None or end is None else sheet.text[start:end],
                "source": found.source,
            }
            if found.note:
                row["note"] = found.note
            provenance.append(row)
    return CompiledBrief(ledger, provenance, _unparsed(sheet, ordered), sheet.conflicts)


def _unparsed(sheet: Sheet, found: list[Found]) -> list[dict[str, Any]]:
    """Content words no constraint's span holds, grouped per clause, plus items that named
    nothing inside a clause a rule read."""
    covered = [(f.start, f.end) for f in found if f.start is not None and f.end is not None]
    covered += [span for f in found for span in f.more]
    covered += [  # words of a constraint a contradiction set aside: read, and named there
        (s["start"], s["end"])
        for c in sheet.conflicts
        for s in c["spans"]
        if s["start"] is not None and s["end"] is not None
    ]
    spans: list[tuple[int, int]] = list(sheet.lost)
    for clause in clauses(sheet.text):
        run: list[tuple[int, int]] = []
        for word in words(sheet.text[clause.start : clause.end], clause.start):
            inside = any(a <= word.start and word.end <= b for a, b in covered)
            if inside:
                if run:
                    spans.append((run[0][0], run[-1][1]))
                run = []
                continue
            if not word.filler or run:
                run.append((word.start, word.end))
        while run and next(iter(words(sheet.text[run[-1][0] : run[-1][1]]))).filler:
            run.pop()
        if run:
            spans.append((run[0][0], run[-1][1]))
    spans = _merge([(a, b) for a, b in spans if any(not w.filler for w in words(sheet.text[a:b]))])
    return [{"start": a, "end": b, "text": sheet.text[a:b]} for a, b in spans]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in sorted(set(spans)):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged
