"""What the search proposer knows about one task, compiled once: rules by kind, clip ranks.

A :class:`SearchContext` turns the ledger into the facts the draft and the repair operators
ask about — which clips are allowed, how relevant each is, which selectors a slot must
satisfy, the shot-length window, the duration goal, the beat grid of a placed track — and
holds the pure :class:`~services.verifier.score.Verifier` that scores every candidate.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from services.planner.relevance import relevance_scores
from services.verifier import ledger as L
from services.verifier.pool import MusicTrack
from services.verifier.score import DEFAULT_PACING_S, NEAR_GRID_MAX, PACING_BANDS_S, Verifier
from services.verifier.task import Task
from services.verifier.timeline import MusicPlacement, Shot, Timeline, TransitionType
from services.verifier.view import NearGrid, near_frames

HARD_PENALTY = 100.0
DEFAULT_LENGTH_S = 30.0
_SECONDS = re.compile(r"(\d+(?:\.\d+)?)\s*-?\s*(?:second|sec)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Need:
    """A set of clips some rule wants ``count`` shots from (must_include, a coverage topic)."""

    clips: frozenset[str]
    count: int
    hard: bool
    weight: float


@dataclass(frozen=True, slots=True)
class Grid:
    """The placed track's beats and downbeats in timeline frames (offset subtracted)."""

    beats: tuple[int, ...]
    downbeats: tuple[int, ...]
    room: int  # frames of track left after the offset: the longest timeline it covers

    def nearest(self, points: Sequence[int], value: int) -> int | None:
        i = bisect_left(points, value)
        near = [points[j] for j in (i - 1, i) if 0 <= j < len(points)]
        return min(near, key=lambda p: (abs(p - value), p)) if near else None

    def between(self, points: Sequence[int], low: int, high: int) -> Sequence[int]:
        return points[bisect_left(points, low) : bisect_right(points, high)]


