"""``refinery verify`` through CliRunner, against a real uvicorn serving the verifier."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import clients.base
from clients.cli import app

runner = CliRunner()


def _files(tmp_path: Path, task: Any, timeline: Any) -> tuple[str, str]:
    task_path, timeline_path = tmp_path / "task.json", tmp_path / "timeline.json"
    task_path.write_text(task if isinstance(task, str) else json.dumps(task))
    timeline_path.write_text(timeline if isinstance(timeline, str) else json.dumps(timeline))
    return str(task_path), str(timeline_path)


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.delenv("REFINERY_API_KEY", raising=False)
    monkeypatch.setattr(clients.base, "RETRY_BASE_DELAY", 0.0)


def test_feasible_exits_0_with_the_report(
    tmp_path: Path, live_url: str, task: dict, timeline: dict
) -> None:
    result = runner.invoke(app, ["verify", *_files(tmp_path, task, timeline), "--url", live_url])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "FEASIBLE" in out and "NOT FEASIBLE" not in out
    assert re.search(r"VES [01]\.\d{3}", out) and "duration 6.00 s (180 frames @ 30 fps)" in out
    for constraint_id, kind in (("L1", "duration"), ("L2", "must_include"), ("L3", "shot_length")):
        assert constraint_id in out and kind in out
    assert "components  E 1  H 1.00  S 1.00" in out
    assert "execution errors" not in out


def test_infeasible_exits_1_and_shows_failures(
    tmp_path: Path, live_url: str, task: dict, bad_timeline: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFINERY_VERIFIER_URL", live_url)  # no --url: the env decides
    result = runner.invoke(app, ["verify", *_files(tmp_path, task, bad_timeline)])
    assert result.exit_code == 1, result.output
    assert "NOT FEASIBLE" in result.output
    assert "✗" in result.output and "soft" in result.output
    assert "H 0.00" in result.output


def test_exec_errors_are_listed(tmp_path: Path, live_url: str, task: dict, timeline: dict) -> None:
    timeline["shots"][1]["out_s"] = 9.0  # c2 is only 4 s long
    result = runner.invoke(app, ["verify", *_files(tmp_path, task, timeline), "--url", live_url])
    assert result.exit_code == 1
    assert "executable ✗" in result.output
    assert "execution errors" in result.output and "shot 1" in result.output


def test_json_prints_the_raw_report(
    tmp_path: Path, live_url: str, task: dict, timeline: dict
) -> None:
    result = runner.invoke(
        app, ["verify", *_files(tmp_path, task, timeline), "--url", live_url, "--json"]
    )
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["schema"] == "Report.1" and report["feasible"] is True
    assert [c["id"] for c in report["constraints"]] == ["L1", "L2", "L3"]


def test_unreachable_verifier_exits_2(
    tmp_path: Path, free_port: int, task: dict, timeline: dict
) -> None:
    url = f"http://127.0.0.1:{free_port}"
    result = runner.invoke(app, ["verify", *_files(tmp_path, task, timeline), "--url", url])
    assert result.exit_code == 2
    assert f"verifier not reachable at {url}" in result.output
    assert "refinery up" in result.output


def test_rejected_input_exits_2_naming_the_field(
    tmp_path: Path, live_url: str, task: dict, timeline: dict
) -> None:
    timeline["shots"][0]["clip_id"] = "nope"
    result = runner.invoke(app, ["verify", *_files(tmp_path, task, timeline), "--url", live_url])
    assert result.exit_code == 2
    assert "unknown_reference" in result.output and "timeline.shots[0].clip_id" in result.output


@pytest.mark.parametrize(
    ("task_text", "expected"),
    [
        ("{not json", "is not valid JSON"),
        (None, "cannot read"),
    ],
)
def test_bad_files_exit_2(
    tmp_path: Path, live_url: str, timeline: dict, task_text: str | None, expected: str
) -> None:
    task_path, timeline_path = _files(tmp_path, task_text or "{}", timeline)
    if task_text is None:
        Path(task_path).unlink()
    result = runner.invoke(app, ["verify", task_path, timeline_path, "--url", live_url])
    assert result.exit_code == 2
    assert expected in result.output


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*/task.json"))


@pytest.mark.parametrize("task_path", EXAMPLES, ids=[p.parent.name for p in EXAMPLES])
def test_examples_exit_code_matches_feasibility(live_url: str, task_path: Path) -> None:
    files = [str(task_path), str(task_path.with_name("timeline.json"))]
    as_json = runner.invoke(app, ["verify", *files, "--url", live_url, "--json"])
    report = json.loads(as_json.output)
    assert as_json.exit_code == (0 if report["feasible"] else 1)
    shown = runner.invoke(app, ["verify", *files, "--url", live_url])
    assert shown.exit_code == as_json.exit_code
    for constraint in report["constraints"]:
        assert constraint["id"] in shown.output
