"""Pixel measurements per shot: shake, light, sharpness → tags ``shaky``, ``dark``, ``slowmo``
and a ``quality`` in [0, 1].

:class:`PixelSampler` rides the shot detector's decoding pass (PySceneDetect hands it every
frame, at most 320 px wide) and looks at a *pair* of consecutive frames
:data:`SAMPLES_PER_S` times a second: the first gives mean luma, the fraction of dark pixels
and the variance of its Laplacian (sharpness); the pair gives the camera's shift between
them: the median of phase correlations over a 3×3 grid of tiles (pixels per frame, scaled to
a 320 px wide frame; the median ignores things moving inside the picture). :func:`measure` then
summarises the samples inside one shot:

* ``shake``: the median distance of each sampled velocity from the shot's median velocity.
  A steady pan moves every frame alike (residual ≈ 0); handheld jitter moves each frame
  differently. ``shaky`` when ``shake ≥`` :data:`SHAKY_PX`.
* ``luma`` (0–255), ``highlight`` (the 90th percentile of luma) and ``dark_fraction``
  (pixels under luma 40): ``dark`` when the mean luma is under :data:`DARK_LUMA` *and* even
  the highlights are dim (under :data:`DARK_HIGHLIGHT`). Low light compresses the whole
  picture; a well-lit scene of dark things (a night sky with a lit sign, dark cloth in sun)
  keeps bright parts.
* ``slowmo``: the file runs at :data:`SLOWMO_FPS` or more (shot for slowing down).
* ``quality = 0.4·sharpness + 0.3·exposure + 0.3·stability``, each in [0, 1]: sharpness
  ``log(1 + var) / log(1 + SHARP_VAR)`` capped at 1; exposure 1 at mid-grey falling to 0 at
  black or white, less the clipped fraction; stability ``1 / (1 + shake / SHAKY_PX)``.

How the thresholds were calibrated is in docs/ingest.md.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import cv2
import numpy as np
from scenedetect import FrameTimecode
from scenedetect.detector import SceneDetector

from services.planner.ingest.decode import RepeatWatch

__all__ = [
    "DARK_HIGHLIGHT",
    "DARK_LUMA",
    "SAMPLES_PER_S",
    "SHAKY_PX",
    "SLOWMO_FPS",
    "PixelSampler",
    "Sample",
    "ShotPixels",
    "measure",
]

SAMPLES_PER_S = 6.0
SHAKY_PX = 1.0
"""Median velocity residual (px per frame at 320 px wide) from which a shot is shaky."""
DARK_LUMA = 80.0
DARK_HIGHLIGHT = 143.0
"""90th-percentile luma under which a dim shot is low-light rather than dark content."""
_DARK_PIXEL = 40
SLOWMO_FPS = 50.0
SHARP_VAR = 300.0
"""Laplacian variance (at ≤ 320 px wide) that counts as fully sharp."""
_REFERENCE_WIDTH = 320.0
_TILES = 3


@dataclass(frozen=True, slots=True)
class Sample:
    frame: int
    luma: float
    dark_fraction: float
    clipped_fraction: float
    sharpness: float
    dx: float
    dy: float
    highlight: float = 255.0


@dataclass(frozen=True, slots=True)
class ShotPixels:
    """What the samples inside one shot say (``samples`` of them)."""

    samples: int
    shake: float
    luma: float
    dark_fraction: float
    highlight: float
    sharpness: float
    quality: float
    tags: tuple[str, ...]

    def as_dict(self) -> dict:
        return asdict(self)


class PixelSampler(SceneDetector):
    """Collects a :class:`Sample` from a pair of consecutive frames several times a second.

    Frames the decoder skipped (handed out again: :class:`RepeatWatch`) are no pair's half:
    a sample due on one waits for the next two consecutive decoded frames."""

    def __init__(self, fps: float, *, rate: float = SAMPLES_PER_S) -> None:
        super().__init__()
        self.step = max(2, round(fps / rate))
        self._repeated = RepeatWatch()
        self.samples: list[Sample] = []
        self._first: tuple[int, np.ndarray] | None = None
        self._due = 0

    def process_frame(self, timecode: FrameTimecode, frame_img: np.ndarray) -> list:
        if not self._repeated(frame_img):
            self._take(timecode.frame_num, frame_img)
        return []

    def process_batch(self, numbers: np.ndarray, frames: np.ndarray) -> None:
        """The decoded frames ``numbers`` of a file, in order (skipped ones are absent):
        only the frames a sample needs are looked at."""
        for frame, image in zip(numbers.tolist(), frames, strict=True):
            self._take(frame, image)

    def _take(self, frame: int, frame_img: np.ndarray) -> None:
        grey: np.ndarray | None = None
        if self._first is not None:
            if frame == self._first[0] + 1:
                grey = cv2.cvtColor(frame_img, cv2.COLOR_BGR2GRAY)
                self.samples.append(_sample(*self._first, grey))
                self._due = (self._first[0] // self.step + 1) * self.step
            self._first = None
        if frame >= self._due and (not self.samples or self.samples[-1].frame != frame - 1):
            if grey is None:
                grey = cv2.cvtColor(frame_img, cv2.COLOR_BGR2GRAY)
            self._first = (frame, grey)


def _sample(frame: int, grey: np.ndarray, following: np.ndarray) -> Sample:
    scale = _REFERENCE_WIDTH / grey.shape[1]
    dx, dy = _global_shift(grey.astype(np.float32), following.astype(np.float32))
    pixels = grey.size
    return Sample(
        frame=frame,
        luma=float(grey.mean()),
        dark_fraction=float(np.count_nonzero(grey < _DARK_PIXEL)) / pixels,
        clipped_fraction=float(np.count_nonzero((grey < 8) | (grey > 247))) / pixels,
        sharpness=float(cv2.Laplacian(grey, cv2.CV_32F).var()),
        dx=dx * scale,
        dy=dy * scale,
        highlight=float(np.percentile(grey, 90)),
    )


def _global_shift(a: np.ndarray, b: np.ndarray, tiles: int = _TILES) -> tuple[float, float]:
    """The camera's shift from ``a`` to ``b``: the median of the phase-correlation shifts of a
    ``tiles × tiles`` grid, so things moving inside the picture do not pass for the camera."""
    height, width = a.shape
    rows, cols = height // tiles, width // tiles
    window = cv2.createHanningWindow((cols, rows), cv2.CV_32F)
    shifts = []
    for i in range(tiles):
        for j in range(tiles):
            cell = (slice(i * rows, (i + 1) * rows), slice(j * cols, (j + 1) * cols))
            (dx, dy), _ = cv2.phaseCorrelate(a[cell], b[cell], window)
            shifts.append((dx, dy))
    dx, dy = np.median(np.array(shifts), axis=0)
    return float(dx), float(dy)


def measure(samples: list[Sample], *, fps: float) -> ShotPixels:
    """Summarise one shot's samples (see the module for each figure)."""
    if not samples:
        slowmo = ("slowmo",) if fps >= SLOWMO_FPS else ()
        return ShotPixels(0, 0.0, 128.0, 0.0, 255.0, SHARP_VAR, 0.5, slowmo)
    velocities = np.array([(s.dx, s.dy) for s in samples])
    residual = velocities - np.median(velocities, axis=0)
    distance = np.hypot(residual[:, 0], residual[:, 1])
    shake = float(np.median(distance)) if len(samples) > 2 else 0.0
    luma = float(np.mean([s.luma for s in samples]))
    dark = float(np.mean([s.dark_fraction for s in samples]))
    highlight = float(np.mean([s.highlight for s in samples]))
    clipped = float(np.mean([s.clipped_fraction for s in samples]))
    sharpness = float(np.median([s.sharpness for s in samples]))
    tags = []
    if shake >= SHAKY_PX:
        tags.append("shaky")
    if luma < DARK_LUMA and highlight < DARK_HIGHLIGHT:
        tags.append("dark")
    if fps >= SLOWMO_FPS:
        tags.append("slowmo")
    sharp = min(1.0, math.log1p(sharpness) / math.log1p(SHARP_VAR))
    exposure = max(0.0, 1.0 - abs(luma - 128.0) / 128.0 - clipped)
    stability = 1.0 / (1.0 + shake / SHAKY_PX)
    quality = 0.4 * sharp + 0.3 * exposure + 0.3 * stability
    return ShotPixels(
        samples=len(samples),
        shake=round(shake, 3),
        luma=round(luma, 2),
        dark_fraction=round(dark, 3),
        highlight=round(highlight, 1),
        sharpness=round(sharpness, 1),
        quality=round(min(1.0, max(0.0, quality)), 3),
        tags=tuple(tags),
    )
