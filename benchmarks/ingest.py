"""``python -m benchmarks ingest``: shot, tag, beat and downbeat detection against known truth.

:func:`benchmarks.ingest_media.generate` writes footage (lavfi scenes joined by cuts and
dissolves, handheld/tripod, night/day, portrait/landscape, one 60 fps file) and music
(numpy-synthesised tracks at known tempi, two styles) with their ground truth; each file
then goes through :func:`~services.planner.ingest.video.analyze_video` (no captions) and
each track through :func:`~services.planner.ingest.music.analyze_music`, the whole
analysis pinned to one CPU core (and OpenCV, torch and numba to one thread). Figures:

- ``shot_f1``: cuts (a clip's start inside its file) matched one-to-one to the true cut
  frames within ±2 frames, over all files; with ``shot_precision`` and ``shot_recall``.
- ``tag_accuracy``: per true shot (the clip holding its middle frame), four decisions —
  ``shaky``, ``dark``, ``slowmo`` present or not as expected, orientation right — the
  share that is right; ``tag_accuracy_by_tag`` splits it.
- ``beat_f`` / ``downbeat_f``: mean over tracks of the F-measure with a ±70 ms window,
  counted as ``mir_eval.beat.f_measure`` does (one-to-one matching; no 5 s trim).
- ``tempo_within_4pct``: share of tracks whose ``bpm`` is within 4 % of the true tempo
  (no octave allowance); ``tempo_within_4pct_octave`` also accepts ×2 and ×½.
- ``analysis_speed_x``: seconds of 720p footage analysed per wall second on one core;
  ``analysis_speed_x_all`` over every file, ``music_speed_x`` for the tracks.
- ``analysis_speed_x_cpu``: seconds of 720p footage analysed per CPU second — this
  process's CPU time plus that of the ffmpeg it started and waited for
  (``resource.getrusage``, user + system). On a shared machine the wall clock also counts
  time other work held the core; the CPU figure does not, so it is the steadier one
  (``analysis_speed_x_cpu_all`` over every file).
- ``failures``: the files, shots and tracks that missed, for whoever tunes detection.
- ``python_calibration_us`` and ``load_average`` (1, 5 and 15 minute load before and after
  the run): how busy the machine was, to read the speed figures by.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import resource
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.progress import Progress

from benchmarks.ingest_media import FileTruth, MediaTruth, generate
from benchmarks.ingest_tracks import TrackTruth
from benchmarks.verifier_bench import calibration_us

CUT_WINDOW_FRAMES = 2
BEAT_WINDOW_S = 0.07
TAGS = ("shaky", "dark", "slowmo")
GOALS = {"shot_f1": 0.95, "tag_accuracy": 0.95, "beat_f": 0.90, "downbeat_f": 0.80,
         "analysis_speed_x": 10.0}  # fmt: skip
SMALL_FILES = ("travel_dissolves", "street_night")


def match_count(estimated: Sequence[float], reference: Sequence[float], window: float) -> int:
    """The most one-to-one pairs with ``|e − r| ≤ window``. On a line a greedy sweep over
    both sorted lists finds a maximum matching, the count mir_eval's bipartite matching
    gives."""
    est, ref = sorted(estimated), sorted(reference)
    i = j = matched = 0
    while i < len(ref) and j < len(est):
        if abs(est[j] - ref[i]) <= window + 1e-9:
            matched, i, j = matched + 1, i + 1, j + 1
        elif est[j] < ref[i]:
            j += 1
        else:
            i += 1
    return matched


def prf(estimated: Sequence[float], reference: Sequence[float], window: float) -> dict:
    """Precision, recall and F-measure; 0 when either side is empty (as mir_eval)."""
    if not estimated or not reference:
        return {"precision": 0.0, "recall": 0.0, "f": 0.0, "matched": 0}
    matched = match_count(estimated, reference, window)
    precision, recall = matched / len(estimated), matched / len(reference)
    f = 0.0 if matched == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f": f, "matched": matched}


def f_measure(estimated: Sequence[float], reference: Sequence[float], window: float) -> float:
    return prf(estimated, reference, window)["f"]


@contextlib.contextmanager
def one_core() -> Iterator[dict[str, Any]]:
    """Run this process (and the ffmpeg it starts) on one CPU, and OpenCV, torch and numba
    on one thread each; everything is put back on exit."""
    import cv2

    pinned: dict[str, Any] = {}
    undo: list[Callable[[], None]] = []
    if hasattr(os, "sched_setaffinity"):
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(before)})
        pinned["cpu"] = min(before)
        undo.append(lambda: os.sched_setaffinity(0, before))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    undo.append(lambda: cv2.setNumThreads(threads))
    pinned["opencv_threads"] = cv2.getNumThreads()
    for name in ("torch", "numba"):
        try:
            module = importlib.import_module(name)
            count = module.get_num_threads()
            module.set_num_threads(1)
        except (ImportError, ValueError):  # pragma: no cover - optional here
            continue
        undo.append(lambda module=module, count=count: module.set_num_threads(count))
        pinned[f"{name}_threads"] = module.get_num_threads()
    try:
        yield pinned
    finally:
        for step in reversed(undo):
            step()


def _score_file(truth: FileTruth, clips: list[dict[str, Any]]) -> dict[str, Any]:
    fps = truth.fps
    starts = sorted(round(float(c.get("start_s", 0.0)) * fps) for c in clips)
    found = [s for s in starts if s > 0]
    counts = prf(found, truth.cuts, CUT_WINDOW_FRAMES)
    row: dict[str, Any] = {
        "name": truth.name, "cuts": truth.cuts, "found": found, "matched": counts["matched"],
        "missed": [c for c in truth.cuts if all(abs(c - f) > CUT_WINDOW_FRAMES for f in found)],
        "extra": [f for f in found if all(abs(c - f) > CUT_WINDOW_FRAMES for c in truth.cuts)],
        "tags": [],
    }  # fmt: skip
    spans = sorted(
        (round(float(c.get("start_s", 0.0)) * fps), round(float(c["duration_s"]) * fps), c)
        for c in clips
    )
    for index, shot in enumerate(truth.shots):
        middle = (shot.start_frame + shot.end_frame) // 2
        clip = next((c for s, d, c in spans if s <= middle < s + d), spans[-1][2] if spans else {})
        tags = set(clip.get("tags", ()))
        decisions = {tag: (tag in tags) == (tag in shot.tags) for tag in TAGS}
        decisions["orientation"] = clip.get("orientation") == truth.orientation
        row["tags"].append({
            "shot": index, "expected": shot.tags, "got": sorted(tags & set(TAGS)),
            "orientation": clip.get("orientation"), "right": decisions,
        })  # fmt: skip
    return row


def _score_track(truth: TrackTruth, track: dict[str, Any]) -> dict[str, Any]:
    beats = prf(track["beats_s"], truth.beats_s, BEAT_WINDOW_S)
    downbeats = prf(track["downbeats_s"], truth.downbeats_s, BEAT_WINDOW_S)
    ratio = track["bpm"] / truth.bpm
    return {
        "name": truth.name, "style": truth.style, "bpm": truth.bpm, "found_bpm": track["bpm"],
        "tempo_ok": abs(ratio - 1) <= 0.04,
        "tempo_octave_ok": any(abs(ratio / k - 1) <= 0.04 for k in (0.5, 1.0, 2.0)),
        "beat_f": round(beats["f"], 4), "beat_precision": round(beats["precision"], 4),
        "beat_recall": round(beats["recall"], 4), "downbeat_f": round(downbeats["f"], 4),
        "mood": track["mood"],
    }  # fmt: skip


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _analyse(
    media: MediaTruth, root: Path, progress: Progress, *, skim: bool = True
) -> tuple[list, list, dict]:
    from services.planner.ingest.music import analyze_music, measure_music
    from services.planner.ingest.video import analyze_video

    measure_music(np.random.default_rng(0).standard_normal(22_050 * 3).astype(np.float32))
    seconds = dict.fromkeys(
        ("video", "video_720p", "cpu", "cpu_720p", "music", "footage_720p_s"), 0.0
    )
    files, tracks = [], []
    job = progress.add_task("footage", total=len(media.footage))
    for truth in media.footage:
        started, cpu = time.perf_counter(), cpu_seconds()
        analysis = analyze_video(
            truth.path, media_root=root, split_shots=True, skim=skim, captions="none"
        )
        spent, cpu = time.perf_counter() - started, cpu_seconds() - cpu
        seconds["video"] += spent
        seconds["cpu"] += cpu
        if min(truth.width, truth.height) == 720:
            seconds["video_720p"] += spent
            seconds["cpu_720p"] += cpu
            seconds["footage_720p_s"] += truth.duration_s
        row = {"analysis_s": round(spent, 3), "cpu_s": round(cpu, 3)}
        files.append({**_score_file(truth, analysis.clips), **row})
        progress.advance(job)
    job = progress.add_task("music", total=len(media.tracks))
    for truth in media.tracks:
        started = time.perf_counter()
        track = analyze_music(truth.path, track_id=truth.name, uri=truth.path.name)
        seconds["music"] += time.perf_counter() - started
        tracks.append(_score_track(truth, track))
        progress.advance(job)
    return files, tracks, seconds


def _figures(media: MediaTruth, files: list, tracks: list, seconds: dict) -> dict[str, Any]:
    truth_cuts = sum(len(f.cuts) for f in media.footage)
    found = sum(len(f["found"]) for f in files)
    matched = sum(f["matched"] for f in files)
    precision = matched / found if found else 0.0
    recall = matched / truth_cuts if truth_cuts else 0.0
    decisions = [d for f in files for shot in f["tags"] for d in shot["right"].items()]
    by_tag = {
        tag: round(float(np.mean([ok for t, ok in decisions if t == tag])), 4)
        for tag in (*TAGS, "orientation")
    }
    footage_s = sum(f.duration_s for f in media.footage)
    music_s = sum(t.duration_s for t in media.tracks)

    def speed(done: float, spent: float) -> float | None:
        return round(done / spent, 2) if spent else None

    return {
        "shot_f1": round(2 * precision * recall / (precision + recall), 4) if matched else 0.0,
        "shot_precision": round(precision, 4),
        "shot_recall": round(recall, 4),
        "cuts_truth": truth_cuts,
        "cuts_found": found,
        "tag_accuracy": round(float(np.mean([ok for _, ok in decisions])), 4),
        "tag_accuracy_by_tag": by_tag,
        "beat_f": round(float(np.mean([t["beat_f"] for t in tracks])), 4),
        "downbeat_f": round(float(np.mean([t["downbeat_f"] for t in tracks])), 4),
        "tempo_within_4pct": round(float(np.mean([t["tempo_ok"] for t in tracks])), 4),
        "tempo_within_4pct_octave": round(
            float(np.mean([t["tempo_octave_ok"] for t in tracks])), 4
        ),
        "analysis_speed_x": speed(seconds["footage_720p_s"], seconds["video_720p"]),
        "analysis_speed_x_all": speed(footage_s, seconds["video"]),
        "analysis_speed_x_cpu": speed(seconds["footage_720p_s"], seconds["cpu_720p"]),
        "analysis_speed_x_cpu_all": speed(footage_s, seconds["cpu"]),
        "music_speed_x": speed(music_s, seconds["music"]),
        "footage_files": len(media.footage),
        "footage_s": round(footage_s, 2),
        "footage_720p_s": round(seconds["footage_720p_s"], 2),
        "tracks": len(media.tracks),
        "music_s": round(music_s, 2),
    }


def _failures(files: list, tracks: list) -> dict[str, Any]:
    return {
        "cuts": {
            f["name"]: {"missed": f["missed"], "extra": f["extra"]}
            for f in files
            if f["missed"] or f["extra"]
        },
        "tags": [
            {"file": f["name"], **shot}
            for f in files
            for shot in f["tags"]
            if not all(shot["right"].values())
        ],
        "tracks": [
            t for t in tracks if t["beat_f"] < 0.9 or t["downbeat_f"] < 0.8 or not t["tempo_ok"]
        ],
    }


def run(
    *,
    media_dir: Path | None = None,
    small: bool = False,
    tracks: int = 8,
    track_seconds: float = 30.0,
    skim: bool = True,
) -> dict[str, Any]:
    """Generate (or reuse) the media under ``media_dir`` and measure every figure.

    ``small``: two footage files at a quarter of their size and two 12 s tracks."""
    calibration, load_before = calibration_us(), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as scratch:
        root = Path(media_dir) if media_dir else Path(scratch)
        options = (
            {"files": SMALL_FILES, "scale": 0.25, "tracks": 2, "track_seconds": 12.0}
            if small
            else {"tracks": tracks, "track_seconds": track_seconds}
        )
        with Progress(transient=True) as progress:
            progress.add_task("generating media", total=None)
            media = generate(root, **options)
            with one_core() as pinned:
                files, scored, seconds = _analyse(media, root, progress, skim=skim)
    return {
        **_figures(media, files, scored, seconds),
        "goals": GOALS,
        "small": small,
        "skim": skim,
        "pinned": pinned,
        "per_file": [
            {k: f[k] for k in ("name", "cuts", "found", "analysis_s", "cpu_s")} for f in files
        ],
        "per_track": scored,
        "failures": _failures(files, scored),
        "python_calibration_us": calibration,
        "load_average": {"before": list(load_before), "after": list(os.getloadavg())},
    }


def cli(
    json_path: Path = typer.Option(Path("ingest-bench.json"), "--json", help="Output file."),
    media: Path | None = typer.Option(
        None, help="Keep the generated media here (reused when unchanged); a temp dir if unset."
    ),
    small: bool = typer.Option(False, help="Two small footage files and two short tracks."),
    tracks: int = typer.Option(8, help="How many music tracks to synthesise."),
    track_seconds: float = typer.Option(30.0, help="Length of each track in seconds."),
    skim: bool = typer.Option(
        True, help="Leave out spans between alike keyframes (the planner's default)."
    ),
) -> None:
    """Measure shot, tag, beat and downbeat detection on generated media with known truth."""
    results = run(
        media_dir=media, small=small, tracks=tracks, track_seconds=track_seconds, skim=skim
    )
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps({k: v for k, v in results.items() if k not in ("per_file",)}, indent=2))
