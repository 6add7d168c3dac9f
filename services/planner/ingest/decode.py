"""Frames for PySceneDetect from an ffmpeg pipe, already small.

Analysis never needs more than ~320 px, so ffmpeg decodes on one thread and scales each
frame down (area averaging) before it leaves the process: Python never copies a 720p or
4K frame. ffmpeg also applies the display rotation, so frames arrive as a player shows
them. :class:`FfmpegCapture` has the few ``cv2.VideoCapture`` methods PySceneDetect's
``VideoCaptureAdapter`` calls (``isOpened``, ``grab``, ``retrieve``, ``get``, ``release``).

Decoding is most of an analysis' cost, so the decoder is told to do less
(:data:`DECODER_FLAGS`): no in-loop deblocking (its blocks vanish in the 320 px area
average) and no decoding of frames no other frame refers to (in H.264/HEVC with B-frames,
about a third of the frames; never two in a row with x264's B-pyramid). ffmpeg's
``showinfo`` filter reports each decoded frame's timestamp on stderr; where timestamps
jump over a frame the capture hands out the frame before it again — the very same array,
and ``repeated`` set — so frame ``n`` is still the ``n``-th frame of the file. The detectors
pass over those (:class:`RepeatWatch`): frames reach them through PySceneDetect's decoding
thread, which reads ahead, so the mark travels with the frame (its identity) rather than
sitting on the capture. Files without such frames (intra-only, or P-frames only, as many
cameras write) decode every frame as before; a still picture's identical frames are real
frames, never ``repeated``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import cv2
import numpy as np
from scenedetect.backends.opencv import VideoCaptureAdapter

from protocol.media import ffmpeg_binary
from services.planner.ingest.probe import Probe

__all__ = ["ANALYSIS_WIDTH", "DECODER_FLAGS", "FfmpegCapture", "RepeatWatch", "open_stream"]

ANALYSIS_WIDTH = 320
DECODER_FLAGS = ("-skip_loop_filter", "all", "-flags2", "fast", "-skip_frame", "noref")
"""ffmpeg input options: skip deblocking, allow non-bit-exact shortcuts, skip frames that
are not references. Together they cut decoding by about 40 % on the benchmark footage."""
_PTS = re.compile(r"pts_time:\s*(-?[\d.]+)")


def _even(value: float) -> int:
    return max(2, round(value / 2) * 2)


class FfmpegCapture:
    """A read-only, forward-only ``cv2.VideoCapture`` look-alike over ``ffmpeg … -f rawvideo``."""

    def __init__(
        self, path: Path, header: Probe, *, width: int = ANALYSIS_WIDTH, fast: bool = True
    ) -> None:
        shown_w, shown_h = header.display_size
        self.width = min(_even(shown_w), width)
        self.height = _even(shown_h * self.width / shown_w)
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
        shown = ",showinfo=checksum=0" if fast else ""  # after the scale: no full-size pass
        argv = [
            ffmpeg_binary(), "-hide_banner", "-nostdin", "-nostats",
            "-loglevel", "info" if fast else "error",
            "-threads", "1", *(DECODER_FLAGS if fast else ()), "-i", str(path),
            "-map", "0:v:0", "-an", "-sn",
            "-vf", f"scale={self.width}:{self.height}:flags=area{shown}",
            "-fps_mode", "passthrough", "-pix_fmt", "bgr24", "-f", "rawvideo", "-",
        ]  # fmt: skip
        self._process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if fast else subprocess.DEVNULL,
            bufsize=self._size * 4,
        )

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
        assert self._process.stderr is not None
        for line in self._process.stderr:
            found = _PTS.search(line.decode("utf-8", "replace"))
            if found is None:
                continue
            pts = float(found.group(1))
            last, self._last_pts = self._last_pts, pts
            if last is None:
                return 0
            return max(0, round((pts - last) * self.fps) - 1)
        return 0

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
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for pipe in (self._process.stdout, self._process.stderr):
            if pipe is not None:
                pipe.close()


def open_stream(
    path: Path, header: Probe, *, fast: bool = True
) -> tuple[VideoCaptureAdapter, FfmpegCapture]:
    """A PySceneDetect stream over :class:`FfmpegCapture`, and the capture (to release)."""
    capture = FfmpegCapture(path, header, fast=fast)
    return VideoCaptureAdapter(capture, frame_rate=header.fps), capture


class RepeatWatch:
    """Says whether each frame is the very array handed out just before it: how
    :class:`FfmpegCapture` hands out a frame the decoder skipped (a decoded frame is always
    a new array, even when its pixels equal the last one's)."""

    def __init__(self) -> None:
        self._last: object | None = None

    def __call__(self, frame: np.ndarray) -> bool:
        same, self._last = frame is self._last, frame
        return same
