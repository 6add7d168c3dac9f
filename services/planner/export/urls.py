"""Where an exported timeline says its media lives: absolute URLs an editing app can open.

A task's media URIs are relative to the planner's media root (``media/c01.mp4``). Editing
apps (Resolve, Premiere, Final Cut via FCP 7 XML) read an OTIO ``target_url`` as an absolute
location and show relative ones as offline, so exports name every file by an absolute
``file://`` URL under the media root, or, with a *media URL base*, by the same relative path
under that base: the media root as the editors' machines see it (a shared drive
``/Volumes/Projects/reel``, ``Z:/reel``, ``smb://nas/reel``).

``media/c 01.mp4`` with root ``/srv/media`` → ``file:///srv/media/media/c%2001.mp4``;
with base ``/Volumes/Projects/reel`` → ``file:///Volumes/Projects/reel/media/c%2001.mp4``.
A URI that already names a remote location (``https://…``) is kept as it is.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlsplit

from protocol.media import resolve_media
from services.planner.export.errors import BadMediaUrlBase

__all__ = ["media_url", "url_base"]

_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def url_base(base: str, *, param: str = "media_url_base") -> str:
    """``base`` as a URL prefix without a trailing slash: an absolute URL is kept, an absolute
    POSIX or Windows drive path becomes a ``file://`` URL; anything else is
    :class:`BadMediaUrlBase` naming ``param``."""
    base = base.strip()
    if _DRIVE.match(base):
        return "file:///" + quote(base.replace("\\", "/").rstrip("/"), safe="/:")
    if base.startswith("/"):
        return "file://" + quote(base.rstrip("/") or "", safe="/")
    parts = urlsplit(base)
    if parts.scheme and (parts.netloc or parts.path.startswith("/")):
        return base.rstrip("/")
    raise BadMediaUrlBase(
        f"media URL base {base!r} is neither an absolute URL (file:///Volumes/reel, "
        "smb://nas/reel) nor an absolute path (/Volumes/reel, Z:/reel)",
        param=param,
    )


def media_url(
    uri: str, media_root: Path | str, *, base: str | None = None, param: str | None = None
) -> str:
    """The absolute URL of the file ``uri`` names under ``media_root`` (see the module doc);
    a URI outside the root is :class:`~services.planner.export.errors.MediaOutsideRoot`."""
    scheme = urlsplit(uri).scheme
    if scheme and scheme != "file" and not _DRIVE.match(uri):
        return uri
    path = resolve_media(uri, Path(media_root), param=param)
    if base is None:
        return path.as_uri()
    relative = path.relative_to(Path(media_root).resolve())
    return f"{url_base(base)}/{quote(relative.as_posix())}"
