"""The media error tree: stable codes, translated once by the serving app.

Raised by :mod:`protocol.media` (paths under the media root, ffmpeg) wherever it runs: in the
planner's exports and renders, and in the ``refinery`` CLI making example media.
"""

from __future__ import annotations

from typing import Any

from services.common.errors import RefineryError

__all__ = ["ExportError", "FfmpegUnavailable", "MediaNotFound", "MediaOutsideRoot", "RenderFailed"]


class ExportError(RefineryError):
    """Base of every export, media and render failure."""

    status_code = 422
    code = "export_failed"


class MediaOutsideRoot(ExportError):
    """A media URI names something outside the media root (``..``, another scheme, a link)."""

    code = "media_outside_root"


class MediaNotFound(ExportError):
    """A media URI resolves inside the root, but no file is there."""

    code = "media_not_found"


class FfmpegUnavailable(ExportError):
    """No ffmpeg: neither the wheel's binary nor the one ``REFINERY_FFMPEG`` names."""

    status_code = 503
    code = "ffmpeg_unavailable"


class RenderFailed(ExportError):
    """ffmpeg exited non-zero or ran past its time limit; ``stderr`` holds its last lines."""

    status_code = 500
    code = "render_failed"

    def __init__(self, message: str, *, stderr: str = "", **kwargs: Any) -> None:
        context = {"stderr": stderr, **kwargs.pop("context", {})}
        super().__init__(message, context=context, **kwargs)
        self.stderr = stderr
