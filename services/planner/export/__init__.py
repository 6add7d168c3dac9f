"""Exports of a timeline: OpenTimelineIO files and ffmpeg renders.

Pure edges: no FastAPI, no settings. ffmpeg runs as a subprocess with an argv list; the
media the exports read (paths under the media root, ffmpeg itself, example media) is in
:mod:`protocol.media`, where the ``refinery`` CLI reaches it too.
"""

from services.planner.export.errors import BadMediaUrlBase, NotExecutable
from services.planner.export.otio import otio_bytes, otio_json, to_otio, write_otio
from services.planner.export.render import RenderResult, build_render_command, render
from services.planner.export.urls import media_url

__all__ = [
    "BadMediaUrlBase",
    "NotExecutable",
    "RenderResult",
    "build_render_command",
    "media_url",
    "otio_bytes",
    "otio_json",
    "render",
    "to_otio",
    "write_otio",
]
