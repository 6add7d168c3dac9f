"""A round judged in as many ``verify:batch`` calls as the verifier's work cap needs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.planner.judging import judge, pack
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from services.verifier.limits import Limits

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _patch(ops: int) -> dict:
    return {"ops": [{"op": "noop"}] * ops}


def test_pack_keeps_order_and_every_call_within_the_caps() -> None:
    patches = [_patch(n) for n in (1, 3, 2, 9, 1, 1)]
    groups = pack(10, patches, Limits(work=60, patches=2))
    assert groups == [[0, 1], [2, 4], [5]]  # patch 3 alone costs 10 × 10 > 60
    for group in groups:
        assert len(group) <= 2
        assert 10 * sum(1 + len(patches[i]["ops"]) for i in group) <= 60


def test_pack_puts_a_whole_round_in_one_call_when_it_fits() -> None:
    assert pack(5, [_patch(2)] * 4, Limits()) == [[0, 1, 2, 3]]


@pytest.fixture
def tight(tmp_path: Path, database_url: str) -> Iterator[tuple[TestClient, list[int]]]:
    """A planner and a verifier that share a work cap too small for one round in one call."""
    task = json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())
    work = 100  # a few patches per call on a draft of a handful of shots
    verifier_app = build_verifier(VerifierSettings(max_shot_work=work))
    calls: list[int] = []

    def count(request: object) -> None:
        if str(request.url).endswith("/v1/verify:batch"):  # type: ignore[attr-defined]
            calls.append(len(json.loads(request.content)["patches"]))  # type: ignore[attr-defined]

    http = TestClient(verifier_app)
    http.event_hooks["request"].append(count)
    verifier = VerifierClient(http_client=http)
    settings = PlannerSettings(
        data_dir=tmp_path, database_url=database_url, media_root=tmp_path, max_shot_work=work
    )
    with TestClient(build_app(settings, verifier=verifier)) as client:
        client.task = task  # type: ignore[attr-defined]
        yield client, calls


def test_a_round_past_the_work_cap_is_judged_in_several_calls(
    tight: tuple[TestClient, list[int]],
) -> None:
    planner, calls = tight
    body = {"task": planner.task, "options": {"max_rounds": 2, "candidates": 16}}  # type: ignore[attr-defined]
    answer = planner.post("/v1/plan", json=body)
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    assert all(branch["error"] is None for branch in plan["branches"])
    assert plan["rounds"], "the loop judged its rounds"
    assert len(calls) > len(plan["rounds"])  # at least one round needed more than one call
    assert plan["ves"] >= plan["draft_ves"]


def test_a_patch_past_the_cap_alone_is_rejected_without_being_sent() -> None:
    task = json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())
    timeline = json.loads((EXAMPLES / "surf-reel" / "timeline.json").read_text())
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    patch = {"schema": "Patch.1", "ops": [{"op": "remove", "shot": 0}] * 50}
    answer = judge(verifier, task, timeline, [patch], Limits(work=10), timeout=None)
    assert answer.base.ves > 0
    [result] = answer.results
    assert not result.ok and result.error is not None
    assert result.error["code"] == "limit_exceeded"
    assert result.error["param"] == "patches[0].ops"


def test_a_patch_that_is_not_patch_1_is_rejected_alone_and_the_others_are_judged() -> None:
    task = json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())
    timeline = json.loads((EXAMPLES / "surf-reel" / "timeline.json").read_text())
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    good = {"schema": "Patch.1", "ops": [{"op": "remove", "shot": 0}]}
    zero = {"schema": "Patch.1", "ops": [{"op": "fit_duration", "target_s": 0.0}]}
    answer = judge(verifier, task, timeline, [good, zero, good], Limits(), timeout=None)
    first, bad, last = answer.results
    assert first.ok and last.ok and first.report is not None
    assert not bad.ok and bad.report is None and bad.error is not None
    assert bad.error["code"] == "invalid_patch"
    assert bad.error["param"] == "patches[1].ops[0].fit_duration.target_s"
    assert "greater than 0" in bad.error["message"]


def test_a_patch_without_ops_is_rejected_alone() -> None:
    task = json.loads((EXAMPLES / "surf-reel" / "task.json").read_text())
    timeline = json.loads((EXAMPLES / "surf-reel" / "timeline.json").read_text())
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    good = {"schema": "Patch.1", "ops": [{"op": "remove", "shot": 0}]}
    answer = judge(verifier, task, timeline, [{"schema": "Patch.1"}, good], Limits(), timeout=None)
    bad, judged = answer.results
    assert judged.ok
    assert not bad.ok and bad.error is not None and bad.error["code"] == "invalid_patch"
    assert bad.error["param"] == "patches[0].ops"
