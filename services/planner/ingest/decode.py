"""Frames for PySceneDetect from an ffmpeg pipe, already small.

Analysis never needs more than ~320 px, so ffmpeg decodes on one thread and scales each
frame down (area averaging) before it leaves the process: Python never copies a 720p or
4K frame. ffmpeg also applies the display rotation, so frames arrive as a player shows
them. :class:`FrameBatches` (what analysis uses) reads them into arrays of a few dozen
frames, each with its number in the file, for detectors that work on a whole batch at once;
:class:`FfmpegCapture` has the few ``cv2.VideoCapture`` methods PySceneDetect's
``VideoCaptureAdapter`` calls (``isOpened``, ``grab``, ``retrieve``, ``get``, ``release``),
for the same detectors frame by frame.

Decoding is most of an analysis' cost, so the decoder is told to do less
(:data:`DECODER_FLAGS`): no in-loop deblocking (its blocks vanish in the 320 px area
average) and no decoding of frames no other frame refers to (in H.264/HEVC with B-frames,
about a third of the frames; never two in a row with x264's B-pyramid). ffmpeg's
``showinfo`` filter reports each decoded frame's timestamp on stderr. In a batch a skipped
frame is simply absent (its number is missing); where timestamps jump over a frame the
capture hands out the frame before it again — the very same array,
and ``repeated`` set — so frame ``n`` is still the ``n``-th frame of the file. The detectors
pass over those (:class:`RepeatWatch`): frames reach them through PySceneDetect's decoding
thread, which reads ahead, so the mark travels with the frame (its identity) rather than
sitting on the capture. Files without such frames (intra-only, or P-frames only, as many
cameras write) decode every frame as before; a still picture's identical frames are real
frames, never ``repeated``.

:class:`SkimmedBatches` decodes less again: the keyframes first, then only the spans
between keyframes that differ (where a cut or a dissolve can lie), each from its keyframe;
a span between alike keyframes is its first keyframe and a gap, as skipped frames are.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import cv2
import numpy as np

from protocol.media import ffmpeg_binary
from services.planner.ingest.probe import Probe

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "ANALYSIS_WIDTH",
    "DECODER_FLAGS",
    "SKIM_CHANGE",
    "SKIM_MAX_S",
    "FfmpegCapture",
    "FrameBatches",
    "RepeatWatch",
    "SkimmedBatches",
]

ANALYSIS_WIDTH = 320
DECODER_FLAGS = ("-skip_loop_filter", "all", "-flags2", "fast", "-skip_frame", "noref")
"""ffmpeg input options: skip deblocking, allow non-bit-exact shortcuts, skip frames that
are not references. Together they cut decoding by about 40 % on the benchmark footage.
(``-skip_frame bidir`` would skip more, but a P-frame may refer to a B-frame — x264 from
its ``medium`` preset on, hierarchical B-frames — and would then decode wrong.)"""
SKIM_CHANGE = 12.0
"""Largest change between two keyframes (PySceneDetect's content score, and the mean
absolute BGR difference, 0–255) across which :class:`SkimmedBatches` decodes nothing."""
SKIM_MAX_S = 2.5
"""Longest span between keyframes left undecoded (a cut away and back inside it would pass
unseen)."""
_PTS = re.compile(r"pts_time:\s*(-?[\d.]+)")


def _even(value: float) -> int:
    return max(2, round(value / 2) * 2)


def _analysis_size(header: Probe, width: int) -> tuple[int, int]:
    """The analysis frame: at most ``width`` wide, the display's aspect, even sides."""
    shown_w, shown_h = header.display_size
    out_w = min(_even(shown_w), width)
    return out_w, _even(shown_h * out_w / shown_w)


def _frame_step(last_pts: float | None, pts: float | None, fps: float) -> int:
    """Frames from the last decoded frame to this one (1 when none was skipped or either
    timestamp is unknown)."""
    if last_pts is None or pts is None:
        return 1
    return max(1, round((pts - last_pts) * fps))


