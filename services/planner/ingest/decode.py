"""Frames for PySceneDetect from an ffmpeg pipe, already small.

Analysis never needs more than ~320 px, so ffmpeg decodes on one thread and scales each
frame down (area averaging) before it leaves the process: Python never copies a 720p or
4K frame. ffmpeg also applies the display rotation, so frames arrive as a player shows
them. :class:`FfmpegCapture` has the few ``cv2.VideoCapture`` methods PySceneDetect's
``VideoCaptureAdapter`` calls (``isOpened``, ``grab``, ``retrieve``, ``get``, ``release``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import cv2
import numpy as np
from scenedetect.backends.opencv import VideoCaptureAdapter

from services.planner.export.media import ffmpeg_binary
from services.planner.ingest.probe import Probe

__all__ = ["ANALYSIS_WIDTH", "FfmpegCapture", "open_stream"]

ANALYSIS_WIDTH = 320


def _even(value: float) -> int:
    return max(2, round(value / 2) * 2)


class FfmpegCapture:
    """A read-only, forward-only ``cv2.VideoCapture`` look-alike over ``ffmpeg … -f rawvideo``."""

    def __init__(self, path: Path, header: Probe, *, width: int = ANALYSIS_WIDTH) -> None:
        shown_w, shown_h = header.display_size
        self.width = min(_even(shown_w), width)
        self.height = _even(shown_h * self.width / shown_w)
        self.fps = header.fps
        self.frames = round(header.duration_s * header.fps)
        self._size = self.width * self.height * 3
        self._read = 0
        self._frame: np.ndarray | None = None
        argv = [
            ffmpeg_binary(), "-hide_banner", "-nostdin", "-loglevel", "error",
            "-threads", "1", "-i", str(path), "-map", "0:v:0", "-an", "-sn",
            "-vf", f"scale={self.width}:{self.height}:flags=area",
            "-fps_mode", "passthrough", "-pix_fmt", "bgr24", "-f", "rawvideo", "-",
        ]  # fmt: skip
        self._process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=self._size * 4
        )

    def isOpened(self) -> bool:
        return self._process.stdout is not None

    def grab(self) -> bool:
        assert self._process.stdout is not None
        raw = self._process.stdout.read(self._size)
        if len(raw) < self._size:
            self._frame = None
            return False
        self._frame = np.frombuffer(raw, np.uint8).reshape(self.height, self.width, 3)
        self._read += 1
        return True

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
        if self._process.stdout is not None:
            self._process.stdout.close()


def open_stream(path: Path, header: Probe) -> tuple[VideoCaptureAdapter, FfmpegCapture]:
    """A PySceneDetect stream over :class:`FfmpegCapture`, and the capture (to release)."""
    capture = FfmpegCapture(path, header)
    return VideoCaptureAdapter(capture, frame_rate=header.fps), capture
