"""Media-analysis jobs: ``POST /v1/media:analyze`` queues one; a worker thread runs it.

The job's payload is the list of files (already expanded and confined to the media root by
the route). The worker hashes every file and looks it up in :class:`MediaAnalysisRow`, keyed
by the hash of its bytes and the analysis options; the files not found there are analysed
side by side in processes, up to ``REFINERY_ANALYZE_WORKERS`` (the planner's cores by
default), or one after another in the worker's thread when one is given. Each file's
analysis is stored the moment it is done, heartbeating ``{"files_done", "files_total",
"current", "footage_s_done", "footage_s_total"}`` about once a second. So analysing a folder
again costs a hash per file, and a job whose worker died resumes on another worker without
analysing any finished file twice. The output ``{"clips", "music", "errors"}`` (in the
payload's order) is written atomically under the data dir, keyed by job id, like a render.

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
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel

from services.common.db import JsonType, UTCDateTime, utcnow, write_engine
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


@dataclass
class Unit:
    """One file of a job: what it is, its hash, its cached or fresh measurement (a track
    for music), its length (videos), and its error or output part once known."""

    index: int
    kind: str  # video | music
    uri: str
    digest: str = ""
    duration_s: float = 0.0
    found: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    part: dict[str, Any] = field(default_factory=dict)

    @property
    def cache_kind(self) -> str:
        return "music" if self.kind == "music" else "measure"

    @property
    def finished(self) -> bool:
        return self.found is not None or self.error is not None


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
    """Analyses the files of a job through the cache (videos and music alike): what is
    cached is read back, the rest measured here (:meth:`video`, :meth:`music`) or handed
    to the analysis pool (:meth:`task`) and stored with :meth:`store`."""

    def __init__(self, settings: PlannerSettings, cache: AnalysisCache, payload: dict) -> None:
        self.root = Path(settings.media_root).resolve()
        self.cache = cache
        self.split_shots = bool(payload.get("split_shots", True))
        self.skim = settings.analyze_skim
        self.captions = payload.get("captions", "auto")
        self.vlm = vision_captioner(settings) if self.captions in ("auto", "llm") else None

    def options(self, kind: str) -> dict[str, Any]:
        from services.planner.ingest.video import MEASURE_VERSION

        if kind == "music":
            return {"version": MUSIC_VERSION}
        return {"split_shots": self.split_shots, "skim": self.skim, "version": MEASURE_VERSION}

    def prepare(self, unit: Unit) -> None:
        """The file's hash, its cached measurement (or track) if any, a video's length."""
        from services.planner.ingest.probe import probe
        from services.planner.ingest.video import content_hash

        path = self.root / unit.uri
        unit.digest = content_hash(path)
        unit.found = self.cache.get(unit.digest, unit.cache_kind, self.options(unit.kind))
        if unit.kind == "video":
            unit.duration_s = (unit.found or {}).get("duration_s") or probe(path).duration_s

    def compute(self, unit: Unit, on_progress: Callable[[float], None] | None) -> dict:
        """Measure a video (or analyse a track) here, in this thread."""
        from services.planner.ingest.music import analyze_music
        from services.planner.ingest.video import measure_video

        path = self.root / unit.uri
        if unit.kind == "music":
            return analyze_music(path, track_id=f"m{unit.digest[:8]}", uri=unit.uri)
        return measure_video(
            path,
            split_shots=self.split_shots,
            skim=self.skim,
            digest=unit.digest,
            on_progress=on_progress,
        ).as_dict()

    def task(self, unit: Unit) -> tuple[Callable[..., dict[str, Any]], tuple[Any, ...]]:
        """The same work as :meth:`compute`, as a pool task and its arguments."""
        from services.planner.ingest import parallel

        path = str(self.root / unit.uri)
        if unit.kind == "music":
            return parallel.music_task, (unit.index, path, f"m{unit.digest[:8]}", unit.uri)
        return parallel.measure_task, (unit.index, path, self.split_shots, unit.digest, self.skim)

    def store(self, unit: Unit, found: dict[str, Any]) -> None:
        """Keep a fresh measurement (or track) before anything else happens to it."""
        self.cache.put(unit.digest, unit.cache_kind, self.options(unit.kind), found)
        unit.found = found

    def output(self, unit: Unit) -> dict[str, Any]:
        """A measured unit's part of the job output: ``{clips, music, warnings}``."""
        assert unit.found is not None
        if unit.kind == "music":
            return {"clips": [], "music": [{**unit.found, "uri": unit.uri}], "warnings": []}
        return {**self._clips(unit.uri, unit.digest, unit.found), "music": []}

    def _clips(self, uri: str, digest: str, measured: dict[str, Any]) -> dict[str, Any]:
        from services.planner.ingest.video import MEASURE_VERSION, Measurement, clips_of

        path = self.root / uri
        options = {
            "uri": uri,
            "split_shots": self.split_shots,
            "captions": self.captions,
            "vlm": self.vlm.model if self.vlm else None,
            "sidecar": _sidecar_fingerprint(path) if self.captions in ("auto", "sidecar") else "",
            "version": MEASURE_VERSION,
        }
        found = self.cache.get(digest, "clips", options)
        if found is None:
            clips, warnings = clips_of(
                path, uri, Measurement.from_dict(measured), captions=self.captions, vlm=self.vlm
            )
            found = {"clips": clips, "warnings": warnings}
            if not warnings:  # a vision model that failed is asked again next time
                self.cache.put(digest, "clips", options, found)
        return found

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
    from services.planner.ingest.errors import describe_failure

    return {"path": uri, **describe_failure(exc)}


