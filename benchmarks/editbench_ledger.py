"""EditBench ledgers: constraints derived from a planted timeline, and contradictions.

``build_ledger`` picks 5–14 constraints and derives every parameter from the planted shots so
the planted timeline meets each one, hard or soft. ``make_infeasible`` then, for about one
task in ten, adds a contradiction that is provable from the task alone (``INFEASIBLE_REASONS``).
Constraints are Task.1 ledger dicts; ids are assigned by :func:`number` once the ledger is final.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from benchmarks.editbench_plan import STEP, TRANSITION_TYPES, ClipSpec, Draft, Track
from benchmarks.editbench_vocab import ALL_TAGS
from services.verifier.ledger import KINDS as LEDGER_KINDS
from services.verifier.text import terms
from services.verifier.timeline import to_frames

KINDS: tuple[str, ...] = tuple(LEDGER_KINDS)
INFEASIBLE_REASONS = (
    "missing_tag",
    "too_little_media",
    "orientation_conflict",
    "single_bookend",
    "no_beats",
    "include_excluded",
    "music_too_short",
)
MAX_CONSTRAINTS = 14
WEIGHTS = (0.5, 1.0, 1.0, 2.0, 3.0)


def _floor_to(value: float, unit: float) -> float:
    return round(math.floor(value / unit + 1e-9) * unit, 6)


def _ceil_to(value: float, unit: float) -> float:
    return round(math.ceil(value / unit - 1e-9) * unit, 6)


def _runs(draft: Draft, tag: str) -> int:
    longest = run = 0
    for shot in draft.shots:
        run = run + 1 if tag in shot.clip.tags else 0
        longest = max(longest, run)
    return longest


def _planted_tags(draft: Draft) -> list[str]:
    return sorted({tag for shot in draft.shots for tag in shot.clip.tags})


def _c_duration(rng: random.Random, d: Draft) -> dict[str, Any]:
    total = d.total / d.fps
    slack = rng.choice((0, 1, 2, 3, 5))
    low = max(0, math.floor(min(total, d.target_s)) - slack)
    high = math.ceil(max(total, d.target_s)) + slack
    params: dict[str, Any] = {"min_s": low, "max_s": max(high, low + 1)}
    if rng.random() < 0.6:
        params["target_s"] = d.seconds(d.total)  # the planted length: full soft credit
    return params


def _c_shot_length(rng: random.Random, d: Draft) -> dict[str, Any]:
    lengths = [shot.length / d.fps for shot in d.shots]
    low = max(0.0, _floor_to(min(lengths), 0.5) - rng.choice((0, 0, 0.5)))
    return {"min_s": low, "max_s": _ceil_to(max(lengths), 0.5) + rng.choice((0, 0, 0.5, 1.0))}


def _c_must_include(rng: random.Random, d: Draft) -> dict[str, Any]:
    if rng.random() < 0.25:
        ids = sorted({shot.clip.id for shot in rng.sample(d.shots, min(2, len(d.shots)))})
        return {"clip_ids": ids, "min_count": len(ids)}
    shots = d.shots
    tag = rng.choice(sorted({s.clip.subject for s in shots} | {s.clip.place for s in shots}))
    count = sum(1 for shot in shots if tag in shot.clip.tags)
    return {"tags": [tag], "min_count": rng.randint(1, min(count, 3))}


def _c_must_exclude(rng: random.Random, d: Draft) -> dict[str, Any]:
    used = set(_planted_tags(d))
    defects = sorted({c.defect[0] for c in d.pool if c.defect} - used)
    if defects and rng.random() < 0.7:
        return {"tags": rng.sample(defects, rng.randint(1, len(defects)))}
    others = sorted({c.subject for c in d.pool} - used)
    if others:
        return {"tags": [rng.choice(others)]}
    planted = {shot.clip.id for shot in d.shots}
    return {"clip_ids": sorted(rng.sample([c.id for c in d.pool if c.id not in planted], 2))}


def _c_no_reuse(rng: random.Random, d: Draft) -> dict[str, Any]:
    return {"max_uses": rng.choice((1, 1, 1, 2))}


def _before_after_pairs(d: Draft) -> list[tuple[str, str]]:
    tags = [set(shot.clip.tags) for shot in d.shots]
    where = {tag: [i for i, ts in enumerate(tags) if tag in ts] for tag in _planted_tags(d)}
    return [
        (a, b)
        for a in where
        for b in where
        if a != b
        and max(where[a]) < min(where[b])
        and d.shots[0].clip.subject != b
        and not (set(where[a]) & set(where[b]))
    ]


def _c_order(rng: random.Random, d: Draft) -> dict[str, Any]:
    pairs = _before_after_pairs(d)
    if pairs and rng.random() < 0.4:
        a, b = rng.choice(pairs)
        return {"before": {"tags": [a]}, "after": {"tags": [b]}}
    first, last = d.shots[0].clip, d.shots[-1].clip
    which = rng.choice(("first", "last", "both", "both"))
    params: dict[str, Any] = {}
    if which in ("first", "both"):
        params["first"] = {"tags": [rng.choice((first.subject, first.place))]}
    if which in ("last", "both"):
        params["last"] = {"tags": [rng.choice((last.subject, last.place))]}
    return params


def _c_transitions(rng: random.Random, d: Draft) -> dict[str, Any]:
    used = [shot.transition for shot in d.shots if shot.transition[0] != "cut"]
    if not used:
        return {"allowed": ["cut"], "max_count": 0}
    types = {kind for kind, _ in used} | {"cut"}
    if rng.random() < 0.3:
        types.add(rng.choice(TRANSITION_TYPES))
    lengths = [frames / d.fps for _, frames in used]
    return {
        "allowed": sorted(types),
        "max_count": len(used) + rng.choice((0, 0, 1, 2)),
        "min_duration_s": _floor_to(min(lengths), 0.1),
        "max_duration_s": _ceil_to(max(lengths), 0.1),
    }


def _c_music(rng: random.Random, d: Draft) -> dict[str, Any]:
    assert d.track is not None
    return {"track_id": d.track.id}


def _c_beat_alignment(rng: random.Random, d: Draft) -> dict[str, Any]:
    return {
        "tolerance_s": rng.choice((0.04, 0.05, 0.08, 0.1)),
        "min_fraction": rng.choice((0.6, 0.75, 0.8, 0.9, 1.0)),
    }


def _c_end_on_downbeat(rng: random.Random, d: Draft) -> dict[str, Any]:
    return {"tolerance_s": rng.choice((0.05, 0.1, 0.2))}


def _c_orientation(rng: random.Random, d: Draft) -> dict[str, Any]:
    return {"value": d.orientation}


def _c_max_consecutive_tag(rng: random.Random, d: Draft) -> dict[str, Any]:
    runs = {tag: _runs(d, tag) for tag in _planted_tags(d)}
    longest = max(runs.values())
    tag = rng.choice(sorted(t for t, r in runs.items() if r >= min(longest, 2)))
    return {"tag": tag, "max_run": runs[tag] + rng.choice((0, 0, 1))}


def _c_coverage(rng: random.Random, d: Draft) -> dict[str, Any]:
    shown = sorted({s.clip.subject for s in d.shots} | {s.clip.place for s in d.shots})
    topics = rng.sample(shown, min(len(shown), rng.randint(2, 4)))
    if rng.random() < 0.3:
        used = set().union(*(terms(s.clip.caption) for s in d.shots))
        missing = sorted(t for t in (*d.theme.subjects, *d.theme.places) if not terms(t) <= used)
        if missing:
            topics.append(rng.choice(missing))
            fraction = _floor_to((len(topics) - 1) / len(topics), 0.01)
            return {"topics": topics, "min_fraction": fraction}
    return {"topics": topics, "min_fraction": rng.choice((1.0, 1.0, 0.75, 0.5))}


BUILDERS: dict[str, Callable[[random.Random, Draft], dict[str, Any]]] = {
    "duration": _c_duration,
    "shot_length": _c_shot_length,
    "must_include": _c_must_include,
    "must_exclude": _c_must_exclude,
    "no_reuse": _c_no_reuse,
    "order": _c_order,
    "transitions": _c_transitions,
    "music": _c_music,
    "beat_alignment": _c_beat_alignment,
    "end_on_downbeat": _c_end_on_downbeat,
    "orientation": _c_orientation,
    "max_consecutive_tag": _c_max_consecutive_tag,
    "coverage": _c_coverage,
}
EXTRAS = ("must_include", "must_include", "order", "must_exclude")


def _constraint(rng: random.Random, draft: Draft, kind: str) -> dict[str, Any]:
    head: dict[str, Any] = {"id": "", "kind": kind, "hard": rng.random() < 0.6}
    if not head["hard"]:
        head["weight"] = rng.choice(WEIGHTS)
    return {**head, **BUILDERS[kind](rng, draft)}


_NOT_PARAMS = frozenset({"id", "hard", "weight", "min_count"})


def build_ledger(rng: random.Random, draft: Draft) -> None:
    others = [k for k in KINDS if k != "duration"]
    kinds = ["duration", *rng.sample(others, rng.randint(4, 11))]
    kinds += rng.sample(EXTRAS, rng.randint(0, min(2, MAX_CONSTRAINTS - 2 - len(kinds))))
    ledger, seen = [], set()
    for kind in kinds:
        constraint = _constraint(rng, draft, kind)
        key = repr({k: v for k, v in constraint.items() if k not in _NOT_PARAMS})
        if key not in seen:  # an extra may repeat an earlier constraint: keep one
            seen.add(key)
            ledger.append(constraint)
    rng.shuffle(ledger)
    draft.ledger = ledger


# --------------------------------------------------------------------------- infeasibility


def find(draft: Draft, kind: str) -> dict[str, Any] | None:
    return next((c for c in draft.ledger if c["kind"] == kind), None)


def _ensure(draft: Draft, kind: str, **params: Any) -> dict[str, Any]:
    """The first constraint of ``kind``, made hard (and updated with ``params``); new if none."""
    found = find(draft, kind)
    if found is None:
        found = {"id": "", "kind": kind, "hard": True}
        draft.ledger.append(found)
    found["hard"] = True
    found.pop("weight", None)
    found.update(params)
    return found


def _add(draft: Draft, kind: str, **params: Any) -> dict[str, Any]:
    constraint = {"id": "", "kind": kind, "hard": True, **params}
    draft.ledger.append(constraint)
    return constraint


def _matching(draft: Draft, selector: dict[str, Any]) -> list[ClipSpec]:
    ids, tags = set(selector.get("clip_ids") or ()), set(selector.get("tags") or ())
    return [c for c in draft.pool if c.id in ids or tags & set(c.tags)]


Reason = tuple[str, Callable[[], str], list[dict[str, Any]]]


def _x_missing_tag(rng: random.Random, d: Draft) -> Reason:
    present = {tag for clip in d.pool for tag in clip.tags}
    tag = rng.choice(sorted(set(ALL_TAGS) - present))
    inc = _add(d, "must_include", tags=[tag], min_count=1)
    return (
        "missing_tag",
        lambda: (
            f"hard must_include {inc['id']} asks for tag '{tag}', which no clip in the pool has"
        ),
        [inc],
    )


def _usable(d: Draft) -> tuple[list[ClipSpec], list[dict[str, Any]]]:
    """Clips a timeline may use under the hard orientation and must_exclude rules, and those
    rules (the proof depends on them, so they must stay in the ledger)."""
    rules = [c for c in d.ledger if c["hard"] and c["kind"] in ("orientation", "must_exclude")]
    values = {c["value"] for c in rules if c["kind"] == "orientation"}
    excluded = {clip.id for c in rules if c["kind"] == "must_exclude" for clip in _matching(d, c)}
    usable = [clip for clip in d.pool if clip.id not in excluded and values <= {clip.orientation}]
    return usable, rules


def _x_too_little_media(rng: random.Random, d: Draft) -> Reason:
    reuse = _ensure(d, "no_reuse")
    reuse.setdefault("max_uses", 1)
    usable, rules = _usable(d)
    media = sum(c.duration for c in usable) / d.fps
    low = math.ceil(media) + rng.randint(5, 30)
    dur = _ensure(d, "duration", min_s=low, max_s=low + 30)
    dur.pop("target_s", None)
    return (
        "too_little_media",
        lambda: (
            f"hard duration {dur['id']} needs ≥ {low} s but the {len(usable)} usable clips hold "
            f"{media:.1f} s and hard no_reuse {reuse['id']} forbids reusing media"
        ),
        [reuse, dur, *rules],
    )


def _x_orientation_conflict(rng: random.Random, d: Draft) -> Reason:
    ori = _ensure(d, "orientation", value=d.orientation)
    wrong = [c for c in d.pool if c.orientation != d.orientation]
    clean = sorted(
        {
            t
            for c in wrong
            for t in c.tags
            if all(o.orientation != d.orientation for o in d.pool if t in o.tags)
        }
    )
    selector = {"tags": [rng.choice(clean)]} if clean else {"clip_ids": [rng.choice(wrong).id]}
    inc = _add(d, "must_include", **selector, min_count=1)
    return (
        "orientation_conflict",
        lambda: (
            f"hard must_include {inc['id']} selects only clips that are not {d.orientation}, "
            f"but hard orientation {ori['id']} allows only {d.orientation}"
        ),
        [ori, inc],
    )


def _x_single_bookend(rng: random.Random, d: Draft) -> Reason | None:
    dur = _ensure(d, "duration")
    if "min_s" not in dur:
        dur.update(_c_duration(rng, d))
    short = [c for c in d.pool if c.duration < to_frames(dur["min_s"], d.fps)]
    if not short:
        return None
    clip = rng.choice(short)
    reuse = _ensure(d, "no_reuse", max_uses=1)
    order = _add(d, "order", first={"clip_ids": [clip.id]}, last={"clip_ids": [clip.id]})
    return (
        "single_bookend",
        lambda: (
            f"hard order {order['id']} opens and closes on {clip.id}, the only clip it matches; "
            f"hard no_reuse {reuse['id']} allows one use, so the edit is one shot of ≤ "
            f"{d.seconds(clip.duration)} s, below hard duration {dur['id']}'s {dur['min_s']} s"
        ),
        [dur, reuse, order],
    )


def _x_no_beats(rng: random.Random, d: Draft) -> Reason | None:
    step = STEP[d.fps]
    track = Track(
        id=f"m{len(d.tracks) + 1:02d}",
        period=0,
        first_beat=0,
        mood="ambient",
        duration=step * rng.randint(60 * d.fps // step, 240 * d.fps // step),
        bpm=70,
    )
    d.tracks.append(track)
    music = _ensure(d, "music", track_id=track.id)
    beats = _ensure(d, "beat_alignment")
    beats.setdefault("tolerance_s", 0.1)
    beats["min_fraction"] = max(beats.get("min_fraction", 0.8), 0.5)
    dur, shot = _ensure(d, "duration"), _ensure(d, "shot_length")
    for constraint, build in ((dur, _c_duration), (shot, _c_shot_length)):
        if "min_s" not in constraint:
            constraint.update(build(rng, d))
    if shot["max_s"] >= dur["min_s"]:
        return None
    return (
        "no_beats",
        lambda: (
            f"hard music {music['id']} requires {track.id}, which has no beats, and hard "
            f"beat_alignment {beats['id']} needs {beats['min_fraction']:.0%} of cuts on a beat; "
            f"shots of ≤ {shot['max_s']} s ({shot['id']}) cannot fill {dur['min_s']} s "
            f"({dur['id']}) without a cut"
        ),
        [music, beats, dur, shot],
    )


def _x_include_excluded(rng: random.Random, d: Draft) -> Reason:
    tag = rng.choice(sorted({shot.clip.subject for shot in d.shots}))
    matched = _matching(d, {"tags": [tag]})
    common = sorted(set.intersection(*(set(c.tags) for c in matched)) - {tag})
    selector = (
        {"tags": [rng.choice(common)]} if common else {"clip_ids": sorted(c.id for c in matched)}
    )
    inc = _add(d, "must_include", tags=[tag], min_count=1)
    exc = _add(d, "must_exclude", **selector)
    return (
        "include_excluded",
        lambda: (
            f"every clip that hard must_include {inc['id']} selects (tag '{tag}') is excluded by "
            f"hard must_exclude {exc['id']}"
        ),
        [inc, exc],
    )


def _x_music_too_short(rng: random.Random, d: Draft) -> Reason:
    assert d.track is not None
    track = d.track
    music = _ensure(d, "music", track_id=track.id)
    low = math.ceil(track.duration / d.fps) + rng.randint(5, 30)
    dur = _ensure(d, "duration", min_s=low, max_s=low + 30)
    dur.pop("target_s", None)
    return (
        "music_too_short",
        lambda: (
            f"hard music {music['id']} needs {track.id} under the whole edit, but it lasts "
            f"{d.seconds(track.duration)} s and hard duration {dur['id']} needs ≥ {low} s"
        ),
        [music, dur],
    )


MUTATIONS: dict[str, Callable[[random.Random, Draft], Reason | None]] = {
    "missing_tag": _x_missing_tag,
    "too_little_media": _x_too_little_media,
    "orientation_conflict": _x_orientation_conflict,
    "single_bookend": _x_single_bookend,
    "no_beats": _x_no_beats,
    "include_excluded": _x_include_excluded,
    "music_too_short": _x_music_too_short,
}


def make_infeasible(rng: random.Random, draft: Draft) -> str:
    code = rng.choice(INFEASIBLE_REASONS)
    ledger, tracks = [dict(c) for c in draft.ledger], list(draft.tracks)
    made = MUTATIONS[code](rng, draft)
    if made is None:  # this task cannot host that contradiction: fall back to the simplest
        draft.ledger, draft.tracks = ledger, tracks
        made = _x_missing_tag(rng, draft)
    code, explain, keep = made
    protected = {id(c) for c in keep}
    while len(draft.ledger) > MAX_CONSTRAINTS:
        drop = next(c for c in reversed(draft.ledger) if id(c) not in protected)
        draft.ledger = [c for c in draft.ledger if c is not drop]
    number(draft)
    return f"{code}: {explain()}"


def number(draft: Draft) -> None:
    for i, constraint in enumerate(draft.ledger):
        constraint["id"] = f"L{i + 1}"
