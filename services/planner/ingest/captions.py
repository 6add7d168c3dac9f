"""Captions and semantic tags for shots: a sidecar, a vision-language model, or the file name.

Under ``captions="auto"`` each shot takes the first source that has something for it:

1. a **sidecar** an asset manager exported (formats in docs/ingest.md): ``<file>.json``
   (or ``<stem>.json``) beside the media, else ``captions.json`` / ``captions.csv`` in its
   folder, keyed by file name and optionally by time range (``start_s``/``end_s``);
2. a **vision-language model** behind an OpenAI-compatible endpoint (:class:`VisionCaptioner`:
   keyframes as base64 JPEG ``image_url`` parts, a json_schema answer ``{caption, tags}``);
3. the **file name**'s words (``surf_sunset-02.mp4`` → "surf sunset", ``bigbuckbunny.mp4`` →
   "big buck bunny", ``IMG_2041.jpg`` → nothing; :mod:`services.planner.ingest.names`).

``"sidecar"``, ``"llm"`` and ``"none"`` force one source (none: no caption, no tags).
"""

from __future__ import annotations

import base64
import csv
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from services.common.openai_chat import ChatEndpoint, ChatEndpointError, ChatEndpointOwner
from services.planner.ingest.errors import CaptionerFailed, SidecarInvalid
from services.planner.ingest.names import name_words

__all__ = [
    "CAPTION_MODES",
    "Caption",
    "SidecarEntry",
    "VisionCaptioner",
    "filename_caption",
    "keyframes",
    "load_sidecar",
    "sidecar_caption",
]

