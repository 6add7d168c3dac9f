"""The export package's own errors; the media errors they share a base with are in
:mod:`protocol.media_errors`."""

from __future__ import annotations

from protocol.media_errors import ExportError


class NotExecutable(ExportError):
    """The timeline cannot be exported or rendered as it stands (the verifier's reasons)."""

    code = "not_executable"


class BadMediaUrlBase(ExportError):
    """A media URL base that is neither an absolute URL nor an absolute path."""

    code = "bad_media_url_base"