class SearchContext:
    """Facts about ``task`` for drafting and repair; build once per task."""

    def __init__(
        self, task: Task, *, relevance_backend: str = "auto", semantic_weight: float = 0.05
    ) -> None:
        self.task = task
        self.fps = fps = task.fps
        self.verifier = verifier = Verifier(task)
        self.rules: dict[str, list[L.Constraint]] = {}
        for rule in sorted(task.ledger, key=lambda c: (not c.hard, -c.weight)):
            self.rules.setdefault(rule.kind, []).append(rule)
        self.clips = task.clips
        self.penalty = self._penalties()
        semantic = (
            relevance_scores(task.brief.text, task.clips.values(), backend=relevance_backend)
            if semantic_weight
            else {}
        )
        self.relevance = {
            cid: verifier.relevance(cid) + semantic_weight * semantic.get(cid, 0.0)
            for cid in task.clips
        }
        # allowed clips first, then by relevance; ties by id for determinism
        self.ranked = sorted(task.clips, key=lambda c: (self.penalty[c], -self.relevance[c], c))
        self.allowed = [c for c in self.ranked if self.penalty[c] == 0]
        reuse = self.rules.get("no_reuse", [])
        self.max_uses = min((r.max_uses for r in reuse), default=1)
        self._shot_window()
        self._duration_goal()
        self.first = [verifier.matching(r.first) for r in self._orders() if r.first]
        self.last = [verifier.matching(r.last) for r in self._orders() if r.last]
        self.runs = [(r.tag, r.max_run) for r in self.rules.get("max_consecutive_tag", [])]
        self.includes = [
            Need(verifier.matching(r.selector), r.min_count, r.hard, r.weight)
            for r in self.rules.get("must_include", [])
        ]
        self.coverage = [
            (
                [verifier.clips_with_terms(words) for words in rule.topic_terms],
                math.ceil(rule.min_fraction * len(rule.topics) - 1e-9),
            )
            for rule in self.rules.get("coverage", [])
        ]
        self.transition_rule = next(iter(self.rules.get("transitions", [])), None)
        music = self.rules.get("music", [])
        self.music_track = next((r.track_id for r in music if r.track_id in task.tracks), None)
        beat_rules = self.rules.get("beat_alignment", [])
        self.beat_tolerance = min((r.tolerance for r in beat_rules), default=round(0.1 * fps))
        end_rules = self.rules.get("end_on_downbeat", [])
        self.end_tolerance = min((r.tolerance for r in end_rules), default=round(0.1 * fps))
        self._near_downbeats: dict[str, frozenset[int] | NearGrid] = {}

    # ---- compiled facts -------------------------------------------------------------

    def _orders(self) -> list[L.Order]:
        return self.rules.get("order", [])  # type: ignore[return-value]

    def _penalties(self) -> dict[str, float]:
        penalty = dict.fromkeys(self.task.clips, 0.0)
        for rule in self.rules.get("must_exclude", []):
            for cid in self.verifier.matching(rule.selector):
                penalty[cid] += HARD_PENALTY if rule.hard else 1.0 + rule.weight
        for rule in self.rules.get("orientation", []):
            for clip in self.task.clips.values():
                if clip.orientation != rule.value:
                    penalty[clip.id] += HARD_PENALTY if rule.hard else 1.0 + rule.weight
        return penalty

    def _shot_window(self) -> None:
        fps = self.fps
        rules = self.rules.get("shot_length", [])
        self.shot_lo = max([1, *(r.min for r in rules)])
        self.shot_hi = min([10**9, *(r.max for r in rules)])
        if self.shot_hi < self.shot_lo:  # contradictory rules: honour the hard or first one
            self.shot_lo, self.shot_hi = rules[0].min, rules[0].max
        low, high = PACING_BANDS_S.get(self.task.brief.style.lower(), DEFAULT_PACING_S)
        self.pace_lo, self.pace_hi = round(low * fps), round(high * fps)
        lo, hi = max(self.shot_lo, self.pace_lo), min(self.shot_hi, self.pace_hi)
        if lo > hi:  # the band misses the window: stay inside the window, near the band
            lo = hi = self.shot_hi if self.shot_hi < self.pace_lo else self.shot_lo
        self.pref_lo, self.pref_hi = lo, hi
        self.pref = (lo + hi) // 2

    def _duration_goal(self) -> None:
        fps = self.fps
        rules = self.rules.get("duration", [])
        if rules:
            rule = rules[0]
            self.len_lo, self.len_hi = rule.min, rule.max
            self.target = rule.target if rule.target is not None else (rule.min + rule.max) // 2
            return
        found = _SECONDS.search(self.task.brief.text)
        seconds = float(found.group(1)) if found else DEFAULT_LENGTH_S
        self.target = round(seconds * fps)
        self.len_lo, self.len_hi = round(self.target * 0.9), round(self.target * 1.1)

    # ---- questions the draft and the operators ask -----------------------------------

    def media(self, clip_id: str) -> int:
        clip = self.clips.get(clip_id)
        return clip.duration if clip is not None else 0

    def grid(self, music: MusicPlacement | None) -> Grid | None:
        """The placed track's grid relative to the timeline, or None without music."""
        if music is None:
            return None
        track = self.task.tracks.get(music.track_id)
        if track is None:
            return None
        return grid_for(track, music.offset)

    def near_downbeats(self, track: MusicTrack) -> frozenset[int] | NearGrid:
        """Track frames within the ``end_on_downbeat`` tolerance of a downbeat (memoised)."""
        found = self._near_downbeats.get(track.id)
        if found is None:
            found = near_frames(track.downbeats, self.end_tolerance, NEAR_GRID_MAX)
            self._near_downbeats[track.id] = found
        return found

    def variety(self, a: str, b: str) -> float:
        """1 − Jaccard of two clips' tags (0 for the same clip), as the rubric counts it."""
        if a == b:
            return 0.0
        tags_a, tags_b = self.clips[a].tags, self.clips[b].tags
        union = tags_a | tags_b
        return 1.0 - len(tags_a & tags_b) / len(union) if union else 1.0

    def allowed_transitions(self) -> tuple[bool, TransitionType | None, int]:
        """(cut allowed, the non-cut type to use when not, its duration in frames)."""
        rule = self.transition_rule
        if rule is None or rule.allowed is None or TransitionType.CUT in rule.allowed:
            return True, None, 0
        kind = sorted(rule.allowed)[0] if rule.allowed else TransitionType.DISSOLVE
        low = rule.min_duration or 2
        high = rule.max_duration or max(low, round(0.5 * self.fps))
        duration = min(high, max(low, 2 + (low & 1)))
        return False, TransitionType(kind), duration

    def roles(self, timeline: Timeline, position: int) -> list[frozenset[str]]:
        """Clip sets a replacement for shot ``position`` should match to keep rules met."""
        ids = [shot.clip_id for shot in timeline.shots]
        clip_id = ids[position]
        wanted: list[frozenset[str]] = []
        if position == 0:
            wanted += [s for s in self.first if clip_id in s]
        if position == len(ids) - 1:
            wanted += [s for s in self.last if clip_id in s]
        for need in self.includes:
            if clip_id in need.clips and sum(i in need.clips for i in ids) <= need.count:
                wanted.append(need.clips)
        for topics, required in self.coverage:
            covered = [t for t in topics if not t.isdisjoint(ids)]
            if len(covered) > required:
                continue
            for topic in covered:
                if clip_id in topic and sum(i in topic for i in ids) == 1:
                    wanted.append(topic)
        return wanted


def grid_for(track: MusicTrack, offset: int) -> Grid:
    beats = tuple(b - offset for b in track.beats if b - offset > 0)
    downbeats = tuple(b - offset for b in track.downbeats if b - offset > 0)
    return Grid(beats, downbeats, track.duration - offset)


def shot_source(
    ctx: SearchContext,
    clip_id: str,
    length: int,
    *,
    before: int = 0,
    after: int = 0,
    prefer: int | None = None,
) -> tuple[int, int] | None:
    """In/out frames for ``length`` frames of a clip, leaving ``before``/``after`` handles.

    Keeps the in point ``prefer`` when it fits; else starts a little into the clip so later
    trims and transitions have room on both sides. None when the media is too short.
    """
    duration = ctx.media(clip_id)
    latest = duration - after - length
    if length <= 0 or latest < before:
        return None
    if prefer is not None and before <= prefer <= latest:
        return prefer, prefer + length
    start = min(latest, max(before, min((duration - length) // 4, ctx.fps)))
    return start, start + length


def shot_handles(shots: Sequence[Shot], position: int) -> tuple[int, int]:
    """Frames shot ``position`` needs before its in and after its out for its transitions."""
    before = shots[position].transition_in.before_cut if position > 0 else 0
    after = shots[position + 1].transition_in.after_cut if position + 1 < len(shots) else 0
    return before, after
