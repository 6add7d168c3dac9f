"""The constraint ledger: one small class per kind, each judging a :class:`TimelineView`.

``evaluate`` returns an :class:`Outcome`: satisfied or not, a score in [0, 1] with partial
credit by violation size, the violation in the kind's natural unit (seconds, shots, cuts or
a fraction), and, when unmet, a message that says what to change.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

from services.verifier.pool import Orientation, Selector
from services.verifier.text import terms
from services.verifier.timeline import FrameRange, Shot, TransitionType
from services.verifier.view import TimelineView


class Outcome(NamedTuple):
    satisfied: bool
    score: float
    violation: float
    message: str | None = None


MET = Outcome(True, 1.0, 0.0)


def _partial(violation: float, scale: float) -> float:
    return max(0.0, 1.0 - violation / scale) if scale > 0 else 0.0


def _shot_list(indices: list[int], limit: int = 5) -> str:
    shown = ", ".join(str(i) for i in indices[:limit])
    return shown + (f" (+{len(indices) - limit} more)" if len(indices) > limit else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class Constraint:
    kind: ClassVar[str] = ""
    id: str
    hard: bool = True
    weight: float = 1.0

    def evaluate(self, view: TimelineView) -> Outcome:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True, slots=True, kw_only=True)
class Duration(Constraint):
    kind: ClassVar[str] = "duration"
    min: int
    max: int
    target: int | None = None

    def evaluate(self, view: TimelineView) -> Outcome:
        total = view.total
        if self.min <= total <= self.max:
            if self.target is None:
                return MET
            spread = max(self.target - self.min, self.max - self.target, 1)
            return Outcome(True, 1.0 - 0.5 * abs(total - self.target) / spread, 0.0)
        short = total < self.min
        gap = self.min - total if short else total - self.max
        verb = "add" if short else "remove"
        message = (
            f"timeline is {view.seconds(total)} s; duration needs "
            f"{view.seconds(self.min)}–{view.seconds(self.max)} s: {verb} ≥ {view.seconds(gap)} s"
        )
        return Outcome(False, 0.5 * _partial(gap, self.max), gap / view.fps, message)


@dataclass(frozen=True, slots=True, kw_only=True)
class ShotLength(Constraint):
    kind: ClassVar[str] = "shot_length"
    min: int
    max: int

    def evaluate(self, view: TimelineView) -> Outcome:
        lo, hi = self.min, self.max
        lengths = view.lengths
        if not lengths or (min(lengths) >= lo and max(lengths) <= hi):
            return MET
        bad = [i for i, length in enumerate(view.lengths) if length < lo or length > hi]
        if not bad:
            return MET
        lengths = view.lengths
        excess = sum(lo - lengths[i] if lengths[i] < lo else lengths[i] - hi for i in bad)
        first = bad[0]
        message = (
            f"shots {_shot_list(bad)} fall outside {view.seconds(lo)}–{view.seconds(hi)} s "
            f"(shot {first} is {view.seconds(lengths[first])} s): trim or extend them"
        )
        return Outcome(False, 1.0 - len(bad) / len(lengths), excess / view.fps, message)


@dataclass(frozen=True, slots=True, kw_only=True)
class MustInclude(Constraint):
    kind: ClassVar[str] = "must_include"
    selector: Selector
    min_count: int = 1

    def evaluate(self, view: TimelineView) -> Outcome:
        count = view.count_matching(self.selector)
        if count >= self.min_count:
            return MET
        matched = view.matching(self.selector)
        missing = self.min_count - count
        hint = (
            f" (e.g. {', '.join(sorted(matched)[:3])})"
            if matched
            else " (no clip in the pool matches)"
        )
        message = (
            f"{count} of {self.min_count} required shots match {self.selector.describe()}: "
            f"insert {missing} more{hint}"
        )
        return Outcome(False, count / self.min_count, float(missing), message)


@dataclass(frozen=True, slots=True, kw_only=True)
class MustExclude(Constraint):
    kind: ClassVar[str] = "must_exclude"
    selector: Selector

    def evaluate(self, view: TimelineView) -> Outcome:
        matched = view.matching(self.selector)
        if matched.isdisjoint(view.clip_ids):
            return MET
        bad = [i for i, clip_id in enumerate(view.ids) if clip_id in matched]
        message = (
            f"shots {_shot_list(bad)} use clips matching {self.selector.describe()}, "
            "which are excluded: remove or replace them"
        )
        return Outcome(False, 1.0 - len(bad) / len(view.shots), float(len(bad)), message)


@dataclass(frozen=True, slots=True, kw_only=True)
class NoReuse(Constraint):
    kind: ClassVar[str] = "no_reuse"
    max_uses: int = 1

    def evaluate(self, view: TimelineView) -> Outcome:
        ids = view.ids
        if len(view.clip_ids) == len(ids):
            return MET
        uses = Counter(ids)
        over = sorted((clip, n) for clip, n in uses.items() if n > self.max_uses)
        excess = sum(n - self.max_uses for _, n in over)
        groups: dict[str, list[int]] = {}
        for i, clip_id in enumerate(ids):
            if uses[clip_id] > 1:
                groups.setdefault(clip_id, []).append(i)
        shots = view.shots
        overlaps = sum(
            overlapping_pairs([shots[i].source for i in group]) for group in groups.values()
        )
        violation = excess + overlaps
        if violation == 0:
            return MET
        parts = [f"clip {clip} is used {n} times (max {self.max_uses})" for clip, n in over[:4]]
        if len(parts) < 4 and overlaps:
            parts += [
                f"shots {a} and {b} overlap in {ids[a]}'s source"
                for a, b in first_overlaps(shots, groups, 4 - len(parts))
            ]
        more = len(over) + overlaps - len(parts)
        message = (
            "; ".join(parts)
            + (f" (+{more} more)" if more > 0 else "")
            + ": replace the repeats with unused clips"
        )
        return Outcome(False, max(0.0, 1.0 - violation / len(shots)), float(violation), message)


def overlapping_pairs(ranges: list[FrameRange]) -> int:
    """How many pairs of the ranges share a frame, in O(n log n).

    Two non-empty ranges either overlap or one ends at or before the other starts (never
    both), so the overlapping pairs are all pairs less those where ``p`` ends by ``q``'s
    start: for each ``q``, the ranges whose end is at most its start.
    """
    ranges = [r for r in ranges if r.start < r.end]
    ends = sorted(r.end for r in ranges)
    n = len(ranges)
    apart = sum(bisect_right(ends, r.start) for r in ranges)
    return n * (n - 1) // 2 - apart


OVERLAP_SCAN_BUDGET = 50_000
"""Range comparisons spent finding the overlapping pairs a message names (the count is exact)."""


def first_overlaps(
    shots: tuple[Shot, ...], groups: dict[str, list[int]], limit: int
) -> list[tuple[int, int]]:
    """The first ``limit`` overlapping shot pairs ``(a, b)``, ``a < b``, in index order.

    ``groups`` holds each reused clip's shot indices, ascending. The scan stops after
    :data:`OVERLAP_SCAN_BUDGET` comparisons: a message names a few pairs, never all.
    """
    found: list[tuple[int, int]] = []
    budget = OVERLAP_SCAN_BUDGET
    positions = {i: (group, p) for group in groups.values() for p, i in enumerate(group)}
    for a in sorted(positions):
        group, p = positions[a]
        source = shots[a].source
        for q in range(p + 1, len(group)):
            b = group[q]
            budget -= 1
            if source.overlaps(shots[b].source):
                found.append((a, b))
                if len(found) == limit:
                    return found
            if budget <= 0:
                return found
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class Order(Constraint):
    kind: ClassVar[str] = "order"
    first: Selector | None = None
    last: Selector | None = None
    before: Selector | None = None
    after: Selector | None = None

    def evaluate(self, view: TimelineView) -> Outcome:
        shots = view.shots
        failures: list[str] = []
        checks = 0
        for position, selector in ((0, self.first), (-1, self.last)):
            if selector is None:
                continue
            checks += 1
            if not shots or shots[position].clip_id not in view.matching(selector):
                where = "opening" if position == 0 else "closing"
                failures.append(f"the {where} shot must match {selector.describe()}")
        inversions = 0
        pairs = 0
        if (
            self.before is not None
            and self.after is not None
            and not view.matching(self.before).isdisjoint(view.clip_ids)
            and not view.matching(self.after).isdisjoint(view.clip_ids)
        ):
            before, after = view.matching(self.before), view.matching(self.after)
            seen_after = 0
            for shot in shots:
                is_before, is_after = shot.clip_id in before, shot.clip_id in after
                if is_before:
                    inversions += seen_after
                if is_after:
                    seen_after += 1
            n_before = sum(1 for shot in shots if shot.clip_id in before)
            pairs = n_before * seen_after
            if inversions:
                failures.append(
                    f"{inversions} shot pairs put {self.after.describe()} before "
                    f"{self.before.describe()}: move them"
                )
        if not failures:
            return MET
        total = checks + (1 if pairs else 0)
        failed = len(failures) - (1 if inversions else 0)
        score = 1.0 - (failed + (inversions / pairs if pairs else 0.0)) / max(total, 1)
        violation = float(failed + inversions)
        return Outcome(False, max(0.0, score), violation, "; ".join(failures))


@dataclass(frozen=True, slots=True, kw_only=True)
class Transitions(Constraint):
    kind: ClassVar[str] = "transitions"
    allowed: frozenset[TransitionType] | None = None
    max_count: int | None = None
    min_duration: int | None = None
    max_duration: int | None = None

    def evaluate(self, view: TimelineView) -> Outcome:
        allowed, lo, hi = self.allowed, self.min_duration, self.max_duration
        used = len(view.transitions)
        if allowed is not None and TransitionType.CUT not in allowed and used < len(view.shots):
            # the opening shot's cut is no transition: nothing precedes it
            bad = [
                i
                for i, shot in enumerate(view.shots)
                if i > 0 and shot.transition_in.type is TransitionType.CUT
            ]
        else:
            bad = []
        for i, transition in view.transitions:
            if (
                (allowed is not None and transition.type not in allowed)
                or (lo is not None and transition.duration < lo)
                or (hi is not None and transition.duration > hi)
            ):
                bad.append(i)
        bad.sort()
        over = max(0, used - self.max_count) if self.max_count is not None else 0
        if not bad and not over:
            return MET
        parts = []
        if bad:
            rules = []
            if allowed is not None:
                rules.append("types " + ", ".join(sorted(allowed)))
            if lo is not None or hi is not None:
                low = view.seconds(lo) if lo is not None else 0
                high = view.seconds(hi) if hi is not None else "any"
                rules.append(f"durations {low}–{high} s")
            parts.append(
                f"transitions into shots {_shot_list(bad)} break the rules ({'; '.join(rules)})"
            )
        if over:
            parts.append(f"{used} transitions; at most {self.max_count}: set {over} to cut")
        violation = len(bad) + over
        return Outcome(
            False, _partial(violation, max(len(view.shots), 1)), float(violation), "; ".join(parts)
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Music(Constraint):
    kind: ClassVar[str] = "music"
    track_id: str

    def evaluate(self, view: TimelineView) -> Outcome:
        music = view.music
        if music is None:
            return Outcome(False, 0.0, 1.0, f"no music placed: set_music {self.track_id}")
        if music.track_id != self.track_id:
            return Outcome(
                False, 0.0, 1.0, f"music {music.track_id} is placed; needs {self.track_id}"
            )
        track = view.track
        if track is None:
            return Outcome(False, 0.0, 1.0, f"music track {self.track_id} is not in the task")
        covered = min(view.total, max(0, track.duration - music.offset))
        if covered >= view.total:
            return MET
        missing = view.total - covered
        fix = (
            f"lower its offset by ≥ {view.seconds(missing)} s"
            if music.offset >= missing
            else f"shorten the timeline by ≥ {view.seconds(missing - music.offset)} s"
        )
        message = (
            f"{self.track_id} covers {view.seconds(covered)} of {view.seconds(view.total)} s: "
            + fix
        )
        return Outcome(False, covered / view.total, missing / view.fps, message)


@dataclass(frozen=True, slots=True, kw_only=True)
class BeatAlignment(Constraint):
    kind: ClassVar[str] = "beat_alignment"
    tolerance: int
    min_fraction: float

    def evaluate(self, view: TimelineView) -> Outcome:
        cuts = len(view.cuts)
        if cuts == 0:
            return MET
        aligned = view.aligned_cuts(self.tolerance)
        fraction = aligned / cuts
        if fraction >= self.min_fraction:
            return MET
        hint = "place music first" if view.music is None else "snap_to_beats"
        message = (
            f"{aligned} of {cuts} cuts ({fraction:.0%}) lie within "
            f"{view.seconds(self.tolerance)} s of a beat; needs {self.min_fraction:.0%}: {hint}"
        )
        return Outcome(False, fraction / self.min_fraction, self.min_fraction - fraction, message)


@dataclass(frozen=True, slots=True, kw_only=True)
class EndOnDownbeat(Constraint):
    kind: ClassVar[str] = "end_on_downbeat"
    tolerance: int

    def evaluate(self, view: TimelineView) -> Outcome:
        grid = view.track.downbeats if view.track is not None else ()
        distance = view.nearest_distance(grid, view.total)
        if distance is not None and distance <= self.tolerance:
            return MET
        if distance is None:
            return Outcome(False, 0.0, 1.0, "no music with downbeats placed: set_music first")
        gap = distance - self.tolerance
        message = (
            f"timeline ends {view.seconds(distance)} s from the nearest downbeat; needs "
            f"≤ {view.seconds(self.tolerance)} s: change the length by ≥ {view.seconds(gap)} s"
        )
        return Outcome(False, _partial(gap, view.fps), gap / view.fps, message)


@dataclass(frozen=True, slots=True, kw_only=True)
class OrientationRule(Constraint):
    kind: ClassVar[str] = "orientation"
    value: Orientation

    def evaluate(self, view: TimelineView) -> Outcome:
        value = self.value
        fitting = view.index.clips_with_orientation(value)
        if view.clip_ids <= fitting:
            return MET
        # judged like the fast path above: a clip not in the pool has no orientation to match
        bad = [i for i, clip_id in enumerate(view.ids) if clip_id not in fitting]
        message = f"shots {_shot_list(bad)} are not {value}: replace them with {value} clips"
        return Outcome(False, 1.0 - len(bad) / len(view.ids), float(len(bad)), message)


@dataclass(frozen=True, slots=True, kw_only=True)
class MaxConsecutiveTag(Constraint):
    kind: ClassVar[str] = "max_consecutive_tag"
    tag: str
    max_run: int
    selector: Selector = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "selector", Selector(tags=frozenset({self.tag})))

    def evaluate(self, view: TimelineView) -> Outcome:
        if view.count_matching(self.selector) <= self.max_run:
            return MET
        tag = self.tag
        longest = run = 0
        end = 0
        for i, clip in enumerate(view.clips):
            run = run + 1 if tag in clip.tags else 0
            if run > longest:
                longest, end = run, i
        if longest <= self.max_run:
            return MET
        over = longest - self.max_run
        message = (
            f"{longest} adjacent shots tagged '{tag}' (shots {end - longest + 1}–{end}); "
            f"max {self.max_run}: break the run with another shot"
        )
        return Outcome(False, _partial(over, max(len(view.clips), 1)), float(over), message)


@dataclass(frozen=True, slots=True, kw_only=True)
class Coverage(Constraint):
    kind: ClassVar[str] = "coverage"
    topics: tuple[str, ...]
    min_fraction: float
    topic_terms: tuple[frozenset[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "topic_terms", tuple(terms(topic) for topic in self.topics))

    def evaluate(self, view: TimelineView) -> Outcome:
        used = view.clip_ids
        covering = map(view.index.clips_with_terms, self.topic_terms)
        missing = [
            topic
            for topic, clips in zip(self.topics, covering, strict=True)
            if used.isdisjoint(clips)
        ]
        fraction = 1.0 - len(missing) / len(self.topics)
        if fraction >= self.min_fraction:
            return MET
        message = (
            f"covers {len(self.topics) - len(missing)} of {len(self.topics)} topics "
            f"({fraction:.0%}); needs {self.min_fraction:.0%}: "
            f"add shots about {', '.join(missing[:4])}"
        )
        return Outcome(False, fraction / self.min_fraction, self.min_fraction - fraction, message)


KINDS: dict[str, type[Constraint]] = {
    cls.kind: cls
    for cls in (
        Duration,
        ShotLength,
        MustInclude,
        MustExclude,
        NoReuse,
        Order,
        Transitions,
        Music,
        BeatAlignment,
        EndOnDownbeat,
        OrientationRule,
        MaxConsecutiveTag,
        Coverage,
    )
}
