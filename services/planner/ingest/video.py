"""One video file → Task.1 clips: probe, one decoding pass for shots and pixels, captions.

:func:`measure_video` is the costly part (it decodes the file once, leaving out still
stretches unless told not to skim) and depends only on the file's bytes, ``split_shots`` and
``skim``, so its result (:class:`Measurement`, JSON-able) is what the planner caches by
content hash. :func:`clips_of` turns a measurement into ClipIn wire
dicts with captions; :func:`analyze_video` does both for one file.

Clip ids are ``v<first 8 hex of the file's SHA-256>-<shot number>`` (``v3fa91c0d-02``):
the same bytes give the same ids on every run and under any file name.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from scenedetect import FrameTimecode

from protocol.media import resolve_media
from services.planner.ingest import captions as cap
from services.planner.ingest.decode import FrameBatches, SkimmedBatches
from services.planner.ingest.errors import CaptionerFailed, MediaUnreadable, NotMedia
from services.planner.ingest.pixels import PixelSampler, Sample, measure
from services.planner.ingest.probe import Probe, probe
from services.planner.ingest.shots import (
    Cut,
    DissolveDetector,
    cut_detector,
    merge_cuts,
    shot_spans,
)

__all__ = [
    "MEASURE_VERSION",
    "Measurement",
    "VideoAnalysis",
    "analyze_video",
    "clip_id",
    "clips_of",
    "content_hash",
    "measure_video",
]

MEASURE_VERSION = 7
"""Bumped whenever detection or tagging changes, so cached measurements are redone."""
_PROGRESS_EVERY = 300


@dataclass(frozen=True, slots=True)
class Measurement:
    """What decoding one file found: its header and, per shot, frames and pixel figures."""

    content_hash: str
    duration_s: float
    fps: float
    frames: int
    width: int
    height: int
    rotation: int
    orientation: str
    shots: list[dict[str, Any]]
    decode_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Measurement:
        return cls(**raw)


@dataclass
class VideoAnalysis:
    """One file's clips (ClipIn wire dicts), its measurement, and non-fatal warnings."""

    path: Path
    uri: str
    measurement: Measurement
    clips: list[dict[str, Any]]
    warnings: list[dict[str, str]] = field(default_factory=list)

    @property
    def shots(self) -> list[dict[str, Any]]:
        return self.measurement.shots


def content_hash(path: Path, *, chunk: int = 1 << 20) -> str:
    """SHA-256 of the file's bytes (hex)."""
    digest = hashlib.sha256()
    try:
        with Path(path).open("rb") as handle:
            while block := handle.read(chunk):
                digest.update(block)
    except OSError as exc:
        raise MediaUnreadable(f"cannot read {Path(path).name}: {exc.strerror or exc}") from None
    return digest.hexdigest()


def clip_id(digest: str, shot: int) -> str:
    return f"v{digest[:8]}-{shot + 1:02d}"


