"""Media-analysis jobs: ``POST /v1/media:analyze`` queues one; a worker thread analyses each file.

The job's payload is the list of files (already expanded and confined to the media root by
the route). The worker walks it in order, heartbeating ``{"files_done", "files_total",
"current"}``; each file's analysis is stored in :class:`MediaAnalysisRow`, keyed by the hash
of its bytes and the analysis options, *before* the next file starts. So analysing a folder
again costs a hash per file, and a job whose worker died resumes on another worker without
analysing any finished file twice. The output ``{"clips", "music", "errors"}`` is written
atomically under the data dir, keyed by job id, like a render.

The analysis itself needs the ``ingest`` extra (PySceneDetect, OpenCV, librosa); it is
imported when a job runs, so a planner without it still starts and answers 503 here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel

from services.common.db import JsonType, UTCDateTime, utcnow, write_engine
from services.common.errors import RefineryError
from services.common.jobs import JobQueue
from services.common.openai_chat import ChatEndpoint
from services.common.worker import Handler, JobContext, Worker
from services.planner.config import PlannerSettings

if TYPE_CHECKING:
    from services.planner.ingest.captions import VisionCaptioner

ANALYZE_KIND = "planner.analyze"
ANALYZE_LEASE_S = 120.0
INGEST_MODULES = ("scenedetect", "cv2", "librosa")
MUSIC_VERSION = 1
log = logging.getLogger(__name__)


class MediaAnalysisRow(SQLModel, table=True):
    """One cached analysis: ``key`` hashes the file's content hash and the options."""

    __tablename__ = "media_analyses"

    key: str = Field(primary_key=True, max_length=64)
    content_hash: str = Field(index=True, max_length=64)
    kind: str = Field(max_length=20)
    options: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    result: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


def output_path(settings: PlannerSettings, job_id: str) -> Path:
    return settings.data_dir / "analyses" / f"{job_id}.json"


