"""``python -m benchmarks endtoend``: what a user waits for, from a shoot and a track to a cut.

:func:`benchmarks.endtoend_media.write_shoot` writes a shoot with known cuts and a track
with known beats (not timed; reused from ``--media`` when unchanged). Then the README's
path runs through the services: a verifier served by uvicorn, the planner app (its job
workers included) answering the real :class:`~clients.planner.PlannerClient`:
``POST /v1/media:analyze`` (polled to the end) → ``POST /v1/tasks:compile`` (the one
sentence of :data:`BRIEF`, rules compiler) → ``POST /v1/plan`` → the plan as OTIO → a
render job (polled) → the MP4. Figures:

- ``total_s``: wall seconds from the analysis request to the MP4's bytes; ``analyze_s``,
  ``compile_s``, ``plan_s`` (the OTIO export included) and ``render_s`` split it.
- ``cpu_s``: CPU seconds of the whole run: this process, the children it waited for (the
  verifier, the render's and the in-thread analysis' ffmpeg) and the analysis pool's
  processes as the job reports them (``analysis_pool_cpu_s``; 0 when one worker analysed
  the files in the job's thread).
- ``peak_rss_mb``: this process's peak resident memory, plus the largest child's, plus
  every analysis process's peak (an upper bound on the whole run at any one moment).
- ``shot_f1``: the analysis' cuts against the true ones, ±2 frames (as the ingest
  benchmark scores them); ``beat_f``: its beats against the track's, ±70 ms.
- ``ves`` and ``feasible``: the plan's verdict; ``render_duration_error_s``: the MP4's
  length less the timeline's.
- ``ready_s``: from the planner's start to its ``/readyz`` (the start-up warm-up), before
  the clock of ``total_s`` starts, as ``refinery up`` waits for it.
- ``workers``: files analysed at once (``REFINERY_ANALYZE_WORKERS``; by default the cores
  this process may use), ``cores``, ``python_calibration_us`` and ``load_average``.

``--short``: five small files (320×180) of 12 s, a 24 s track and an 8–12 s cut.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import typer
from fastapi.testclient import TestClient

from benchmarks.endtoend_media import FILE_S, SHOOT_FILES, Shoot, write_shoot
from benchmarks.ingest import _score_file, _score_track, cpu_seconds
from benchmarks.verifier_bench import calibration_us, serve
from clients.planner import PlannerClient
from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.planner.ingest.parallel import cores_given
from services.planner.ingest.probe import probe

T = TypeVar("T")
BRIEF = (
    "A {low} to {high} second upbeat reel of our coast trip: open on the beach, at least two "
    "surf shots, no clip twice, end on a sunset, and cut on the beat."
)
GOALS = {"total_s": 90.0, "shot_f1": 0.95, "feasible": True}


@dataclass(frozen=True)
class Size:
    files: int
    file_s: float
    scale: float
    track_s: float
    cut_s: tuple[int, int]


FULL = Size(SHOOT_FILES, FILE_S, 1.0, 180.0, (45, 60))
SHORT = Size(5, 12.0, 0.25, 24.0, (8, 12))


def _timed(step: Callable[[], T], spent: dict[str, float], name: str) -> T:
    started = time.perf_counter()
    try:
        return step()
    finally:
        spent[name] = round(time.perf_counter() - started, 3)


def _finished(client: PlannerClient, job_id: str, poll_s: float = 0.1) -> Any:
    job = client.job(job_id)
    while job.status in {"queued", "running"}:
        time.sleep(poll_s)
        job = client.job(job_id)
    if job.status != "succeeded":
        raise RuntimeError(f"job {job_id} {job.status}: {job.error}")
    return job


def _timed_ready(http: TestClient, limit_s: float = 600.0) -> float:
    """Seconds until the planner's ``/readyz`` says ready (its warm-up done), as ``refinery
    up`` waits before it runs a command."""
    started = time.perf_counter()
    while http.get("/readyz").status_code != 200:
        if time.perf_counter() - started > limit_s:
            raise RuntimeError(f"the planner was not ready within {limit_s:g} s")
        time.sleep(0.1)
    return round(time.perf_counter() - started, 2)


def _journey(client: PlannerClient, shoot: Shoot, size: Size, out: Path) -> dict[str, Any]:
    """The README's path, each step timed; what each step answered."""
    spent: dict[str, float] = {}
    started = time.perf_counter()
    files = [f"footage/{truth.path.name}" for truth in shoot.footage]
    job = client.analyze_media(files, music=[f"music/{shoot.track.path.name}"], captions="auto")
    job = _timed(lambda: _finished(client, job.job_id), spent, "analyze_s")
    analysis = client.job_json(job.job_id)
    brief = BRIEF.format(low=size.cut_s[0], high=size.cut_s[1])
    compiled = _timed(
        lambda: client.compile_task(brief, analysis["clips"], analysis["music"]), spent, "compile_s"
    )
    task = compiled.task

    def plan_and_export() -> Any:
        plan = client.plan(task)
        (out / "cut.otio").write_bytes(client.otio(plan.plan_id))
        return plan

    plan = _timed(plan_and_export, spent, "plan_s")

    def render() -> None:
        done = _finished(client, client.render(plan.plan_id).job_id, poll_s=0.2)
        (out / "cut.mp4").write_bytes(client.job_output(done.job_id))

    _timed(render, spent, "render_s")
    spent["total_s"] = round(time.perf_counter() - started, 3)
    return {"spent": spent, "job": job, "analysis": analysis, "plan": plan}


