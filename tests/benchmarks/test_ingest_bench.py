"""The ingest benchmark: metric functions on hand-made cases, the generator's truth, a tiny run."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile
from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.ingest import cpu_seconds, f_measure, match_count, prf
from benchmarks.ingest_media import FOOTAGE, _graph
from benchmarks.ingest_tracks import SR, default_specs, synthesise


def test_f_measure_counts_one_to_one_matches_like_mir_eval() -> None:
    reference = [1.0, 2.0, 3.0, 4.0]
    assert f_measure(reference, reference, 0.07) == 1.0
    # two estimates near one reference beat: only one may count
    assert match_count([0.98, 1.02], [1.0], 0.07) == 1
    found = prf([1.05, 1.95, 2.5, 3.0], reference, 0.07)
    assert found["matched"] == 3
    assert found["precision"] == pytest.approx(0.75) and found["recall"] == pytest.approx(0.75)
    assert found["f"] == pytest.approx(0.75)
    assert f_measure([1.08, 2.1], reference, 0.07) == 0.0  # just outside the window
    assert f_measure([], reference, 0.07) == 0.0 and f_measure([1.0], [], 0.07) == 0.0
    # a greedy sweep must not waste an estimate: 1.06 can only serve 1.0, 1.1 serves 1.16
    assert match_count([1.06, 1.10], [1.0, 1.16], 0.07) == 2
    assert f_measure([2.0, 1.0, 4.0, 3.0], reference, 0.07) == 1.0  # order does not matter


def test_cut_matching_allows_two_frames_either_side() -> None:
    truth = [90, 165, 255]
    assert match_count([92, 163, 255], truth, 2) == 3
    assert match_count([93, 165], truth, 2) == 1
    assert match_count([90, 91, 164, 166], truth, 2) == 2  # a doubled cut is one match, once
    counts = prf([90, 91, 165], truth, 2)
    assert counts["precision"] == pytest.approx(2 / 3) and counts["recall"] == pytest.approx(2 / 3)


def test_cpu_seconds_count_the_children_waited_for() -> None:
    before = cpu_seconds()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    assert cpu_seconds() - before > 0.05  # the child's CPU, which this process never spent


def test_the_footage_truth_covers_the_required_variety() -> None:
    truths = {spec.name: (spec, _graph(spec)) for spec in FOOTAGE}
    cuts = sum(len(g[1]) for _, g in truths.values())
    dissolves = sum(len(g[2]) for _, g in truths.values())
    assert len(truths) >= 5 and cuts >= 20 and 0 < dissolves < cuts
    assert any(s.height > s.width for s, _ in truths.values())
    assert sum(s.width == 1280 and s.height == 720 for s, _ in truths.values()) >= 4
    assert any(s.fps >= 50 for s, _ in truths.values())
    tags = {t for _, g in truths.values() for shot in g[3] for t in shot.tags}
    assert tags == {"shaky", "dark", "slowmo"}
    for _, (_, file_cuts, _, shots, frames) in truths.values():
        assert [s.start_frame for s in shots[1:]] == file_cuts
        assert shots[-1].end_frame == frames
        assert all(a.end_frame == b.start_frame for a, b in itertools.pairwise(shots))
    dissolves_ = truths["travel_dissolves"][1][2]
    assert dissolves_ == [75, 142, 288]  # a 1 s dissolve after 90 frames: its middle is 75


def test_tracks_span_the_tempi_and_styles_with_beats_on_the_grid() -> None:
    specs = default_specs()
    assert len({s.bpm for s in specs}) >= 6 and min(s.bpm for s in specs) >= 70
    assert max(s.bpm for s in specs) <= 170 and len({s.style for s in specs}) >= 2
    spec = next(s for s in specs if s.intro_s > 0)
    samples, beats, downbeats = synthesise(spec)
    assert samples.dtype == np.float32 and np.abs(samples).max() <= 1.0
    assert beats[0] == pytest.approx(spec.intro_s)
    assert np.allclose(np.diff(beats), 60.0 / spec.bpm)
    assert list(downbeats) == list(beats[::4])
    intro = np.abs(samples[: int((spec.intro_s - 0.1) * SR)])
    groove = np.abs(samples[int(spec.intro_s * SR) :])
    assert intro.max() < 0.5 * groove.max()  # the intro is a pad, not drums


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs CPU affinity")
def test_the_ingest_command_writes_every_figure(tmp_path: Path) -> None:
    import torch

    before, threads = os.sched_getaffinity(0), torch.get_num_threads()
    out = tmp_path / "ingest.json"
    result = CliRunner().invoke(
        app, ["ingest", "--small", "--media", str(tmp_path / "media"), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert os.sched_getaffinity(0) == before  # the pin is undone
    assert torch.get_num_threads() == threads
    figures = json.loads(out.read_text())
    for key in ("shot_f1", "shot_precision", "shot_recall", "tag_accuracy", "beat_f",
                "downbeat_f", "tempo_within_4pct"):  # fmt: skip
        assert 0.0 <= figures[key] <= 1.0, key
    assert figures["small"] is True and figures["footage_files"] == 2 and figures["tracks"] == 2
    assert figures["cuts_truth"] == 5 and figures["analysis_speed_x_all"] > 0
    assert figures["analysis_speed_x_cpu_all"] > 0  # footage per CPU second (ffmpeg included)
    for row in figures["per_file"]:  # ffmpeg's CPU counts: a file costs some CPU, not none
        assert row["cpu_s"] > 0, row
    assert figures["python_calibration_us"] > 0 and figures["pinned"]["opencv_threads"] == 1
    assert len(figures["load_average"]["before"]) == len(figures["load_average"]["after"]) == 3
    assert set(figures["tag_accuracy_by_tag"]) == {"shaky", "dark", "slowmo", "orientation"}
    assert {t["name"] for t in figures["per_track"]} == {s.name for s in default_specs(2, 12.0)}
    assert set(figures["failures"]) == {"cuts", "tags", "tracks"}
    assert figures["shot_f1"] >= 0.5 and figures["beat_f"] >= 0.5
    written = soundfile.info(str(tmp_path / "media" / "music" / "track01_ballad_72.wav"))
    assert written.samplerate == SR and abs(written.duration - 12.0) < 0.01
