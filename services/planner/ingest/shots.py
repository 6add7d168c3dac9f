"""Shot boundaries: PySceneDetect detectors for hard cuts and dissolves, in one pass.

A hard cut is one frame whose colour content jumps (PySceneDetect's ``content_val``, HSV
mean difference, over :data:`CUT_THRESHOLD` and :data:`CUT_JUMP` times its calmer side:
:class:`CutDetector`). A dissolve changes the picture a little on
every frame for a second or so, below any cut threshold, so :class:`DissolveDetector` (a
PySceneDetect :class:`~scenedetect.detector.SceneDetector` run in the same decoding pass)
looks at the change *across* a window of ``2h`` frames centred on frame ``c``: with
``A, M, B`` the frames ``c − h, c, c + h`` (64×36 thumbnails), ``D = mean|A − B|`` and
``R = mean|M − (A + B) / 2|``. Across a dissolve ``D`` rises to a plateau centred on the
dissolve's middle; the plateau's middle is a dissolve when ``D`` is large (over
:data:`_MIN_CHANGE`), *isolated* (at least 1.5× the ``D`` just outside the plateau: motion
and zooms change the picture all along, a transition only once) and *linear* (``R ≤ 0.3·D``:
the middle frame is the blend of its ends; a cut gives ``R = D / 2``, motion about ``D``).
Windows of 0.2, 0.4 and 0.8 s find dissolves from about 0.2 to 2 s long. A blend with black
is a fade: a fade-out followed by a fade-in is one cut between them; a lone fade (a file
opening from black) is no cut.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from scenedetect import FrameTimecode
from scenedetect.detector import SceneDetector
from scenedetect.detectors import ContentDetector

from services.planner.ingest.decode import RepeatWatch

__all__ = [
    "CUT_THRESHOLD",
    "Cut",
    "CutDetector",
    "DissolveDetector",
    "cut_detector",
    "merge_cuts",
    "shot_spans",
]

CUT_THRESHOLD = 27.0
"""ContentDetector's threshold (its default): hard cuts scored 56–92 on the generated
footage; busy shots score 25–70 on every frame, hence :data:`CUT_JUMP`."""
CUT_JUMP = 3.0
"""A cut scores at least this many times its calmer side (the two frames before or after)."""
MIN_SHOT_S = 0.4
"""No two cuts closer than this (a flash or a strobe is not a shot)."""
_THUMB = (64, 36)
_RATIO = 0.3
"""Largest ``R / D`` at a dissolve's middle (a cut gives 0.5, motion about 1)."""
_MIN_CHANGE = 20.0
"""Smallest ``D`` (mean absolute BGR difference, 0–255) across a dissolve."""
_ISOLATION = 1.5
"""A dissolve's ``D`` is at least this many times the ``D`` around it (motion, zooms)."""
_PLATEAU = 0.9
_DISSOLVE_REACH_S = 0.6
"""A hard cut this close to a dissolve's middle lies inside the dissolve (up to 1.2 s)."""
_BLACK = 16.0
_WINDOWS_S = (0.2, 0.4, 0.8)
_SLACK = 8


@dataclass(frozen=True, slots=True)
class Cut:
    """A shot boundary: the first frame of the new shot, and how it came (cut or dissolve)."""

    frame: int
    kind: str


def cut_detector(fps: float) -> CutDetector:
    """Hard cuts with a minimum shot of 0.4 s (see :class:`CutDetector`)."""
    return CutDetector(min_scene_len=max(2, round(MIN_SHOT_S * fps)))