def _decode(
    path: Path,
    header: Probe,
    *,
    split_shots: bool,
    skim: bool,
    on_progress: Callable[[float], None] | None,
) -> tuple[int, list[Cut], list[Sample]]:
    """One decoding pass feeding every detector batch by batch: the file's frame count,
    its shot boundaries (none unless ``split_shots``) and the pixel samples."""
    fps = header.fps
    sampler, cuts, dissolves = PixelSampler(fps), cut_detector(fps), DissolveDetector(fps)
    detectors = [cuts, dissolves, sampler] if split_shots else [sampler]
    expected, beat = max(header.duration_s * fps, 1.0), _PROGRESS_EVERY
    batches = (SkimmedBatches if skim else FrameBatches)(path, header)
    try:
        for numbers, frames in batches:
            for detector in detectors:
                detector.process_batch(numbers, frames)
            if on_progress is not None and batches.frames >= beat:
                on_progress(round(min(1.0, batches.frames / expected), 3))
                beat = (batches.frames // _PROGRESS_EVERY + 1) * _PROGRESS_EVERY
    finally:
        batches.close()
    if not split_shots:
        return batches.frames, [], sampler.samples
    cuts.post_process(batches.frames)
    dissolves.post_process(FrameTimecode(batches.frames, fps=fps))
    found = merge_cuts(cuts.cuts, dissolves.cuts, fps=fps, frames=batches.frames)
    return batches.frames, found, sampler.samples


def measure_video(
    path: Path,
    *,
    split_shots: bool = True,
    skim: bool = True,
    digest: str | None = None,
    on_progress: Callable[[float], None] | None = None,
) -> Measurement:
    """Decode ``path`` once: cuts and dissolves (unless not ``split_shots``) and pixel samples.
    ``skim``: leave out the spans between alike keyframes
    (:class:`~services.planner.ingest.decode.SkimmedBatches`); otherwise every reference
    frame is decoded. ``on_progress`` hears the fraction decoded every 300 frames or so."""
    path = Path(path)
    header = probe(path)
    digest = digest or content_hash(path)
    started = time.monotonic()
    if header.fps <= 0:
        raise MediaUnreadable(f"{path.name} has no frame rate ffmpeg can read")
    fps = header.fps
    frames, cuts, samples = _decode(
        path, header, split_shots=split_shots, skim=skim, on_progress=on_progress
    )
    if frames <= 0:
        raise NotMedia(f"{path.name} has no decodable video frames")
    shots = []
    for start, end, kind in shot_spans(cuts, frames):
        inside = [s for s in samples if start <= s.frame < end - 1]
        pixels = measure(inside, fps=fps)
        figures = {**pixels.as_dict(), "tags": list(pixels.tags)}
        shots.append({"start_frame": start, "end_frame": end, "begins": kind, **figures})
    return Measurement(
        content_hash=digest,
        duration_s=round(frames / fps, 6),
        fps=fps,
        frames=frames,
        width=header.display_size[0],
        height=header.display_size[1],
        rotation=header.rotation,
        orientation=header.orientation,
        shots=shots,
        decode_s=round(time.monotonic() - started, 3),
    )


def _shot_caption(
    path: Path,
    shot: dict[str, Any],
    fps: float,
    *,
    mode: str,
    sidecar: list[cap.SidecarEntry],
    vlm: cap.VisionCaptioner | None,
    warnings: list[dict[str, str]],
) -> cap.Caption | None:
    if mode == "none":
        return None
    start_s, end_s = shot["start_frame"] / fps, shot["end_frame"] / fps
    if mode in ("auto", "sidecar"):
        found = cap.sidecar_caption(sidecar, start_s, end_s)
        if found is not None or mode == "sidecar":
            return found
    if vlm is not None and mode in ("auto", "llm"):
        first, end = shot["start_frame"], shot["end_frame"]
        picks = sorted({first + (end - first) * k // 4 for k in (1, 2, 3)})
        try:
            return vlm.caption(cap.keyframes(path, picks), hint=path.name)
        except CaptionerFailed as exc:
            if mode == "llm":
                raise
            warnings.append({"code": exc.code, "message": exc.message})
    elif mode == "llm":
        raise CaptionerFailed("captions 'llm' needs a vision model (REFINERY_VLM_MODEL)")
    return cap.filename_caption(path)


def clips_of(
    path: Path,
    uri: str,
    measurement: Measurement,
    *,
    captions: str = "auto",
    vlm: cap.VisionCaptioner | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """ClipIn wire dicts for every shot of a measured file, and warnings (a vision model that
    failed under ``auto``, whose shots fell back to the file name)."""
    if captions not in cap.CAPTION_MODES:
        raise ValueError(f"captions must be one of {', '.join(cap.CAPTION_MODES)}")
    sidecar = cap.load_sidecar(path) if captions in ("auto", "sidecar") else []
    fps, warnings, clips = measurement.fps, [], []
    for index, shot in enumerate(measurement.shots):
        found = _shot_caption(
            path, shot, fps, mode=captions, sidecar=sidecar, vlm=vlm, warnings=warnings
        )
        tags = list(dict.fromkeys([*(found.tags if found else ()), *shot["tags"]]))
        clips.append({
            "id": clip_id(measurement.content_hash, index),
            "uri": uri,
            "start_s": round(shot["start_frame"] / fps, 6),
            "duration_s": round((shot["end_frame"] - shot["start_frame"]) / fps, 6),
            "caption": found.text if found else "",
            "caption_source": found.source if found else "manual",
            "tags": tags,
            "orientation": measurement.orientation,
            "quality": shot["quality"],
        })  # fmt: skip
    return clips, warnings


def analyze_video(
    path: Path,
    *,
    media_root: Path,
    split_shots: bool = True,
    skim: bool = True,
    captions: str = "auto",
    vlm: cap.VisionCaptioner | None = None,
) -> VideoAnalysis:
    """Shots, tags, quality and captions of one file under ``media_root``.

    ``path`` may be absolute or relative to the root; it must lie inside it
    (:class:`~services.planner.export.errors.MediaOutsideRoot` otherwise).
    """
    root = Path(media_root).resolve()
    resolved = resolve_media(str(path), root, param="path", must_exist=True)
    uri = resolved.relative_to(root).as_posix()
    measurement = measure_video(resolved, split_shots=split_shots, skim=skim)
    clips, warnings = clips_of(resolved, uri, measurement, captions=captions, vlm=vlm)
    return VideoAnalysis(resolved, uri, measurement, clips, warnings)
