"""What a media file is: duration, frame rate, display size after rotation, orientation.

Read from the header that ``ffmpeg -i`` prints (no ffprobe needed: the ffmpeg bundled with
imageio-ffmpeg has none). Rotation comes from the display matrix (``displaymatrix: rotation
of -90.00 degrees``; ``Display Matrix: …`` in newer ffmpeg) or the older ``rotate`` tag; a
quarter turn swaps width and height, so a phone video stored as 1920×1080 with a 90° matrix
is *portrait*.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from protocol.media import ffmpeg_binary
from services.planner.ingest.errors import MediaUnreadable, NotMedia

__all__ = ["Probe", "orientation_of", "probe"]

_DURATION = re.compile(r"Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)")
_VIDEO = re.compile(r"Stream #\d+:\d+.*?: Video: (.*)")
_SIZE = re.compile(r"\b(\d{2,5})x(\d{2,5})\b")
_FPS = re.compile(r"([\d.]+(?:k)?) (fps|tbr)\b")
_MATRIX = re.compile(r"display ?matrix: rotation of (-?[\d.]+) degrees", re.I)
"""``displaymatrix:`` up to ffmpeg 6, ``Display Matrix:`` since."""
_ROTATE_TAG = re.compile(r"^\s*rotate\s*:\s*(-?\d+)", re.M)
_SQUARE_TOLERANCE = 0.05


@dataclass(frozen=True, slots=True)
class Probe:
    """A video file's header: stored size, rotation, and the size it is shown at."""

    duration_s: float
    fps: float
    width: int
    height: int
    rotation: int
    codec: str

    @property
    def display_size(self) -> tuple[int, int]:
        """(width, height) as a player shows it: a quarter turn swaps them."""
        if self.rotation % 180 == 90:
            return self.height, self.width
        return self.width, self.height

    @property
    def orientation(self) -> str:
        return orientation_of(*self.display_size)


def orientation_of(width: int, height: int) -> str:
    """``square`` within 5 %, else ``portrait`` (taller) or ``landscape`` (wider)."""
    if abs(width - height) <= _SQUARE_TOLERANCE * max(width, height):
        return "square"
    return "portrait" if height > width else "landscape"


def probe(path: Path, *, timeout_s: float = 30.0) -> Probe:
    """The header of ``path``; :class:`NotMedia` when it has no video stream,
    :class:`MediaUnreadable` when it cannot be opened at all."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise MediaUnreadable(f"cannot read {path.name}: {exc.strerror or exc}") from None
    argv = [ffmpeg_binary(), "-hide_banner", "-nostdin", "-i", str(path)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise MediaUnreadable(f"ffmpeg could not read the header of {path.name}") from None
    return parse_header(done.stderr, name=path.name)


def parse_header(text: str, *, name: str = "file") -> Probe:
    """A :class:`Probe` from the text ``ffmpeg -i`` prints about one file."""
    video = _VIDEO.search(text)
    if video is None:
        raise NotMedia(f"{name} has no video stream ffmpeg can read")
    line = video.group(1)
    size = _SIZE.search(line)
    if size is None:
        raise NotMedia(f"{name}: ffmpeg reports no frame size")
    duration = _DURATION.search(text)
    seconds = 0.0
    if duration is not None:
        hours, minutes, secs = duration.groups()
        seconds = int(hours) * 3600 + int(minutes) * 60 + float(secs)
    if seconds <= 0:
        raise NotMedia(f"{name} has no duration (a still image or a broken file)")
    return Probe(
        duration_s=seconds,
        fps=_fps(line),
        width=int(size.group(1)),
        height=int(size.group(2)),
        rotation=_rotation(text),
        codec=line.split(",", 1)[0].split(" ", 1)[0],
    )


def _fps(line: str) -> float:
    """``30 fps`` (or ``29.97 fps``; else the ``tbr``): the stream's frame rate."""
    rates = {kind: value for value, kind in _FPS.findall(line)}
    raw = rates.get("fps") or rates.get("tbr") or "0"
    return float(raw[:-1]) * 1000 if raw.endswith("k") else float(raw)


def _rotation(text: str) -> int:
    """Degrees the picture is turned for display, normalised to 0, 90, 180 or 270."""
    match = _MATRIX.search(text) or _ROTATE_TAG.search(text)
    if match is None:
        return 0
    return round(float(match.group(1)) / 90) * 90 % 360
