"""The export package's error tree: stable codes, translated once by the serving app."""

from __future__ import annotations

from typing import Any

from services.common.errors import RefineryError


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


class NotExecutable(ExportError):
    """The timeline cannot be exported or rendered as it stands (the verifier's reasons)."""

    code = "not_executable"


class FfmpegUnavailable(ExportError):
    """``ffmpeg`` or ``ffprobe`` is not on the PATH."""

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


class BadMediaUrlBase(ExportError):
    """A media URL base that is neither an absolute URL nor an absolute path."""

    code = "bad_media_url_base"
