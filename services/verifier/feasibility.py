"""Ledger entries no timeline can meet together with this pool and music, found before any
search, and what to relax so a cut can be made. Pure.

A :class:`Conflict` names the ledger entries that cannot all hold and the media facts that
forbid it (``L1 duration ≥ 7 s`` against ``music m1 is 5.31 s``): breaking any one entry of
it is the only way out, so a task with ``k`` conflicts that share no entry breaks at least
``k`` hard rules (the bound uses this). :func:`precheck` finds the common cases cheaply:

- a length the music cannot cover (a ``music`` rule puts the track under the whole cut, and
  the music range must lie inside its track), or the footage cannot fill under ``no_reuse``;
- a ``must_include`` / ``order`` selector no allowed clip matches (none has the tag, or the
  ones that do are excluded or of the wrong shape);
- more shots than the clips can give under ``no_reuse`` (a ``min_count``, or the shots a
  length needs at the longest shot length);
- a shot length no clip is long enough for, or longer than the whole cut; a shape, or
  downbeats, the pool lacks.

Each conflict is minimal: every entry it names is needed for it. :func:`deletion_filter`
finds a minimal set for any other oracle (the exact solver's, in the planner).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from services.verifier import ledger as L
from services.verifier.pool import Clip, Selector
from services.verifier.task import Task

__all__ = [
    "RELAX_ORDER",
    "Conflict",
    "blocked_messages",
    "deletion_filter",
    "disjoint_count",
    "precheck",
    "relax",
    "relaxed",
    "restricted",
]

RELAX_ORDER = (
    "duration",
    "shot_length",
    "beat_alignment",
    "end_on_downbeat",
    "must_include",
    "max_consecutive_tag",
    "coverage",
    "order",
    "no_reuse",
    "transitions",
    "orientation",
    "must_exclude",
    "music",
)
"""Which entry of a conflict gives way first: the length before the material the brief
names, the music track last (the user picked it)."""


@dataclass(frozen=True, slots=True)
class Conflict:
    entries: tuple[str, ...]
    """Ledger ids that cannot all hold; relaxing any one of them lifts the conflict."""
    facts: tuple[str, ...]
    """What about the pool or the music forbids it."""
    message: str


def _s(frames: int, fps: int) -> str:
    return f"{round(frames / fps, 3):g}"


def _span(rule: L.Duration, fps: int) -> str:
    return f"{_s(rule.min, fps)}–{_s(rule.max, fps)} s"


def precheck(task: Task, *, also: Iterable[str] = ()) -> list[Conflict]:
    """Conflicts among the hard entries, and the soft ones named in ``also`` taken as hard
    (what a soft entry cannot reach while the hard ones hold)."""
    extra = set(also)
    rules = [r for r in task.ledger if r.hard or r.id in extra]
    pool = _Pool(task, rules)
    found = [
        *_music_length(task, rules),
        *_footage_length(task, rules, pool),
        *_missing_selections(task, rules, pool),
        *_shot_counts(task, rules, pool),
        *_shot_lengths(task, rules),
        *_pool_lacks(task, rules),
    ]
    return _minimal(found)


def _minimal(found: list[Conflict]) -> list[Conflict]:
    """Each conflict once, and none whose entries hold another's (that one explains it)."""
    kept: list[Conflict] = []
    for conflict in sorted(found, key=lambda c: len(c.entries)):
        entries = set(conflict.entries)
        if not any(set(k.entries) <= entries for k in kept):
            kept.append(conflict)
    order = {id(c): i for i, c in enumerate(found)}
    return sorted(kept, key=lambda c: order[id(c)])


def _music_length(task: Task, rules: list[L.Constraint]) -> Iterable[Conflict]:
    fps = task.fps
    for music in (r for r in rules if isinstance(r, L.Music)):
        track = task.tracks.get(music.track_id)
        if track is None:
            fact = f"the task has no music track {music.track_id}"
            yield Conflict((music.id,), (fact,), f"{music.id} asks for it, but {fact}")
            continue
        fact = f"music {track.id} is {_s(track.duration, fps)} s"
        for rule in (r for r in rules if isinstance(r, L.Duration)):
            if rule.min > track.duration:
                yield Conflict(
                    (rule.id, music.id),
                    (fact,),
                    f"{rule.id} asks for {_span(rule, fps)} but {fact} and {music.id} puts it "
                    f"under the whole cut: no cut with it can be longer than "
                    f"{_s(track.duration, fps)} s",
                )


