"""The ingest package's error tree: per-file failures carry a stable code for the job output."""

from __future__ import annotations

from services.common.errors import RefineryError


class IngestError(RefineryError):
    """Base of every media-analysis failure."""

    status_code = 422
    code = "ingest_failed"


class MediaUnreadable(IngestError):
    """The file exists but cannot be opened or decoded (permissions, truncated, corrupt)."""

    code = "media_unreadable"


class NotMedia(IngestError):
    """The file opens, but holds no video (or audio, for music) that ffmpeg can read."""

    code = "not_media"


class SidecarInvalid(IngestError):
    """A captions sidecar (``captions.json``, ``captions.csv``, ``<file>.json``) is malformed."""

    code = "sidecar_invalid"


class CaptionerFailed(IngestError):
    """The vision-language endpoint failed or answered something other than a caption."""

    status_code = 502
    code = "captioner_failed"


def describe_failure(exc: BaseException) -> dict[str, str]:
    """A failed file as a job output lists it: a stable code and a message."""
    if isinstance(exc, RefineryError):
        return {"code": exc.code, "message": exc.message}
    return {"code": "analysis_failed", "message": f"{type(exc).__name__}: {exc}"}