CAPTION_MODES = ("auto", "sidecar", "llm", "none")
FOLDER_SIDECARS = ("captions.json", "captions.csv")
_MAX_TAGS = 12
_PROMPT = (
    "These are keyframes of one video shot, in order. Describe the shot for a video editor "
    "in one short sentence (subject, action, setting, framing), and give up to 8 lower-case "
    "single-word tags (subjects, places, moods, shot types such as wide or close)."
)
_ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "caption": {"type": "string", "minLength": 1},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": _MAX_TAGS},
    },
    "required": ["caption", "tags"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class Caption:
    text: str
    tags: tuple[str, ...]
    source: str


@dataclass(frozen=True, slots=True)
class SidecarEntry:
    """One sidecar row: a caption and tags for a whole file, or for ``[start_s, end_s)``."""

    caption: str
    tags: tuple[str, ...] = ()
    start_s: float | None = None
    end_s: float | None = None


def filename_caption(path: Path) -> Caption:
    """The file name's words as caption and tags (camera counters, digits and one-letter
    words dropped; run-together and camelCase words split)."""
    words = name_words(Path(path).stem)
    return Caption(" ".join(words), tuple(dict.fromkeys(words)), "filename")


def _tags(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = re.split(r"[;,|]", raw)
    if not isinstance(raw, list):
        return ()
    return tuple(dict.fromkeys(t.strip().lower() for t in raw if isinstance(t, str) and t.strip()))


def _entry(raw: Any, where: str) -> SidecarEntry:
    if isinstance(raw, str):
        return SidecarEntry(raw.strip())
    if not isinstance(raw, dict):
        raise SidecarInvalid(f"{where}: an entry must be a caption string or an object")
    start, end = raw.get("start_s"), raw.get("end_s")
    try:
        start = None if start in (None, "") else float(start)
        end = None if end in (None, "") else float(end)
    except (TypeError, ValueError):
        raise SidecarInvalid(f"{where}: start_s and end_s must be numbers (seconds)") from None
    if start is not None and end is not None and end <= start:
        raise SidecarInvalid(f"{where}: end_s must be after start_s")
    caption = raw.get("caption", raw.get("description", ""))
    if not isinstance(caption, str):
        raise SidecarInvalid(f"{where}: caption must be a string")
    return SidecarEntry(caption.strip(), _tags(raw.get("tags", [])), start, end)


def _entries(raw: Any, where: str) -> list[SidecarEntry]:
    items = raw if isinstance(raw, list) else [raw]
    return [_entry(item, f"{where}[{i}]") for i, item in enumerate(items)]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SidecarInvalid(f"{path.name} is not readable JSON: {exc}") from None


def _folder_json(path: Path, name: str) -> list[SidecarEntry]:
    raw = _read_json(path)
    if isinstance(raw, dict):
        found = raw.get(name)
        return [] if found is None else _entries(found, f"{path.name}[{name!r}]")
    if not isinstance(raw, list):
        raise SidecarInvalid(f"{path.name} must map file names to captions, or list rows")
    rows = [r for r in raw if isinstance(r, dict) and r.get("file") == name]
    return _entries(rows, f"{path.name}[{name!r}]")


def _folder_csv(path: Path, name: str) -> list[SidecarEntry]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SidecarInvalid(f"{path.name} is not readable CSV: {exc}") from None
    if rows and "file" not in rows[0]:
        raise SidecarInvalid(f"{path.name} needs a 'file' column (and caption, tags, …)")
    return [_entry(row, f"{path.name} row {i + 2}") for i, row in enumerate(rows)
            if row.get("file") == name]  # fmt: skip


def load_sidecar(path: Path) -> list[SidecarEntry]:
    """Every sidecar entry for the media file ``path`` (empty when there is none)."""
    path = Path(path)
    for beside in (path.with_name(path.name + ".json"), path.with_suffix(".json")):
        if beside.is_file() and beside != path:
            return _entries(_read_json(beside), beside.name)
    for name in FOLDER_SIDECARS:
        folder = path.parent / name
        if folder.is_file():
            read = _folder_json if name.endswith(".json") else _folder_csv
            found = read(folder, path.name)
            if found:
                return found
    return []


def sidecar_caption(
    entries: Sequence[SidecarEntry], start_s: float, end_s: float
) -> Caption | None:
    """The entry covering most of ``[start_s, end_s)``; a whole-file entry when no ranged one
    overlaps; None when nothing applies."""
    best, best_overlap = None, 0.0
    for entry in entries:
        if entry.start_s is None and entry.end_s is None:
            continue
        lo = max(start_s, entry.start_s or 0.0)
        hi = min(end_s, entry.end_s if entry.end_s is not None else end_s)
        if hi - lo > best_overlap:
            best, best_overlap = entry, hi - lo
    if best is None:
        best = next((e for e in entries if e.start_s is None and e.end_s is None), None)
    if best is None:
        return None
    return Caption(best.caption, best.tags, "sidecar")


def keyframes(path: Path, frames: Sequence[int], *, width: int = 512) -> list[bytes]:
    """JPEG bytes of the given frames of ``path``, scaled to ``width`` px wide."""
    capture = cv2.VideoCapture(str(path))
    images: list[bytes] = []
    try:
        for frame in frames:
            capture.set(cv2.CAP_PROP_POS_FRAMES, frame)
            ok, image = capture.read()
            if not ok:
                continue
            scale = width / image.shape[1]
            image = cv2.resize(image, (width, max(2, round(image.shape[0] * scale))))
            ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
            if ok:
                images.append(np.asarray(encoded).tobytes())
    finally:
        capture.release()
    return images


class VisionCaptioner(ChatEndpointOwner):
    """Captions shots with a vision-language model behind an OpenAI-compatible endpoint."""

    def __init__(self, endpoint: ChatEndpoint, *, max_tokens: int = 200) -> None:
        self.endpoint = endpoint
        self.model = endpoint.model
        self.max_tokens = max_tokens

    def request(self, images: Sequence[bytes], hint: str = "") -> dict[str, Any]:
        """The chat-completions body for one shot's keyframes."""
        parts: list[dict[str, Any]] = [
            {"type": "text", "text": _PROMPT + (f" File: {hint}." if hint else "")}
        ]
        for jpeg in images:
            url = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": parts}],
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "shot_caption", "schema": _ANSWER_SCHEMA, "strict": True},
            },
        }

    def caption(self, images: Sequence[bytes], hint: str = "") -> Caption:
        """The model's caption and tags; :class:`CaptionerFailed` when it has none to give."""
        if not images:
            raise CaptionerFailed("no keyframe could be decoded for the vision model")
        try:
            response = self.endpoint.post(self.request(images, hint))
        except ChatEndpointError as exc:
            raise CaptionerFailed(exc.message) from None
        try:
            content = response.json()["choices"][0]["message"]["content"]
            answer = json.loads(content)
            text = answer["caption"].strip()
            tags = _tags(answer.get("tags", []))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise CaptionerFailed(
                f"the vision model {self.model!r} did not answer {{caption, tags}} JSON"
            ) from None
        if not text:
            raise CaptionerFailed(f"the vision model {self.model!r} gave an empty caption")
        return Caption(text, tags[:_MAX_TAGS], "llm")
