"""The end-to-end harness: the shoot's truth, and a short run from footage to a rendered cut."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from benchmarks.__main__ import app
from benchmarks.endtoend import FULL, SHORT
from benchmarks.endtoend_media import shoot_specs
from benchmarks.ingest_media import _graph


def test_the_full_shoot_is_ten_minutes_of_720p_with_every_kind_of_shot() -> None:
    specs = shoot_specs(FULL.files, FULL.file_s)
    graphs = [_graph(spec) for spec in specs]
    assert len(specs) >= 20
    assert sum(g[4] for g in graphs) / 30 >= 600  # frames at 30 fps: ten minutes
    assert all(min(s.width, s.height) == 720 for s in specs)
    assert any(s.height > s.width for s in specs) and any(s.width > s.height for s in specs)
    looks = {seg.look for s in specs for seg in s.segments}
    assert looks == {"plain", "handheld", "dark"}
    assert sum(len(g[2]) for g in graphs) >= 10  # dissolves
    assert sum(len(g[1]) for g in graphs) >= 60  # cuts, dissolves among them
    names = " ".join(s.name for s in specs)
    assert "beach" in names and "surf" in names and "sunset" in names  # what the brief asks
    assert specs == shoot_specs(FULL.files, FULL.file_s)  # the same shoot every time


def test_a_short_run_goes_from_footage_to_a_rendered_cut(tmp_path: Path) -> None:
    out = tmp_path / "endtoend.json"
    result = CliRunner().invoke(
        app,
        ["endtoend", "--short", "--media", str(tmp_path / "media"), "--json", str(out),
         "--relevance", "tfidf"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert figures["footage_files"] == SHORT.files
    assert figures["footage_s"] == SHORT.files * SHORT.file_s
    parts = sum(figures[k] for k in ("analyze_s", "compile_s", "plan_s", "render_s"))
    assert 0 < parts <= figures["total_s"]
    assert figures["cuts_truth"] >= SHORT.files
    assert figures["shot_f1"] >= 0.8 and figures["beat_f"] >= 0.8
    assert figures["feasible"] and figures["ves"] > 0.5
    assert SHORT.cut_s[0] <= figures["cut_s"] <= SHORT.cut_s[1]
    assert abs(figures["render_duration_error_s"]) < 0.2
    assert figures["cpu_s"] > 0 and figures["peak_rss_mb"] > 50
    assert figures["python_calibration_us"] > 0 and figures["ready_s"] >= 0
