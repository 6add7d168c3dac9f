"""Which files an analysis covers: paths and folders under the media root, expanded once.

Every path goes through :func:`~protocol.media.resolve_media`, so nothing
outside the media root is ever opened (``..``, absolute paths elsewhere, symlinks out). A
folder stands for the video files in it and below (by extension, hidden files skipped; its
sidecars and music are not footage); a file named explicitly is analysed whatever its
extension, and a file that turns out not to be media is reported in the job's output.
"""

from __future__ import annotations

from pathlib import Path

from protocol.media import resolve_media
from protocol.media_errors import MediaNotFound

__all__ = ["AUDIO_EXTENSIONS", "VIDEO_EXTENSIONS", "expand"]

VIDEO_EXTENSIONS = frozenset(
    ".mp4 .mov .m4v .mkv .avi .webm .mts .m2ts .3gp .mpg .mpeg .wmv .flv .mxf .ts".split()
)
AUDIO_EXTENSIONS = frozenset(".wav .mp3 .m4a .aac .flac .ogg .opus .aif .aiff".split())


def expand(
    paths: list[str], media_root: Path, *, field: str, extensions: frozenset[str]
) -> list[str]:
    """The files ``paths`` name, as POSIX paths relative to ``media_root``, in order, each once.

    :class:`~services.planner.export.errors.MediaOutsideRoot` (``param`` ``<field>[i]``) for a
    path leaving the root, :class:`MediaNotFound` for one that does not exist or a folder with
    no file of ``extensions``.
    """
    root = Path(media_root).resolve()
    found: dict[str, None] = {}
    for index, raw in enumerate(paths):
        param = f"{field}[{index}]"
        path = resolve_media(raw, root, param=param)
        if path.is_dir():
            inside = _walk(path, root, extensions)
            if not inside:
                kinds = " ".join(sorted(extensions))
                raise MediaNotFound(f"folder {raw!r} holds no media file ({kinds})", param=param)
            found.update(dict.fromkeys(inside))
        elif path.is_file():
            found[path.relative_to(root).as_posix()] = None
        else:
            raise MediaNotFound(f"{raw!r} does not exist under the media root {root}", param=param)
    return list(found)


def _walk(folder: Path, root: Path, extensions: frozenset[str]) -> list[str]:
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        wanted = path.suffix.lower() in extensions and path.is_file()
        if wanted and path.resolve().is_relative_to(root):  # symlinks out are not followed
            files.append(relative.as_posix())
    return files