def _shot_figures(shoot: Shoot, clips: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [
        _score_file(truth, [c for c in clips if c["uri"] == f"footage/{truth.path.name}"])
        for truth in shoot.footage
    ]
    truth_cuts = sum(len(f.cuts) for f in shoot.footage)
    found = sum(len(r["found"]) for r in rows)
    matched = sum(r["matched"] for r in rows)
    precision, recall = (matched / found if found else 0.0), matched / max(truth_cuts, 1)
    f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
    return {
        "shot_f1": round(f1, 4), "shot_precision": round(precision, 4),
        "shot_recall": round(recall, 4), "cuts_truth": truth_cuts, "cuts_found": found,
        "cut_misses": {r["name"]: {"missed": r["missed"], "extra": r["extra"]}
                       for r in rows if r["missed"] or r["extra"]},
    }  # fmt: skip


def _peak_rss_mb(pool_peak_mb: float) -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return round(own + child + pool_peak_mb, 1)


def _figures(shoot: Shoot, seen: dict[str, Any], out: Path) -> dict[str, Any]:
    plan, analysis = seen["plan"], seen["analysis"]
    tracks = analysis["music"]
    rendered = probe(out / "cut.mp4").duration_s
    return {
        "footage_s": round(sum(f.duration_s for f in shoot.footage), 2),
        "footage_files": len(shoot.footage),
        **seen["spent"],
        **_shot_figures(shoot, analysis["clips"]),
        "beat_f": _score_track(shoot.track, tracks[0])["beat_f"] if tracks else 0.0,
        "clips": len(analysis["clips"]),
        "analysis_errors": analysis["errors"],
        "ves": round(plan.ves, 4),
        "feasible": plan.feasible,
        "infeasible_constraints": plan.infeasible_constraints,
        "cut_s": plan.report.duration_s,
        "shots": len(plan.timeline.shots),
        "render_duration_error_s": round(rendered - plan.report.duration_s, 3),
    }


def run(
    *,
    media_dir: Path | None = None,
    short: bool = False,
    workers: int = 0,
    relevance: str = "auto",
    files: int | None = None,
) -> dict[str, Any]:
    """Write (or reuse) the shoot under ``media_dir`` and time the path through the services
    (``relevance``: how the planner ranks clips, ``auto`` as a planner started by default;
    ``files``: only the shoot's first files)."""
    size = SHORT if short else FULL
    if files is not None:
        size = dataclasses.replace(size, files=min(files, size.files))
    with tempfile.TemporaryDirectory(prefix="endtoend-") as scratch:
        root = Path(media_dir) if media_dir else Path(scratch) / "media"
        shoot = write_shoot(root, files=size.files, file_s=size.file_s, scale=size.scale,
                            track_s=size.track_s)  # fmt: skip
        calibration, load_before = calibration_us(), os.getloadavg()
        settings = PlannerSettings(data_dir=Path(scratch) / "data", media_root=root,
                                   log_level="WARNING", analyze_workers=workers,
                                   relevance=relevance)  # fmt: skip
        cpu_before = cpu_seconds()
        with serve("services.verifier.app:app", workers=1) as url, VerifierClient(url) as verifier:
            app = build_app(settings, verifier=verifier)
            with TestClient(app) as http, PlannerClient(http_client=http) as client:
                ready_s = _timed_ready(http)
                seen = _journey(client, shoot, size, Path(scratch))
                figures = _figures(shoot, seen, Path(scratch))
        result = seen["job"].result
        cpu_s = cpu_seconds() - cpu_before + result.get("pool_cpu_s", 0.0)
    return {
        **figures,
        "cpu_s": round(cpu_s, 2),
        "analysis_pool_cpu_s": result.get("pool_cpu_s", 0.0),
        "peak_rss_mb": _peak_rss_mb(result.get("pool_peak_rss_mb", 0.0)),
        "ready_s": ready_s,
        "workers": workers or cores_given(),
        "relevance": relevance,
        "cores": cores_given(),
        "short": short,
        "goals": GOALS,
        "python_calibration_us": calibration,
        "load_average": {"before": list(load_before), "after": list(os.getloadavg())},
    }


def cli(
    json_path: Path = typer.Option(Path("endtoend-bench.json"), "--json", help="Output file."),
    media: Path | None = typer.Option(
        None, help="Keep the generated shoot here (reused when unchanged); a temp dir if unset."
    ),
    short: bool = typer.Option(False, help="Five small files, a 24 s track, an 8–12 s cut."),
    workers: int = typer.Option(
        0, help="Files analysed at once (REFINERY_ANALYZE_WORKERS); 0: the cores given."
    ),
    relevance: str = typer.Option(
        "auto", help="auto, minilm or tfidf: how the planner ranks clips (REFINERY_RELEVANCE)."
    ),
    files: int | None = typer.Option(
        None, help="Only the shoot's first FILES files (all 20 of 30 s unless given)."
    ),
) -> None:
    """Time a shoot and a track in, a rendered cut out, through the services."""
    results = run(media_dir=media, short=short, workers=workers, relevance=relevance, files=files)
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps(results, indent=2))