class _Pool:
    """Selector matches and the clips each exclusion or shape rule removes, found once."""

    def __init__(self, task: Task, rules: list[L.Constraint]) -> None:
        self.task = task
        self._matches: dict[Selector, frozenset[str]] = {}
        self.removed: list[tuple[L.Constraint, frozenset[str]]] = []
        for rule in rules:
            if isinstance(rule, L.MustExclude):
                gone = self.matching(rule.selector)
            elif isinstance(rule, L.OrientationRule):
                gone = frozenset(c.id for c in task.clips.values() if c.orientation != rule.value)
            else:
                continue
            if gone:
                self.removed.append((rule, gone))
        self.allowed = frozenset(task.clips).difference(*(g for _, g in self.removed))

    def matching(self, selector: Selector) -> frozenset[str]:
        found = self._matches.get(selector)
        if found is None:
            clips = self.task.clips.values()
            found = self._matches[selector] = frozenset(c.id for c in clips if selector.matches(c))
        return found

    def needed(
        self, still: Callable[[set[str]], bool], within: frozenset[str] | None = None
    ) -> list[L.Constraint]:
        """The fewest removing rules (a deletion filter) whose removed clips, restricted to
        ``within`` when given, still make ``still`` hold."""
        kept = [(r, g if within is None else g & within) for r, g in self.removed]
        kept = [(r, g) for r, g in kept if g]
        for item in list(kept):
            trial = [k for k in kept if k is not item]
            if still(set().union(*(g for _, g in trial))):
                kept = trial
        return [r for r, _ in kept]


def _reuse(rules: list[L.Constraint]) -> L.NoReuse | None:
    return next((r for r in rules if isinstance(r, L.NoReuse)), None)


def _footage_length(task: Task, rules: list[L.Constraint], pool: _Pool) -> Iterable[Conflict]:
    """Under no_reuse no source frame plays twice: the cut is at most the allowed footage."""
    reuse = _reuse(rules)
    if reuse is None:
        return
    fps = task.fps
    total = sum(c.duration for c in task.clips.values())
    for rule in (r for r in rules if isinstance(r, L.Duration)):

        def short(out: set[str] | frozenset[str], need: int = rule.min) -> bool:
            return total - sum(task.clips[c].duration for c in out) < need

        if not short(frozenset(task.clips) - pool.allowed):
            continue
        needed = pool.needed(short)
        out = set().union(*(g for r, g in pool.removed if r in needed))
        which = "the pool holds" if not needed else "the clips allowed hold"
        fact = f"{which} {_s(total - sum(task.clips[c].duration for c in out), fps)} s of footage"
        yield Conflict(
            (rule.id, reuse.id, *(r.id for r in needed)),
            (fact,),
            f"{rule.id} asks for {_span(rule, fps)} but {fact} and {reuse.id} plays no frame twice",
        )


def _selections(rule: L.Constraint) -> list[tuple[str, Selector]]:
    if isinstance(rule, L.MustInclude):
        return [("a shot of", rule.selector)]
    if isinstance(rule, L.Order):
        named = (("opening on", rule.first), ("closing on", rule.last))
        return [(what, s) for what, s in named if s is not None]
    return []


def _missing_selections(task: Task, rules: list[L.Constraint], pool: _Pool) -> Iterable[Conflict]:
    for rule in rules:
        for what, selector in _selections(rule):
            matching = pool.matching(selector)
            if not matching:
                fact = f"no clip has {selector.describe()}"
                yield Conflict((rule.id,), (fact,), f"{rule.id} asks for {what} "
                               f"{selector.describe()}, but {fact}")  # fmt: skip
            elif not matching & pool.allowed:
                needed = pool.needed(lambda out, m=matching: m <= out, within=matching)
                names = ", ".join(r.id for r in needed)
                fact = f"{', '.join(sorted(matching)[:5])} match {selector.describe()}"
                yield Conflict(
                    (rule.id, *(r.id for r in needed)),
                    (fact,),
                    f"{rule.id} asks for {what} {selector.describe()}, but {fact} and "
                    f"{names} rule{'s' if len(needed) > 1 else ''} them out",
                )