class CutDetector(ContentDetector):
    """PySceneDetect's ContentDetector score, with a cut decided against its neighbours.

    Frame ``n`` is a cut when its ``content_val`` is at least :data:`CUT_THRESHOLD` *and* at
    least :data:`CUT_JUMP` times the mean score of the two frames before it or of the two
    after it: a cut is a jump out of calm on one side at least. Busy footage (fast motion,
    shake, flicker) scores high on every frame and so never jumps; a cut into or out of
    such a shot still does, which a ratio against both sides (AdaptiveDetector) misses.
    Decisions wait two frames for the ``after`` side. A repeated frame (one the decoder
    skipped) is passed over: the next frame is scored against the last one decoded.
    """

    def __init__(self, *, min_scene_len: int) -> None:
        super().__init__(threshold=CUT_THRESHOLD, min_scene_len=min_scene_len)
        self.min_len = min_scene_len
        self._repeated = RepeatWatch()
        self._history: deque[tuple[int, float, Any]] = deque(maxlen=5)
        self._last_cut: int | None = None
        self._last_hsv: np.ndarray | None = None
        self.cuts: list[int] = []
        """Cut frames found by :meth:`process_batch` (and its ``post_process``)."""

    @property
    def event_buffer_length(self) -> int:
        return 2

    def process_frame(self, timecode: FrameTimecode, frame_img: np.ndarray) -> list:
        if self._repeated(frame_img):
            return []
        score = self._calculate_frame_score(timecode, frame_img)
        self._history.append((timecode.frame_num, score, timecode))
        return self._decide(len(self._history) - 3)

    def process_batch(self, numbers: np.ndarray, frames: np.ndarray) -> None:
        """The decoded frames ``numbers`` of a file, in order (see
        :class:`~services.planner.ingest.decode.FrameBatches`): each scored against the
        decoded frame before it — ``content_val``, computed for the whole batch at once —
        then decided as :meth:`process_frame` decides. Cuts collect in :attr:`cuts`."""
        for number, score in zip(numbers.tolist(), self._batch_scores(frames), strict=True):
            self._history.append((number, score, number))
            self.cuts += self._decide(len(self._history) - 3)

    def _batch_scores(self, frames: np.ndarray) -> list[float]:
        """ContentDetector's score of each frame against the one before it: the mean over
        pixels of ``|ΔH| + |ΔS| + |ΔV|``, divided by 3 (its default weights), 0 for a file's
        first frame."""
        count, height, width = frames.shape[:3]
        hsv = cv2.cvtColor(frames.reshape(count * height, width, 3), cv2.COLOR_BGR2HSV)
        hsv = hsv.reshape(count, height, width * 3)
        previous = [self._last_hsv, *hsv[:-1]]
        scores = [
            0.0 if before is None else cv2.sumElems(cv2.absdiff(now, before))[0]
            for now, before in zip(hsv, previous, strict=True)
        ]
        self._last_hsv = hsv[-1].copy()
        return [score / (3.0 * height * width) for score in scores]

    def post_process(self, timecode: FrameTimecode | int) -> list:
        found = []
        for index in (len(self._history) - 2, len(self._history) - 1):
            found += self._decide(index)
        if not isinstance(timecode, FrameTimecode):
            self.cuts += found
        return found

    def _decide(self, index: int) -> list:
        if index < 0:
            return []
        scores = [score for _, score, _ in self._history]
        frame, score, handle = self._history[index]
        before = scores[max(0, index - 2) : index] or [0.0]
        after = scores[index + 1 : index + 3] or [score]
        calm = min(sum(before) / len(before), sum(after) / len(after))
        if score < CUT_THRESHOLD or score < CUT_JUMP * calm:
            return []
        if self._last_cut is not None and frame - self._last_cut < self.min_len:
            return []
        self._last_cut = frame
        return [handle]