def _stop(process: subprocess.Popen) -> None:
    """Kill ffmpeg if it still runs, reap it and close its pipes."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()


def _start(
    path: Path, width: int, height: int, *, fast: bool, skip: str = "noref", at: float | None = None
) -> subprocess.Popen:
    """ffmpeg writing ``width``×``height`` BGR frames to its stdout (and, when ``fast``, each
    decoded frame's timestamp to its stderr). ``skip``: which frames the decoder leaves out
    (``noref``, or ``nokey`` for keyframes only); ``at``: start from the last keyframe at or
    before this time (seconds from the file's start; timestamps then count from ``at``)."""
    shown = ",showinfo=checksum=0" if fast else ""  # after the scale: no full-size pass
    flags = (*DECODER_FLAGS[:-1], skip) if fast else ()
    seek = ("-noaccurate_seek", "-ss", f"{at:.6f}") if at is not None else ()
    argv = [
        ffmpeg_binary(), "-hide_banner", "-nostdin", "-nostats",
        "-loglevel", "info" if fast else "error",
        "-threads", "1", *flags, *seek, "-i", str(path),
        "-map", "0:v:0", "-an", "-sn",
        "-vf", f"scale={width}:{height}:flags=area{shown}",
        "-fps_mode", "passthrough", "-pix_fmt", "bgr24", "-f", "rawvideo", "-",
    ]  # fmt: skip
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE if fast else subprocess.DEVNULL
    )
    _widen(process.stdout, width * height * 3)
    return process


def _widen(pipe: IO[bytes] | None, frame_bytes: int) -> None:
    """Let the pipe hold a few frames, so ffmpeg and the reader take turns once per few
    frames rather than several times per frame (Linux; elsewhere the default stays)."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if pipe is None or setsize is None:
        return
    with contextlib.suppress(OSError):  # capped by /proc/sys/fs/pipe-max-size
        fcntl.fcntl(pipe.fileno(), setsize, min(1 << 20, 4 * frame_bytes))


def _pts_of(stderr: IO[bytes] | None) -> float | None:
    """The next timestamp ``showinfo`` printed, or None once ffmpeg is done."""
    assert stderr is not None
    for line in stderr:
        found = _PTS.search(line.decode("utf-8", "replace"))
        if found is not None:
            return float(found.group(1))
    return None


class FfmpegCapture:
    """A read-only, forward-only ``cv2.VideoCapture`` look-alike over ``ffmpeg … -f rawvideo``."""

    def __init__(
        self, path: Path, header: Probe, *, width: int = ANALYSIS_WIDTH, fast: bool = True
    ) -> None:
        self.width, self.height = _analysis_size(header, width)
        self.fps = header.fps
        self.frames = round(header.duration_s * header.fps)
        self._size = self.width * self.height * 3
        self._read = 0
        self._frame: np.ndarray | None = None
        self._fast = fast
        self._last_pts: float | None = None
        self._skipped = 0
        self._next: np.ndarray | None = None
        self.repeated = False
        """Whether the frame just grabbed stands in for one the decoder skipped."""
        self._process = _start(path, self.width, self.height, fast=fast)

    def isOpened(self) -> bool:
        return self._process.stdout is not None

    def grab(self) -> bool:
        if self._skipped or self._next is not None:  # fill a skipped frame, then the next
            self.repeated = self._skipped > 0
            if self._skipped:
                self._skipped -= 1
            else:
                self._frame, self._next = self._next, None
            self._read += 1
            return True
        assert self._process.stdout is not None
        raw = self._process.stdout.read(self._size)
        if len(raw) < self._size:
            self._frame = None
            return False
        frame = np.frombuffer(raw, np.uint8).reshape(self.height, self.width, 3)
        gap = self._gap() if self._fast else 0
        self.repeated = gap > 0 and self._frame is not None
        if self.repeated:
            self._skipped, self._next = gap - 1, frame
        else:
            self._frame = frame
        self._read += 1
        return True

    def _gap(self) -> int:
        """Frames the decoder skipped before the one just read (from showinfo's timestamp)."""
        pts = _pts_of(self._process.stderr)
        if pts is None:
            return 0
        last, self._last_pts = self._last_pts, pts
        return _frame_step(last, pts, self.fps) - 1

    def retrieve(self) -> tuple[bool, np.ndarray | None]:
        return self._frame is not None, self._frame

    def get(self, prop: int) -> float:
        values = {
            cv2.CAP_PROP_FPS: self.fps,
            cv2.CAP_PROP_FRAME_COUNT: float(self.frames),
            cv2.CAP_PROP_FRAME_WIDTH: float(self.width),
            cv2.CAP_PROP_FRAME_HEIGHT: float(self.height),
            cv2.CAP_PROP_POS_MSEC: max(0, self._read - 1) * 1000.0 / self.fps,
            cv2.CAP_PROP_POS_FRAMES: float(self._read),
        }
        return values.get(prop, 0.0)

    def release(self) -> None:
        _stop(self._process)


class FrameBatches:
    """Decoded frames in batches: ``(numbers, frames)``, the frames' places in the file
    (ascending; a gap is a frame the decoder skipped) and their pixels, ``(n, h, w, 3)``
    BGR at analysis size. One ffmpeg, as :class:`FfmpegCapture` starts it; frames go
    straight from the pipe into the batch's array, and detectors see each batch at once
    (numpy over the batch instead of a Python call per frame)."""

    def __init__(
        self, path: Path, header: Probe, *, width: int = ANALYSIS_WIDTH, batch: int = 32
    ) -> None:
        self.width, self.height = _analysis_size(header, width)
        self.fps = header.fps
        self.batch = batch
        self.frames = 0
        """Frames of the file so far: the last decoded frame's number + 1."""
        self._process = _start(path, self.width, self.height, fast=True)

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        stdout, last_pts = self._process.stdout, None
        assert stdout is not None
        shape = (self.batch, self.height, self.width, 3)
        while True:
            frames, numbers = np.empty(shape, np.uint8), np.empty(self.batch, np.int64)
            count = 0
            while count < self.batch and stdout.readinto(frames[count].data) == frames[0].nbytes:
                pts = _pts_of(self._process.stderr)
                step = _frame_step(last_pts, pts, self.fps)
                last_pts = pts if pts is not None else last_pts
                numbers[count] = self.frames - 1 + step if self.frames else 0
                self.frames = int(numbers[count]) + 1
                count += 1
            if count:
                yield numbers[:count], frames[:count]
            if count < self.batch:
                return

    def close(self) -> None:
        _stop(self._process)


class RepeatWatch:
    """Says whether each frame is the very array handed out just before it: how
    :class:`FfmpegCapture` hands out a frame the decoder skipped (a decoded frame is always
    a new array, even when its pixels equal the last one's)."""

    def __init__(self) -> None:
        self._last: object | None = None

    def __call__(self, frame: np.ndarray) -> bool:
        same, self._last = frame is self._last, frame
        return same


class SkimmedBatches:
    """:class:`FrameBatches` that leave out what cannot hold a shot boundary: a first ffmpeg
    decodes only the keyframes; where two keyframes less than :data:`SKIM_MAX_S` apart look
    alike (:func:`_alike`), the frames between them are not decoded — the first keyframe
    stands for its span, the rest of the span is a gap, as a skipped frame is — and every
    other span is decoded frame-exact (``noref``) by a second ffmpeg started at its keyframe
    (``-ss``, no re-decoding from an earlier one). A cut or a dissolve changes the picture
    between the keyframes around it, so it lies in a decoded span, with its neighbours;
    the dissolve windows see a left-out span as the blend of its keyframes. Tags see fewer
    samples: none from inside a left-out span."""

    def __init__(
        self, path: Path, header: Probe, *, width: int = ANALYSIS_WIDTH, batch: int = 32
    ) -> None:
        self.path = Path(path)
        self.width, self.height = _analysis_size(header, width)
        self.fps = header.fps
        self.batch = batch
        self.frames = 0
        """Frames of the file so far: the last decoded frame's number + 1."""
        self.left_out = 0
        """Frames inside left-out spans (not counting the keyframes that stand for them)."""
        self._size = self.width * self.height * 3
        self._running: list[subprocess.Popen] = []

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        shape = (self.batch, self.height, self.width, 3)

        def empty() -> tuple[np.ndarray, np.ndarray]:
            return np.empty(shape, np.uint8), np.empty(self.batch, np.int64)

        (frames, numbers), count = empty(), 0
        for number, frame in self._frames():
            frames[count], numbers[count] = frame, number
            self.frames, count = number + 1, count + 1
            if count == self.batch:
                yield numbers, frames
                (frames, numbers), count = empty(), 0
        if count:
            yield numbers[:count], frames[:count]

    def _frames(self) -> Iterator[tuple[int, np.ndarray]]:
        """``(number, frame)`` in order: keyframes standing for left-out spans and every
        frame of the decoded ones."""
        keys = self._read(_start(self.path, self.width, self.height, fast=True, skip="nokey"))
        try:
            yield from self._spans(keys)
        finally:
            keys.close()

    def _spans(self, keys: Iterator[tuple[float, np.ndarray]]) -> Iterator[tuple[int, np.ndarray]]:
        """Each span between keyframes either left out (its keyframe alone) or joined to the
        run being decoded. A span of one frame is its keyframe: an intra-only file is decoded
        by the keyframe pass alone."""
        first = next(keys, None)
        if first is None:
            return
        origin = first[0]  # the file's first frame, in seconds
        last, run = first, None  # run: the keyframe where the spans being decoded begin
        for key in keys:
            span = self._number(key[0], origin) - self._number(last[0], origin)
            if span <= 1 or _alike(last, key, self.fps):
                if run is not None:
                    yield from self._decoded(run[0], last[0], origin)
                    run = None
                self.left_out += max(0, span - 1)
                yield self._number(last[0], origin), last[1]
            elif run is None:
                run = last
            last = key
        yield from self._decoded((run or last)[0], None, origin)

    def _decoded(
        self, start: float, end: float | None, origin: float
    ) -> Iterator[tuple[int, np.ndarray]]:
        """Every (``noref``) frame from the keyframe at ``start`` up to the one at ``end``
        (seconds; None: to the file's end)."""
        at = start + 0.5 / self.fps  # the keyframe is the last one at or before it
        first = self._number(start, origin)
        stop = None if end is None else self._number(end, origin)
        frames = self._read(_start(self.path, self.width, self.height, fast=True, at=at), shift=at)
        try:
            for pts, frame in frames:
                number = self._number(pts, origin)
                if stop is not None and number >= stop:
                    return
                if number >= first:
                    yield number, frame
        finally:
            frames.close()

    def _number(self, seconds: float, origin: float) -> int:
        return round((seconds - origin) * self.fps)

    def _read(
        self, process: subprocess.Popen, *, shift: float = 0.0
    ) -> Iterator[tuple[float, np.ndarray]]:
        """``(seconds, frame)`` from one ffmpeg until it ends (stopped and reaped then)."""
        self._running.append(process)
        stdout = process.stdout
        assert stdout is not None
        try:
            while len(raw := stdout.read(self._size)) == self._size:
                pts = _pts_of(process.stderr)
                if pts is None:
                    break
                frame = np.frombuffer(raw, np.uint8).reshape(self.height, self.width, 3)
                yield pts + shift, frame
        finally:
            _stop(process)
            self._running.remove(process)

    def close(self) -> None:
        for process in list(self._running):
            _stop(process)
        self._running.clear()


def _alike(a: tuple[float, np.ndarray], b: tuple[float, np.ndarray], fps: float) -> bool:
    """Whether nothing between keyframes ``a`` and ``b`` (seconds, frame) needs decoding:
    they lie within :data:`SKIM_MAX_S` and differ by less than :data:`SKIM_CHANGE` in both
    PySceneDetect's content score (HSV) and plain BGR."""
    if b[0] - a[0] > SKIM_MAX_S + 0.5 / fps:
        return False
    pixels = a[1].shape[0] * a[1].shape[1] * 3
    plain = sum(cv2.sumElems(cv2.absdiff(a[1], b[1]))) / pixels
    if plain >= SKIM_CHANGE:
        return False
    hsv_a, hsv_b = (cv2.cvtColor(f, cv2.COLOR_BGR2HSV) for f in (a[1], b[1]))
    return sum(cv2.sumElems(cv2.absdiff(hsv_a, hsv_b))) / pixels < SKIM_CHANGE