class AnalysisCache:
    """Cached analyses on ``engine``; a lost insert race keeps the first row (same content)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._write = write_engine(engine)

    @staticmethod
    def key(digest: str, kind: str, options: dict[str, Any]) -> str:
        text = json.dumps([digest, kind, options], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, digest: str, kind: str, options: dict[str, Any]) -> dict[str, Any] | None:
        with Session(self.engine) as session:
            row = session.get(MediaAnalysisRow, self.key(digest, kind, options))
            return None if row is None else row.result

    def put(self, digest: str, kind: str, options: dict[str, Any], result: dict) -> None:
        row = MediaAnalysisRow(
            key=self.key(digest, kind, options),
            content_hash=digest,
            kind=kind,
            options=options,
            result=result,
        )
        try:
            with Session(self._write) as session:
                session.add(row)
                session.commit()
        except IntegrityError:
            pass  # another worker stored the same analysis first

    def cached(
        self, digest: str, kind: str, options: dict[str, Any], compute: Callable[[], dict]
    ) -> dict[str, Any]:
        found = self.get(digest, kind, options)
        if found is None:
            found = compute()
            self.put(digest, kind, options, found)
        return found


class FileAnalyzer:
    """Analyses one file of a job, through the cache (videos and music alike)."""

    def __init__(self, settings: PlannerSettings, cache: AnalysisCache, payload: dict) -> None:
        self.root = Path(settings.media_root).resolve()
        self.cache = cache
        self.split_shots = bool(payload.get("split_shots", True))
        self.captions = payload.get("captions", "auto")
        self.vlm = vision_captioner(settings) if self.captions in ("auto", "llm") else None

    def video(self, uri: str, on_progress: Callable[[float], None] | None = None) -> dict:
        from services.planner.ingest.video import (
            MEASURE_VERSION,
            Measurement,
            clips_of,
            content_hash,
            measure_video,
        )

        path = self.root / uri
        digest = content_hash(path)
        measured = self.cache.cached(
            digest,
            "measure",
            {"split_shots": self.split_shots, "version": MEASURE_VERSION},
            lambda: measure_video(
                path, split_shots=self.split_shots, digest=digest, on_progress=on_progress
            ).as_dict(),
        )
        options = {
            "uri": uri,
            "split_shots": self.split_shots,
            "captions": self.captions,
            "vlm": self.vlm.model if self.vlm else None,
            "sidecar": _sidecar_fingerprint(path) if self.captions in ("auto", "sidecar") else "",
            "version": MEASURE_VERSION,
        }

        def caption() -> dict[str, Any]:
            clips, warnings = clips_of(
                path, uri, Measurement.from_dict(measured), captions=self.captions, vlm=self.vlm
            )
            return {"clips": clips, "warnings": warnings}

        found = self.cache.get(digest, "clips", options)
        if found is None:
            found = caption()
            if not found["warnings"]:  # a vision model that failed is asked again next time
                self.cache.put(digest, "clips", options, found)
        return found

    def music(self, uri: str) -> dict[str, Any]:
        from services.planner.ingest.music import analyze_music
        from services.planner.ingest.video import content_hash

        path = self.root / uri
        digest = content_hash(path)
        track = self.cache.cached(
            digest,
            "music",
            {"version": MUSIC_VERSION},
            lambda: analyze_music(path, track_id=f"m{digest[:8]}", uri=uri),
        )
        return {**track, "uri": uri}

    def close(self) -> None:
        if self.vlm is not None:
            self.vlm.close()


def ingest_available() -> bool:
    """Whether the ``ingest`` extra is installed (the analysis can run here)."""
    return all(importlib.util.find_spec(name) is not None for name in INGEST_MODULES)


def _sidecar_fingerprint(path: Path) -> str:
    """What the sidecars that may caption ``path`` hold now (their edits redo the captions)."""
    from services.planner.ingest import captions as cap

    digest = hashlib.sha256()
    candidates = [path.with_name(path.name + ".json"), path.with_suffix(".json")]
    candidates += [path.parent / name for name in cap.FOLDER_SIDECARS]
    for candidate in candidates:
        if candidate.is_file() and candidate != path:
            digest.update(candidate.name.encode() + b"\0" + candidate.read_bytes())
    return digest.hexdigest()


def vision_captioner(settings: PlannerSettings) -> VisionCaptioner | None:
    """The vision model of ``REFINERY_VLM_MODEL`` (at ``REFINERY_VLM_BASE_URL``, else the LLM
    endpoint), or None when none is configured."""
    base_url = settings.vlm_base_url or settings.llm_base_url
    if not settings.vlm_model or not base_url:
        return None
    from services.planner.ingest.captions import VisionCaptioner

    api_key = settings.vlm_api_key or settings.llm_api_key
    return VisionCaptioner(ChatEndpoint(base_url, settings.vlm_model, api_key=api_key))


def _failure(uri: str, exc: Exception) -> dict[str, str]:
    if isinstance(exc, RefineryError):
        return {"path": uri, "code": exc.code, "message": exc.message}
    return {"path": uri, "code": "analysis_failed", "message": f"{type(exc).__name__}: {exc}"}


def analyze_handler(settings: PlannerSettings, engine: Engine) -> Handler:
    cache = AnalysisCache(engine)

    def handle(ctx: JobContext) -> dict[str, Any]:
        files, music = ctx.payload["files"], ctx.payload.get("music", [])
        work = [("video", uri) for uri in files] + [("music", uri) for uri in music]
        clips: list[dict] = []
        tracks: list[dict] = []
        errors: list[dict] = []
        analyzer = FileAnalyzer(settings, cache, ctx.payload)
        try:
            for done, (kind, uri) in enumerate(work):
                progress = {"files_done": done, "files_total": len(work), "current": uri}
                ctx.heartbeat(progress=progress)
                try:
                    if kind == "video":

                        def beat(fraction: float, progress: dict = progress) -> None:
                            ctx.heartbeat(progress={**progress, "current_fraction": fraction})

                        found = analyzer.video(uri, beat)
                        clips += found["clips"]
                        errors += [{"path": uri, **w} for w in found["warnings"]]
                    else:
                        tracks.append(analyzer.music(uri))
                except Exception as exc:  # one bad file is reported; the rest go on
                    log.info("analysis of %s failed: %s", uri, exc)
                    errors.append(_failure(uri, exc))
        finally:
            analyzer.close()
        output = {"clips": clips, "music": tracks, "errors": errors}
        _write_json(output_path(settings, ctx.job.id), output)
        ctx.heartbeat(progress={"files_done": len(work), "files_total": len(work), "current": None})
        return {"clips": len(clips), "music": len(tracks), "errors": len(errors)}

    return handle


def _write_json(path: Path, body: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(json.dumps(body, separators=(",", ":")), encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


class IngestWorker:
    """One background thread serving media-analysis jobs for this planner process."""

    def __init__(self, settings: PlannerSettings, engine: Engine, queue: JobQueue) -> None:
        self._worker = Worker(
            queue,
            {ANALYZE_KIND: analyze_handler(settings, engine)},
            lease_s=ANALYZE_LEASE_S,
            poll_s=0.25,
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._worker.run_forever, args=(self._stop,), name="ingest-worker", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