class DissolveDetector(SceneDetector):
    """Finds dissolves and fades as isolated, linear peaks of the change across a window."""

    def __init__(self, fps: float) -> None:
        super().__init__()
        self._repeated = RepeatWatch()
        self.halves = sorted({max(2, round(fps * s)) for s in _WINDOWS_S})
        self.fps = fps
        # the widest window, and room for skipped frames measured once their next one arrives
        self._buffer: deque[tuple[int, Any]] = deque(maxlen=2 * self.halves[-1] + 1 + _SLACK)
        self._curves: dict[int, list[tuple[int, float, float, float]]] = {
            h: [] for h in self.halves
        }  # per half-width: (centre frame, D, R / D, darker end's mean)
        self.cuts: list[Cut] = []
        self._tail: np.ndarray | None = None  # the last 2·h thumbnails, flat, for batches
        self._tail_end = 0  # frame number after the tail's last

    def process_batch(self, numbers: np.ndarray, frames: np.ndarray) -> None:
        """The decoded frames ``numbers`` of a file, in order: thumbnails, skipped frames
        filled in as blends of their decoded neighbours, then ``D`` and ``R`` at every
        window for the whole batch at once (what :meth:`process_frame` measures frame by
        frame)."""
        filled = self._thumbnails(numbers, frames)
        first = self._tail_end
        run = filled if self._tail is None else np.concatenate([self._tail, filled])
        start = first + len(filled) - len(run)  # frame number of run[0]
        means = cv2.reduce(run, 1, cv2.REDUCE_AVG)[:, 0]
        size = run.shape[1]
        for h in self.halves:
            low = max(first, 2 * h)  # the newest frame of the first full window
            if low >= first + len(filled):
                continue
            ends = slice(low - start, len(run))
            a, b = run[ends.start - 2 * h : len(run) - 2 * h], run[ends]
            m = run[ends.start - h : len(run) - h]
            change = cv2.reduce(cv2.absdiff(a, b), 1, cv2.REDUCE_SUM)[:, 0] / size
            blend = cv2.addWeighted(a, 0.5, b, 0.5, 0.0)
            off = cv2.reduce(cv2.absdiff(m, blend), 1, cv2.REDUCE_SUM)[:, 0] / size
            darker = np.minimum(means[ends.start - 2 * h : len(run) - 2 * h], means[ends])
            centres = range(low - h, first + len(filled) - h)
            self._curves[h] += zip(
                centres, change.tolist(), (off / np.maximum(change, 1e-6)).tolist(),
                darker.tolist(), strict=True,
            )  # fmt: skip
        self._tail = run[-2 * self.halves[-1] :]
        self._tail_end = first + len(filled)

    def _thumbnails(self, numbers: np.ndarray, frames: np.ndarray) -> np.ndarray:
        """Flat float thumbnails of every frame from the tail's end to the batch's last:
        decoded ones, and skipped ones as the linear blend of the decoded frames around."""
        count = int(numbers[-1]) + 1 - self._tail_end
        out = np.empty((count, _THUMB[0] * _THUMB[1] * 3), np.float32)
        last = None if self._tail is None else self._tail[-1]
        at = self._tail_end - 1
        for number, thumb in zip(numbers.tolist(), _thumbs(frames), strict=True):
            for gap in range(at + 1, number):  # frames the decoder skipped
                share = (gap - at) / (number - at)
                out[gap - self._tail_end] = last * (1 - share) + thumb * share  # type: ignore[operator]
            out[number - self._tail_end], last, at = thumb, thumb, number
        return out

    def process_frame(self, timecode: FrameTimecode, frame_img: np.ndarray) -> list:
        if self._repeated(frame_img) and self._buffer:
            self._buffer.append((timecode.frame_num, None))  # skipped: filled in below
            return []
        thumb = cv2.resize(frame_img, _THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)
        gaps = [i for i, (_, t) in enumerate(self._buffer) if t is None]
        for i in gaps:  # a skipped frame is the blend of the decoded ones around it
            before, after = gaps[0] - 1, len(self._buffer)
            share = (i - before) / (after - before)
            blend = self._buffer[before][1] * (1 - share) + thumb * share
            self._buffer[i] = (self._buffer[i][0], blend)
        self._buffer.append((timecode.frame_num, thumb))
        for newest in range(len(self._buffer) - 1 - len(gaps), len(self._buffer)):
            self._measure(newest)
        return []

    def _measure(self, newest: int) -> None:
        frames = self._buffer
        for h in self.halves:
            if newest < 2 * h:
                break
            a, (centre, m), b = frames[newest - 2 * h][1], frames[newest - h], frames[newest][1]
            change = float(np.mean(np.abs(a - b)))
            residual = float(np.mean(np.abs(m - (a + b) / 2))) / max(change, 1e-6)
            self._curves[h].append(
                (centre, change, residual, min(float(a.mean()), float(b.mean())))
            )

    def post_process(self, timecode: FrameTimecode) -> list:
        found: list[tuple[int, bool, float]] = []  # (frame, black, strength)
        for h, curve in self._curves.items():
            found += _peaks(curve, h)
        found.sort()
        merged: list[tuple[int, bool, float]] = []
        for item in found:  # one transition seen at several scales: keep the strongest
            if merged and item[0] - merged[-1][0] <= self.halves[0]:
                if item[2] > merged[-1][2]:
                    merged[-1] = item
            else:
                merged.append(item)
        self.cuts = _cuts_from_peaks(merged, gap=round(2 * self.fps))
        return []


