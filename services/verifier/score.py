"""VES = E × (0.6·H + 0.2·S + 0.2·Q), and the :class:`Verifier` that computes it.

A :class:`Verifier` compiles its task once (clip relevance, selector matches, word sets) so
each :meth:`Verifier.verify` call only walks the timeline. See ``docs/ves.md``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise
from operator import itemgetter, mul
from typing import NamedTuple

from services.verifier import executability
from services.verifier.executability import ExecError
from services.verifier.feasibility import blocked_messages
from services.verifier.ledger import BeatAlignment, Constraint, Outcome
from services.verifier.pool import MusicTrack, Orientation, Selector
from services.verifier.task import Task
from services.verifier.text import terms
from services.verifier.timeline import Timeline, to_frames
from services.verifier.view import NearGrid, TimelineView

WEIGHT_H, WEIGHT_S, WEIGHT_Q = 0.6, 0.2, 0.2
_SATISFIED, _SCORE = itemgetter(0), itemgetter(1)
DEFAULT_BEAT_TOLERANCE_S = 0.1
PACING_BANDS_S: dict[str, tuple[float, float]] = {
    "energetic": (1.0, 2.5),
    "upbeat": (1.0, 2.5),
    "fast": (1.0, 2.5),
    "dynamic": (1.0, 2.5),
    "calm": (3.0, 6.0),
    "cinematic": (3.0, 6.0),
    "slow": (3.0, 6.0),
    "relaxed": (3.0, 6.0),
    "documentary": (2.5, 5.0),
}
DEFAULT_PACING_S = (2.0, 4.0)
NEAR_GRID_MAX = 32_768
"""The largest near-beat frame set kept (a few MB); denser grids are searched per cut."""
NEAR_MEMO_MAX = 4 * NEAR_GRID_MAX
"""Near-beat frames one compiled task keeps in all (its tracks × tolerances)."""
VARIETY_MEMO_MAX = 65_536
"""Clip pairs whose variety one compiled task remembers."""


class ConstraintResult(NamedTuple):
    id: str
    kind: str
    hard: bool
    weight: float
    satisfied: bool
    score: float
    violation: float
    message: str | None


class Components(NamedTuple):
    E: int
    H: float
    S: float
    Q: float
    relevance: float
    beats: float
    pacing: float
    variety: float


class Report:
    """The verdict on one timeline. Components and per-constraint results materialise on
    first access: most verifications are compared by ``ves`` and ``feasible`` alone."""

    __slots__ = (
        "_blocked",
        "_components",
        "_constraints",
        "_ledger",
        "_outcomes",
        "_parts",
        "duration",
        "errors",
        "executable",
        "feasible",
        "fps",
        "ves",
    )

    def __init__(
        self,
        executable: bool,
        feasible: bool,
        ves: float,
        duration: int,
        fps: int,
        parts: tuple[int, float, float, float, float, float, float, float],
        ledger: tuple[Constraint, ...],
        outcomes: list[Outcome],
        errors: tuple[ExecError, ...],
        blocked: dict[str, str] | None = None,
    ) -> None:
        self.executable, self.feasible, self.ves = executable, feasible, ves
        self._blocked = blocked or {}
        self.duration, self.fps, self.errors = duration, fps, errors
        self._parts, self._ledger, self._outcomes = parts, ledger, outcomes
        self._components: Components | None = None
        self._constraints: tuple[ConstraintResult, ...] | None = None

    @property
    def components(self) -> Components:
        """E, H, S, Q and the four parts of Q."""
        if self._components is None:
            self._components = Components(*self._parts)
        return self._components

    @property
    def constraints(self) -> tuple[ConstraintResult, ...]:
        if self._constraints is None:
            blocked = self._blocked
            self._constraints = tuple(
                ConstraintResult(c.id, c.kind, c.hard, c.weight, *outcome)
                if outcome.satisfied or c.id not in blocked
                else ConstraintResult(c.id, c.kind, c.hard, c.weight, *outcome[:3], blocked[c.id])
                for c, outcome in zip(self._ledger, self._outcomes, strict=True)
            )
        return self._constraints

    @property
    def unmet_hard(self) -> list[ConstraintResult]:
        return [c for c in self.constraints if c.hard and not c.satisfied]


class _ZeroDefault(dict[str, float]):
    """Relevance by clip id; an id outside the pool counts 0 (lookups stay in C)."""

    def __missing__(self, key: str) -> float:
        return 0.0


class Verifier:
    """Judges timelines for one task. Build once per task; ``verify`` is the hot path."""

    def __init__(self, task: Task) -> None:
        self.task = task
        fps = task.fps
        brief_terms = terms(task.brief.text)
        self._terms = {
            clip.id: terms(clip.caption) | terms(" ".join(sorted(clip.tags)))
            for clip in task.clips.values()
        }
        self._relevance = _ZeroDefault(
            {
                cid: len(brief_terms & words) / len(brief_terms) if brief_terms else 0.0
                for cid, words in self._terms.items()
            }
        )
        best = sorted(self._relevance.values(), reverse=True)
        self._best_prefix = [0.0]
        for value in best:
            self._best_prefix.append(self._best_prefix[-1] + value)
        self._matches: dict[Selector, frozenset[str]] = {}
        self._with_terms: dict[frozenset[str], frozenset[str]] = {}
        self._variety: dict[tuple[str, str], float] = {}
        self._near: dict[tuple[str, int], frozenset[int]] = {}
        self._near_size = 0
        self._orientation: dict[Orientation, frozenset[str]] = {}
        beat_rules = [c for c in task.ledger if isinstance(c, BeatAlignment)]
        self._beat_tolerance = (
            beat_rules[0].tolerance if beat_rules else to_frames(DEFAULT_BEAT_TOLERANCE_S, fps)
        )
        low, high = PACING_BANDS_S.get(task.brief.style.lower(), DEFAULT_PACING_S)
        self._pacing = (low * fps, high * fps)
        self._durations = {clip.id: clip.duration for clip in task.clips.values()}
        self._hard_index = [i for i, c in enumerate(task.ledger) if c.hard]
        self._soft_index = [i for i, c in enumerate(task.ledger) if not c.hard]
        self._soft_weights = [task.ledger[i].weight for i in self._soft_index]
        self._soft_weight = sum(self._soft_weights)
        self._blocked = blocked_messages(task)
        """Entries no timeline can meet: their message names the conflict, not a fix."""

    def matching(self, selector: Selector) -> frozenset[str]:
        """Ids of pool clips the selector matches (memoised per selector)."""
        found = self._matches.get(selector)
        if found is None:
            found = frozenset(c.id for c in self.task.clips.values() if selector.matches(c))
            self._matches[selector] = found
        return found

    def clips_with_terms(self, words: frozenset[str]) -> frozenset[str]:
        """Ids of pool clips whose caption or tags contain every word (memoised)."""
        found = self._with_terms.get(words)
        if found is None:
            found = frozenset(cid for cid, own in self._terms.items() if words <= own)
            self._with_terms[words] = found
        return found

    def clips_with_orientation(self, value: Orientation) -> frozenset[str]:
        found = self._orientation.get(value)
        if found is None:
            found = frozenset(c.id for c in self.task.clips.values() if c.orientation == value)
            self._orientation[value] = found
        return found

    def near_beats(self, track: MusicTrack, tolerance: int) -> frozenset[int] | NearGrid:
        """Every frame within ``tolerance`` of one of the track's beats (memoised per track);
        a :class:`NearGrid` searched per frame when that set would be large."""
        key = (track.id, tolerance)
        found = self._near.get(key)
        if found is None:
            size = len(track.beats) * (2 * tolerance + 1)
            if size > NEAR_GRID_MAX or self._near_size + size > NEAR_MEMO_MAX:
                return NearGrid(track.beats, tolerance)
            found = self._near[key] = _near_grid(track.beats, tolerance)
            self._near_size += size
        return found

    def relevance(self, clip_id: str) -> float:
        return self._relevance.get(clip_id, 0.0)

    def view(self, timeline: Timeline) -> TimelineView:
        track = self.task.tracks.get(timeline.music.track_id) if timeline.music else None
        return TimelineView(timeline, self.task.clips, track, self)

    def verify(self, timeline: Timeline) -> Report:
        task = self.task
        view = self.view(timeline)
        if executability.is_executable(task, view, self._durations):
            errors: tuple[ExecError, ...] = ()
        else:
            errors = tuple(executability.check(self.task, timeline))
        outcomes = [c.evaluate(view) for c in self.task.ledger]
        hard = self._hard_index
        h = sum(map(_SATISFIED, map(outcomes.__getitem__, hard))) / len(hard) if hard else 1.0
        if self._soft_weight > 0:
            scores = map(_SCORE, map(outcomes.__getitem__, self._soft_index))
            s = sum(map(mul, self._soft_weights, scores)) / self._soft_weight
        else:
            s = 1.0
        relevance, beats, pacing, variety = self._rubric(view)
        q = (relevance + beats + pacing + variety) / 4
        e = 0 if errors else 1
        ves = e * (WEIGHT_H * h + WEIGHT_S * s + WEIGHT_Q * q)
        return Report(
            e == 1,
            e == 1 and h == 1.0,
            round(ves, 6),
            view.total,
            self.task.fps,
            (e, h, s, q, relevance, beats, pacing, variety),
            self.task.ledger,
            outcomes,
            errors,
            self._blocked,
        )

    def _rubric(self, view: TimelineView) -> tuple[float, float, float, float]:
        shots = view.shots
        if not shots:
            return 0.0, 0.0, 0.0, 0.0
        n = len(shots)
        chosen = sum(map(self._relevance.__getitem__, view.ids)) / n
        best = self._best_prefix[min(n, len(self._best_prefix) - 1)] / n
        relevance = min(1.0, chosen / best) if best > 0 else 1.0
        cuts = len(view.cuts)
        beats = view.aligned_cuts(self._beat_tolerance) / cuts if cuts else 1.0
        mean_length = view.total / n
        low, high = self._pacing
        if mean_length < low:
            pacing = mean_length / low
        elif mean_length > high:
            pacing = max(0.0, 1.0 - (mean_length - high) / high)
        else:
            pacing = 1.0
        variety = 1.0
        if n > 1:
            ids = view.ids
            pairs = list(pairwise(ids))
            values = list(map(self._variety.get, pairs))
            if None in values:
                values = [self._remember_variety(pair) for pair in pairs]
            variety = sum(values) / (n - 1)
        return relevance, beats, pacing, variety

    def _remember_variety(self, pair: tuple[str, str]) -> float:
        """1 − Jaccard similarity of two clips' tags (0 for the same clip twice), memoised
        (the memo starts afresh past :data:`VARIETY_MEMO_MAX` pairs: it stays bounded)."""
        value = self._variety.get(pair)
        if value is None:
            if len(self._variety) >= VARIETY_MEMO_MAX:
                self._variety.clear()
            value = self._variety[pair] = self._pair_variety(*pair)
        return value

    def _pair_variety(self, a: str, b: str) -> float:
        if a == b:
            return 0.0
        clips = self.task.clips
        tags_a = clips[a].tags if a in clips else frozenset()
        tags_b = clips[b].tags if b in clips else frozenset()
        union = tags_a | tags_b
        return 1.0 - len(tags_a & tags_b) / len(union) if union else 1.0


@lru_cache(maxsize=32)
def _near_grid(grid: tuple[int, ...], tolerance: int) -> frozenset[int]:
    """Shared across verifiers: a track's grid recurs in every task that uses the track."""
    return frozenset(point + delta for point in grid for delta in range(-tolerance, tolerance + 1))
