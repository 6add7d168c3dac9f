"""Repeats merged, contradictions named: the ledger a brief states, made consistent.

Repeats merge into one constraint that keeps every span ("at least three market shots" and
"the markets" → one ``must_include`` with ``min_count`` 3). Contradictions ("30 seconds"
and "under 20 seconds"; two different openers; "show the cake" and "no cake") keep the
later words — people correct themselves as they write — and are named in ``conflicts``
with both spans. What the pool cannot give is named too: a shape it lacks, a length longer
than its footage, and a count of shots larger than the clips that match ("at least three
market shots" from two market clips): that count is lowered to the clips there are (each
clip once, as an editor would rather than repeat a shot), and the provenance note and the
conflict say so. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.planner.ingest.brief.sheet import Found, Sheet

__all__ = ["resolve"]


def resolve(sheet: Sheet, clips: Sequence[dict[str, Any]]) -> None:
    """Merge repeats and settle contradictions in ``sheet.found``, in place."""
    sheet.found.sort(key=lambda f: f.start if f.start is not None else 10**9)
    _merge_same(sheet)
    _one_each(sheet)
    _ranges(sheet, "duration")
    _ranges(sheet, "shot_length")
    _include_exclude(sheet)
    _orientation_in_pool(sheet, clips)
    _pool_length(sheet, clips)
    _pool_counts(sheet)


def _key(found: Found) -> tuple[Any, ...] | None:
    """Constraints with the same key say the same thing (to be merged)."""
    p = found.params
    if found.kind == "must_include":
        return ("include", found.selection.clips if found.selection else str(p))
    if found.kind == "must_exclude":
        return ("exclude", found.selection.clips if found.selection else str(p))
    if found.kind in ("no_reuse", "end_on_downbeat", "beat_alignment"):
        return (found.kind,)
    if found.kind == "max_consecutive_tag":
        return (found.kind, p["tag"])
    if found.kind == "order" and "before" in p:
        return ("order", str(p["before"]), str(p["after"]))
    return None


def _merge_same(sheet: Sheet) -> None:
    kept: dict[tuple[Any, ...], Found] = {}
    result: list[Found] = []
    for found in sheet.found:
        key = _key(found)
        if key is None:
            result.append(found)
            continue
        if key not in kept:
            kept[key] = found
            result.append(found)
            continue
        first = kept[key]
        if found.start is not None and found.end is not None:
            first.more.append((found.start, found.end))
        first.more.extend(found.more)
        p, q = first.params, found.params
        if "min_count" in q:
            p["min_count"] = max(p.get("min_count", 1), q["min_count"])
        if "min_fraction" in q:
            p["min_fraction"] = max(p["min_fraction"], q["min_fraction"])
        if "max_run" in q:
            p["max_run"] = min(p["max_run"], q["max_run"])
    sheet.found = result


def _slot(found: Found) -> str | None:
    """Kinds of which a ledger holds one: the opener, the closer, the track, the shape."""
    if found.kind == "order":
        return "first" if "first" in found.params else "last" if "last" in found.params else None
    if found.kind in ("music", "orientation"):
        return found.kind
    return None


def _one_each(sheet: Sheet) -> None:
    latest: dict[str, Found] = {}
    for found in sheet.found:
        slot = _slot(found)
        if slot is None:
            continue
        if slot in latest and latest[slot].params != found.params:
            earlier = latest[slot]
            what = {"first": "opening shot", "last": "closing shot"}.get(slot, slot)
            sheet.conflict(
                f"two different {what}s are asked for; the later one is kept",
                earlier,
                found,
                kept=found,
            )
            sheet.found = [f for f in sheet.found if f is not earlier]
        elif slot in latest:
            latest[slot].more.append((found.start or 0, found.end or 0))
            sheet.found = [f for f in sheet.found if f is not found]
            continue
        latest[slot] = found


def _ranges(sheet: Sheet, kind: str) -> None:
    """Two lengths with no value in common: the later stands."""
    ranges = [f for f in sheet.found if f.kind == kind]
    for index, later in enumerate(ranges):
        for earlier in ranges[:index]:
            if earlier not in sheet.found:
                continue
            low = max(earlier.params["min_s"], later.params["min_s"])
            high = min(earlier.params["max_s"], later.params["max_s"])
            if low > high:
                what = "total length" if kind == "duration" else "shot length"
                sheet.conflict(
                    f"the {what} cannot be both {_range(earlier)} and {_range(later)}; "
                    "the later one is kept",
                    earlier,
                    later,
                    kept=later,
                )
                sheet.found = [f for f in sheet.found if f is not earlier]


def _range(found: Found) -> str:
    return f"{found.params['min_s']:g}–{found.params['max_s']:g} s"


def _include_exclude(sheet: Sheet) -> None:
    """Clips both wanted (included, opening, closing) and refused: the later words win."""
    excluded = [f for f in sheet.found if f.kind == "must_exclude" and f.selection]
    for exclude in excluded:
        for want in [f for f in sheet.found if _wanted(f) and f.selection]:
            assert want.selection is not None and exclude.selection is not None
            if want.selection.clips <= exclude.selection.clips:
                later = max((want, exclude), key=lambda f: f.start or 0)
                earlier = exclude if later is want else want
                sheet.conflict(
                    "the same clips are asked for and refused; the later words are kept",
                    want,
                    exclude,
                    kept=later,
                )
                sheet.found = [f for f in sheet.found if f is not earlier]
                if earlier is exclude:
                    break


def _wanted(found: Found) -> bool:
    params = found.params
    return found.kind == "must_include" or (
        found.kind == "order" and ("first" in params or "last" in params)
    )


def _orientation_in_pool(sheet: Sheet, clips: Sequence[dict[str, Any]]) -> None:
    """A shape the pool lacks, or holds too little of for the length asked, is named."""
    shortest = max((f.params["min_s"] for f in sheet.found if f.kind == "duration"), default=0)
    for found in sheet.found:
        if found.kind != "orientation":
            continue
        value = found.params["value"]
        seconds = sum(
            float(c["duration_s"]) for c in clips if c.get("orientation", "landscape") == value
        )
        if not seconds:
            sheet.conflict(f"no clip in the pool is {value}; the brief asks for it", found)
        elif seconds < shortest:
            sheet.conflict(
                f"the pool holds {seconds:g} s of {value} footage; the edit needs at least "
                f"{shortest:g} s",
                found,
            )


def _pool_length(sheet: Sheet, clips: Sequence[dict[str, Any]]) -> None:
    """A length longer than all the pool's footage can only be met by repeating clips."""
    total = sum(float(c["duration_s"]) for c in clips)
    for found in sheet.found:
        if found.kind == "duration" and found.params["min_s"] > total:
            sheet.conflict(
                f"the pool holds {total:g} s of footage; the edit needs at least "
                f"{found.params['min_s']:g} s, so clips would have to repeat",
                found,
            )


def _pool_counts(sheet: Sheet) -> None:
    """A ``min_count`` above the clips its words name is lowered to them, and named."""
    for found in sheet.found:
        if found.kind != "must_include" or found.selection is None:
            continue
        asked, there = found.params.get("min_count", 1), len(found.selection.clips)
        if there and asked > there:
            found.params["min_count"] = there
            clip_word = "clip matches" if there == 1 else "clips match"
            message = (
                f"{asked} shots are asked for but only {there} {clip_word} in the pool; "
                f"the ledger asks for {there}"
            )
            found.note = message
            sheet.conflict(message, found)