def _thumbs(frames: np.ndarray) -> np.ndarray:
    """Each frame area-averaged to a :data:`_THUMB` thumbnail, flat float32. Where the
    thumbnail divides the frame evenly (320×180 → 64×36) the batch is one stacked image:
    every output pixel averages a block inside one frame, as frame by frame."""
    count, height, width = frames.shape[:3]
    wide, high = _THUMB
    if height % high == 0 and width % wide == 0:
        stacked = cv2.resize(
            frames.reshape(count * height, width, 3), (wide, high * count),
            interpolation=cv2.INTER_AREA,
        )  # fmt: skip
        return stacked.reshape(count, -1).astype(np.float32)
    return np.stack(
        [cv2.resize(f, _THUMB, interpolation=cv2.INTER_AREA).reshape(-1) for f in frames]
    ).astype(np.float32)


def _peaks(curve: list[tuple[int, float, float, float]], h: int) -> list[tuple[int, bool, float]]:
    """Isolated linear peaks of ``D`` at half-width ``h``: (plateau middle, black, D / baseline)."""
    if not curve:
        return []
    frames = np.array([c[0] for c in curve])
    change = np.array([c[1] for c in curve])
    peaks: list[tuple[int, bool, float]] = []
    i, n = 0, len(curve)
    while i < n:
        lo, hi = max(0, i - h), min(n, i + h + 1)
        if change[i] < _MIN_CHANGE or change[i] < change[lo:hi].max():
            i += 1
            continue
        first, last = i, i
        while first > 0 and change[first - 1] >= _PLATEAU * change[i]:
            first -= 1
        while last + 1 < n and change[last + 1] >= _PLATEAU * change[i]:
            last += 1
        if change[first : last + 1].max() > change[i]:  # the shoulder of a larger change
            i += 1
            continue
        middle = (first + last + 1) // 2
        around = np.concatenate(
            [
                change[max(0, first - 3 * h) : max(0, first - h)],
                change[last + h + 1 : last + 3 * h + 1],
            ]
        )
        baseline = float(np.median(around)) if around.size else 0.0
        strength = change[i] / max(baseline, 1.0)
        if strength >= _ISOLATION and curve[middle][2] <= _RATIO:
            peaks.append((int(frames[middle]), curve[middle][3] < _BLACK, strength))
        i = last + 1
    return peaks


def _cuts_from_peaks(peaks: list[tuple[int, bool, float]], *, gap: int) -> list[Cut]:
    """A dissolve's cut is its peak; a fade-out then fade-in within ``gap`` frames is one cut
    halfway between them; a lone fade is none."""
    cuts: list[Cut] = []
    pending_fade: int | None = None
    for frame, black, _ in peaks:
        if not black:
            cuts.append(Cut(frame, "dissolve"))
            pending_fade = None
        elif pending_fade is not None and frame - pending_fade <= gap:
            cuts.append(Cut((pending_fade + frame + 1) // 2, "fade"))
            pending_fade = None
        else:
            pending_fade = frame
    return cuts


def merge_cuts(hard: list[int], gradual: list[Cut], *, fps: float, frames: int) -> list[Cut]:
    """Hard cuts and dissolves in order. A hard cut within the minimum shot of a dissolve is
    that dissolve (its hue can flip mid-blend and trip the cut threshold): the dissolve's
    frame wins. No two boundaries, nor a boundary and a file's end, closer than a shot."""
    near = max(2, round(MIN_SHOT_S * fps))
    reach = max(near, round(_DISSOLVE_REACH_S * fps))
    cuts = list(gradual)
    for frame in hard:
        if all(abs(frame - other.frame) > reach for other in gradual):
            cuts.append(Cut(frame, "cut"))
    kept: list[Cut] = []
    for cut in sorted(cuts, key=lambda c: c.frame):
        inside = near <= cut.frame <= frames - near
        if inside and (not kept or cut.frame - kept[-1].frame >= near):
            kept.append(cut)
    return kept


def shot_spans(cuts: list[Cut], frames: int) -> list[tuple[int, int, str]]:
    """Half-open frame ranges between the cuts: ``(start, end, how the shot begins)``."""
    starts = [(0, "start"), *((c.frame, c.kind) for c in cuts)]
    ends = [c.frame for c in cuts] + [frames]
    return [(start, end, kind) for (start, kind), end in zip(starts, ends, strict=True)]
