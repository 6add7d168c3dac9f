"""docs/ves.md's worked example: its two JSON blocks give exactly the numbers the doc states."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from protocol.verifier import ReportOut, TaskIn, TimelineIn
from services.verifier.score import Verifier

DOC = Path(__file__).resolve().parents[2] / "docs" / "ves.md"


@pytest.fixture(scope="module")
def report() -> ReportOut:
    text = DOC.read_text(encoding="utf-8")
    example = text[text.index("## Worked example") :]
    task_json, timeline_json = re.findall(r"```json\n(.*?)```", example, re.S)[:2]
    task = TaskIn.model_validate(json.loads(task_json)).to_task()
    timeline = TimelineIn.model_validate(json.loads(timeline_json)).to_timeline(task)
    return ReportOut.from_domain(Verifier(task).verify(timeline))


def test_components(report):
    c = report.components
    assert (c.E, c.H, c.S, c.Q) == (1, 1.0, 0.6, 0.7679)
    assert c.rubric == {"relevance": 0.5714, "beats": 0.5, "pacing": 1.0, "variety": 1.0}


def test_ves_and_verdict(report):
    assert report.ves == 0.8736
    assert report.executable and report.feasible
    assert (report.duration_s, report.duration_frames) == (6.2, 186)


def test_constraint_scores_and_messages(report):
    by_id = {c.id: c for c in report.constraints}
    assert by_id["L1"].satisfied and by_id["L2"].satisfied
    assert (by_id["L3"].satisfied, by_id["L3"].score) == (False, 0.5)
    assert (by_id["L4"].satisfied, by_id["L4"].score) == (False, 0.8)
    assert by_id["L3"].message == (
        "1 of 2 cuts (50%) lie within 0.1 s of a beat; needs 100%: snap_to_beats"
    )
    assert by_id["L4"].message == (
        "timeline ends 0.3 s from the nearest downbeat; needs ≤ 0.1 s: change the length by ≥ 0.2 s"
    )