def _shot_counts(task: Task, rules: list[L.Constraint], pool: _Pool) -> Iterable[Conflict]:
    reuse = _reuse(rules)
    if reuse is None:
        return
    uses = max(1, reuse.max_uses)
    for rule in (r for r in rules if isinstance(r, L.MustInclude)):
        matching = pool.matching(rule.selector)
        if matching and rule.min_count > len(matching) * uses:
            verb = "clips match" if len(matching) > 1 else "clip matches"
            fact = f"{len(matching)} {verb} {rule.selector.describe()}"
            yield Conflict(
                (rule.id, reuse.id),
                (fact,),
                f"{rule.id} asks for {rule.min_count} shots of {rule.selector.describe()} "
                f"but {fact} and {reuse.id} allows each {uses}×",
            )
    longest = [r for r in rules if isinstance(r, L.ShotLength)]
    for duration in (r for r in rules if isinstance(r, L.Duration)):
        for shot in longest:
            shots = -(-duration.min // max(1, shot.max))
            if shots > len(task.clips) * uses:
                fps = task.fps
                fact = f"the pool has {len(task.clips)} clips"
                yield Conflict(
                    (duration.id, shot.id, reuse.id),
                    (fact,),
                    f"{duration.id} asks for {_span(duration, fps)} in shots of at most "
                    f"{_s(shot.max, fps)} s ({shot.id}): {shots} shots, but {fact} and "
                    f"{reuse.id} allows each {uses}×",
                )


def _shot_lengths(task: Task, rules: list[L.Constraint]) -> Iterable[Conflict]:
    fps = task.fps
    longest: Clip | None = max(task.clips.values(), key=lambda c: c.duration, default=None)
    for shot in (r for r in rules if isinstance(r, L.ShotLength)):
        if longest is not None and shot.min > longest.duration:
            fact = f"the longest clip, {longest.id}, is {_s(longest.duration, fps)} s"
            yield Conflict((shot.id,), (fact,), f"{shot.id} asks for shots of at least "
                           f"{_s(shot.min, fps)} s, but {fact}")  # fmt: skip
        for duration in (r for r in rules if isinstance(r, L.Duration)):
            if shot.min > duration.max:
                yield Conflict(
                    (duration.id, shot.id),
                    (),
                    f"{shot.id} asks for shots of at least {_s(shot.min, fps)} s, longer "
                    f"than the {_s(duration.max, fps)} s {duration.id} allows the whole cut",
                )


def _pool_lacks(task: Task, rules: list[L.Constraint]) -> Iterable[Conflict]:
    for rule in rules:
        if isinstance(rule, L.OrientationRule) and not any(
            c.orientation == rule.value for c in task.clips.values()
        ):
            fact = f"no clip is {rule.value}"
            yield Conflict((rule.id,), (fact,), f"{rule.id} asks for {rule.value}, but {fact}")
        if isinstance(rule, L.EndOnDownbeat) and not any(t.downbeats for t in task.tracks.values()):
            fact = "no music track has downbeats"
            yield Conflict((rule.id,), (fact,), f"{rule.id} asks to end on a downbeat: {fact}")


def disjoint_count(conflicts: Sequence[Conflict]) -> int:
    """How many of ``conflicts`` share no entry (greedily, smallest first): a lower bound
    on the hard rules every timeline breaks."""
    used: set[str] = set()
    count = 0
    for conflict in sorted(conflicts, key=lambda c: len(c.entries)):
        if used.isdisjoint(conflict.entries):
            used.update(conflict.entries)
            count += 1
    return count


def blocked_messages(task: Task) -> dict[str, str]:
    """For each entry no timeline can meet while the hard entries hold, the conflict's
    message: what its report says instead of a fix that cannot be made."""
    soft = {r.id for r in task.ledger if not r.hard}
    found: dict[str, str] = {}
    for conflict in precheck(task, also=soft):  # one pass, every entry taken as hard
        loose = soft.intersection(conflict.entries)
        if not loose:
            for entry in conflict.entries:
                found.setdefault(entry, _blocked(conflict))
        elif len(loose) == 1:  # unreachable while the hard entries hold; they stay reachable
            found.setdefault(loose.pop(), _blocked(conflict))
    return found


def _blocked(conflict: Conflict) -> str:
    return f"cannot be met with this pool and music: {conflict.message}"


def relax(task: Task, conflicts: Sequence[Conflict]) -> tuple[str, ...]:
    """One entry per conflict to make soft (by :data:`RELAX_ORDER`; an entry already chosen
    lifts every conflict it is in)."""
    kinds = {r.id: r.kind for r in task.ledger}
    rank = {kind: i for i, kind in enumerate(RELAX_ORDER)}
    chosen: list[str] = []
    for conflict in conflicts:
        if chosen and not set(chosen).isdisjoint(conflict.entries):
            continue
        pick = min(conflict.entries, key=lambda e: rank.get(kinds.get(e, ""), len(rank)))
        chosen.append(pick)
    return tuple(chosen)


def relaxed(task: Task, entries: Iterable[str]) -> Task:
    """``task`` with ``entries`` soft (weight 1 unless they had one): the cut comes as close
    to them as the pool allows."""
    soft = set(entries)
    ledger = tuple(dataclasses.replace(r, hard=False) if r.id in soft else r for r in task.ledger)
    return dataclasses.replace(task, ledger=ledger)


def restricted(task: Task, hard: Iterable[str]) -> Task:
    """``task`` keeping only the hard entries named (soft ones dropped): one trial of a
    deletion filter."""
    keep = set(hard)
    ledger = tuple(r for r in task.ledger if r.hard and r.id in keep)
    return dataclasses.replace(task, ledger=ledger)


def deletion_filter(
    entries: Sequence[str], infeasible: Callable[[frozenset[str]], bool]
) -> tuple[str, ...]:
    """A minimal subset of ``entries`` that ``infeasible`` still holds of: each entry in
    turn is left out for good when the rest stay infeasible (one oracle call per entry)."""
    kept = list(entries)
    for entry in entries:
        trial = [e for e in kept if e != entry]
        if infeasible(frozenset(trial)):
            kept = trial
    return tuple(kept)
