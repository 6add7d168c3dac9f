"""Exports of a timeline: OpenTimelineIO files and ffmpeg renders, plus the media they read.

Pure edges: no FastAPI, no settings. ffmpeg runs as a subprocess with an argv list.
"""

from services.planner.export.errors import (
    BadMediaUrlBase,
    ExportError,
    FfmpegUnavailable,
    MediaNotFound,
    MediaOutsideRoot,
    NotExecutable,
    RenderFailed,
)
from services.planner.export.media import generate_example_media, resolve_media
from services.planner.export.otio import otio_bytes, otio_json, to_otio, write_otio
from services.planner.export.render import RenderResult, build_render_command, render
from services.planner.export.urls import media_url

__all__ = [
    "BadMediaUrlBase",
    "ExportError",
    "FfmpegUnavailable",
    "MediaNotFound",
    "MediaOutsideRoot",
    "NotExecutable",
    "RenderFailed",
    "RenderResult",
    "build_render_command",
    "generate_example_media",
    "media_url",
    "otio_bytes",
    "otio_json",
    "render",
    "resolve_media",
    "to_otio",
    "write_otio",
]