class AnalysisRun:
    """One attempt at an analysis job: every file hashed and looked up in the cache, the
    rest analysed — side by side in an :class:`~services.planner.ingest.parallel.AnalysisPool`
    when the planner has more than one worker to give (``REFINERY_ANALYZE_WORKERS``) and
    more than one file is left, else one after another in this thread. Each file's result
    is cached the moment it is done; progress counts files and footage seconds."""

    def __init__(self, settings: PlannerSettings, cache: AnalysisCache, ctx: JobContext) -> None:
        from services.planner.ingest.parallel import cores_given

        self.ctx = ctx
        self.analyzer = FileAnalyzer(settings, cache, ctx.payload)
        kinds = [("video", u) for u in ctx.payload["files"]]
        kinds += [("music", u) for u in ctx.payload.get("music", [])]
        self.units = [Unit(i, kind, uri) for i, (kind, uri) in enumerate(kinds)]
        self.workers = settings.analyze_workers or cores_given()
        self.pool_cpu_s = 0.0
        self.pool_peaks_mb: dict[int, float] = {}
        self._beat = 0.0

    def run(self) -> dict[str, Any]:
        for unit in self.units:
            self._attempt(unit, lambda unit=unit: self.analyzer.prepare(unit))
        todo = [u for u in self.units if u.found is None and u.error is None]
        if self.workers > 1 and len(todo) > 1:
            self._in_pool(todo, min(self.workers, len(todo)))
        else:
            for unit in todo:
                self._heartbeat({unit.index: 0.0}, force=True)

                def beat(fraction: float, unit: Unit = unit) -> None:
                    self._heartbeat({unit.index: fraction})

                self._attempt(unit, lambda u=unit, b=beat: self.analyzer.store(
                    u, self.analyzer.compute(u, b)))  # fmt: skip
        return self._output()

    def _attempt(self, unit: Unit, step: Callable[[], None]) -> None:
        try:
            step()
        except Exception as exc:  # one bad file is reported; the rest go on
            log.info("analysis of %s failed: %s", unit.uri, exc)
            unit.error = _failure(unit.uri, exc)

    def _in_pool(self, todo: list[Unit], workers: int) -> None:
        from services.planner.ingest.parallel import AnalysisPool

        running: dict[int, float] = {}
        with AnalysisPool(workers) as pool:
            futures = {pool.submit(*self.analyzer.task(unit)): unit for unit in todo}
            while futures:
                done, _ = wait(futures, timeout=1.0, return_when=FIRST_COMPLETED)
                running.update((k, f) for k, f in pool.fractions() if not self.units[k].finished)
                for future in done:
                    unit, answer = futures.pop(future), future.result()
                    running.pop(unit.index, None)
                    self.pool_cpu_s += answer["cpu_s"]
                    self.pool_peaks_mb[answer["pid"]] = answer["peak_mb"]
                    if "error" in answer:
                        unit.error = {"path": unit.uri, **answer["error"]}
                    else:
                        self._attempt(unit, lambda u=unit, a=answer: self.analyzer.store(
                            u, a["result"]))  # fmt: skip
                self._heartbeat(running or {u.index: 0.0 for u in futures.values()})

    def _heartbeat(self, running: dict[int, float], *, force: bool = False) -> None:
        """Progress every second or so: files done, footage seconds done (finished files
        and the decoded part of running ones) and the file being analysed."""
        if not force and time.monotonic() - self._beat < 1.0:
            return
        self._beat = time.monotonic()
        self.ctx.heartbeat(progress=self.progress(running))

    def progress(self, running: dict[int, float]) -> dict[str, Any]:
        finished = [u for u in self.units if u.finished]
        done_s = sum(u.duration_s for u in finished)
        done_s += sum(self.units[i].duration_s * f for i, f in running.items())
        progress = {
            "files_done": len(finished),
            "files_total": len(self.units),
            "current": self.units[min(running)].uri if running else None,
            "footage_s_done": round(done_s, 2),
            "footage_s_total": round(sum(u.duration_s for u in self.units), 2),
        }
        if running:
            progress["current_fraction"] = round(running[min(running)], 3)
        return progress

    def _output(self) -> dict[str, Any]:
        clips: list[dict] = []
        tracks: list[dict] = []
        errors: list[dict] = []
        for unit in self.units:
            if unit.error is None:
                self._attempt(unit, lambda u=unit: setattr(u, "part", self.analyzer.output(u)))
            if unit.error is not None:
                errors.append(unit.error)
                continue
            clips += unit.part["clips"]
            tracks += unit.part["music"]
            errors += [{"path": unit.uri, **w} for w in unit.part["warnings"]]
        return {"clips": clips, "music": tracks, "errors": errors}


def analyze_handler(settings: PlannerSettings, engine: Engine) -> Handler:
    cache = AnalysisCache(engine)

    def handle(ctx: JobContext) -> dict[str, Any]:
        run = AnalysisRun(settings, cache, ctx)
        try:
            output = run.run()
        finally:
            run.analyzer.close()
        _write_json(output_path(settings, ctx.job.id), output)
        final = run.progress({})
        ctx.heartbeat(progress=final)
        return {
            "clips": len(output["clips"]),
            "music": len(output["music"]),
            "errors": len(output["errors"]),
            "footage_s": final["footage_s_total"],
            "pool_cpu_s": round(run.pool_cpu_s, 3),
            "pool_peak_rss_mb": round(sum(run.pool_peaks_mb.values()), 1),
        }

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
