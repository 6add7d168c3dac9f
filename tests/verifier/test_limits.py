"""Caps and bounds on the wire: lists past a setting, numbers past what the domain allows,
booleans where numbers belong. Each is a 422 naming the field; nothing is compiled."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.verifier.app import build_app
from services.verifier.config import VerifierSettings
from services.verifier.limits import LimitExceeded, Limits

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SWAP = {"ops": [{"op": "swap", "a": 0, "b": 1}]}


@pytest.fixture(scope="module")
def surf() -> tuple[dict, dict]:
    folder = EXAMPLES / "surf-reel"
    return (
        json.loads((folder / "task.json").read_text()),
        json.loads((folder / "timeline.json").read_text()),
    )


def _error(response, status: int = 422) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json()["error"]


@pytest.mark.parametrize(
    ("settings", "edit", "param", "route"),
    [
        ({"max_clips": 11}, lambda t, tl: None, "task.clips", "/v1/verify"),
        ({"max_shots": 3}, lambda t, tl: None, "timeline.shots", "/v1/verify"),
        ({"max_ledger": 2}, lambda t, tl: None, "task.ledger", "/v1/verify"),
        ({"max_beats": 10}, lambda t, tl: None, "task.music[0].beats_s", "/v1/verify"),
        (
            {"max_music_tracks": 1},
            lambda t, tl: t["music"].append({**t["music"][0], "id": "m02"}),
            "task.music",
            "/v1/verify",
        ),
        ({"max_patch_ops": 1}, None, "patch.ops", "/v1/apply"),
        ({"max_patch_ops": 1}, None, "patches[0].ops", "/v1/verify:batch"),
    ],
)
def test_a_list_past_its_cap_is_refused_naming_it(surf, settings, edit, param, route) -> None:
    task, timeline = copy.deepcopy(surf)
    if edit is not None:
        edit(task, timeline)
    body: dict[str, Any] = {"task": task, "timeline": timeline}
    if route == "/v1/apply":
        body["patch"] = {"ops": [SWAP["ops"][0]] * 2}
    elif route == "/v1/verify:batch":
        body["patches"] = [{"ops": [SWAP["ops"][0]] * 2}]
    client = TestClient(build_app(VerifierSettings(**settings)))
    error = _error(client.post(route, json=body))
    assert error["code"] == "limit_exceeded" and error["param"] == param
    assert client.app.state.task_cache.misses == 0  # refused before compiling


def test_caps_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFINERY_MAX_SHOTS", "7")
    monkeypatch.setenv("REFINERY_MAX_CLIPS", "9")
    limits = VerifierSettings().limits()
    assert (limits.shots, limits.clips) == (7, 9)
    with pytest.raises(LimitExceeded) as raised:
        limits.check_request({"task": {"clips": [{}] * 10}})
    assert raised.value.param == "task.clips"


def test_lists_that_are_not_lists_are_left_to_the_models() -> None:
    Limits(clips=1).check_request({"task": {"clips": "many"}, "timeline": 3, "patches": {}})


NUMBERS = [
    ("task.clips[0].duration_s", lambda t, tl: t["clips"][0].update(duration_s=1e308)),
    ("task.clips[0].duration_s", lambda t, tl: t["clips"][0].update(duration_s=86_401)),
    ("task.clips[0].duration_s", lambda t, tl: t["clips"][0].update(duration_s=True)),
    ("task.clips[0].duration_s", lambda t, tl: t["clips"][0].update(duration_s="8")),
    ("task.clips[0].quality", lambda t, tl: t["clips"][0].update(quality=False)),
    ("task.fps", lambda t, tl: t.update(fps=False)),
    ("task.fps", lambda t, tl: t.update(fps=30.5)),
    ("task.ledger[0].duration.hard", lambda t, tl: t["ledger"][0].update(hard=0)),
    ("task.fps", lambda t, tl: t.update(fps=241)),
    ("task.music[0].bpm", lambda t, tl: t["music"][0].update(bpm=1e9)),
    ("task.music[0].beats_s[0]", lambda t, tl: t["music"][0]["beats_s"].__setitem__(0, 1e300)),
    ("task.ledger[0].duration.weight", lambda t, tl: t["ledger"][0].update(weight=1e300)),
    ("task.ledger[0].duration.hard", lambda t, tl: t["ledger"][0].update(hard=[])),
    ("timeline.shots[0].out_s", lambda t, tl: tl["shots"][0].update(out_s=1e18)),
    ("timeline.shots[0].in_s", lambda t, tl: tl["shots"][0].update(in_s=False)),
    ("timeline.fps", lambda t, tl: tl.update(fps=True)),
    ("timeline.music.offset_s", lambda t, tl: tl["music"].update(offset_s=1e12)),
]


def _ledger_index(task: dict, kind: str) -> int:
    return next(i for i, c in enumerate(task["ledger"]) if c["kind"] == kind)


@pytest.mark.parametrize(
    ("param", "edit"), NUMBERS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(NUMBERS)]
)
def test_a_number_out_of_bounds_or_not_a_number_is_a_422(surf, param, edit) -> None:
    task, timeline = copy.deepcopy(surf)
    edit(task, timeline)
    client = TestClient(build_app(VerifierSettings()))
    error = _error(client.post("/v1/verify", json={"task": task, "timeline": timeline}))
    assert error["param"] == param


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        ("beat_alignment", "tolerance_s", 11),
        ("end_on_downbeat", "tolerance_s", 1e6),
        ("no_reuse", "max_uses", True),
        ("no_reuse", "max_uses", 10**6),
        ("transitions", "max_count", 2.5),
        ("transitions", "hard", 0),
        ("coverage", "hard", "true"),
        ("duration", "min_s", False),
    ],
)
def test_ledger_numbers_are_strict_and_bounded(surf, kind: str, field: str, value) -> None:
    task, timeline = copy.deepcopy(surf)
    index = _ledger_index(task, kind)
    task["ledger"][index][field] = value
    client = TestClient(build_app(VerifierSettings()))
    error = _error(client.post("/v1/verify", json={"task": task, "timeline": timeline}))
    assert error["param"].startswith(f"task.ledger[{index}]")


def test_whole_numbers_serve_as_integers_as_json_schema_says(surf) -> None:
    task, timeline = copy.deepcopy(surf)
    task["fps"] = 30.0
    task["ledger"][_ledger_index(task, "transitions")]["max_count"] = 2.0
    client = TestClient(build_app(VerifierSettings()))
    response = client.post("/v1/verify", json={"task": task, "timeline": timeline})
    assert response.status_code == 200, response.text
    assert response.json()["fps"] == 30


def test_integers_still_serve_as_seconds(surf) -> None:
    task, timeline = copy.deepcopy(surf)
    task["clips"][0]["duration_s"] = 12
    timeline["shots"][0].update(in_s=1, out_s=3)
    client = TestClient(build_app(VerifierSettings()))
    response = client.post("/v1/verify", json={"task": task, "timeline": timeline})
    assert response.status_code == 200, response.text


def test_a_patch_index_past_any_timeline_is_a_422(surf) -> None:
    task, timeline = surf
    client = TestClient(build_app(VerifierSettings()))
    body = {
        "task": task,
        "timeline": timeline,
        "patch": {"ops": [{"op": "remove", "shot": 10**30}]},
    }
    error = _error(client.post("/v1/apply", json=body))
    assert error["param"] == "patch.ops[0].remove.shot"


def test_a_wide_tolerance_on_a_dense_grid_is_judged_without_listing_frames(surf) -> None:
    task, timeline = copy.deepcopy(surf)
    track = task["music"][0]
    track["beats_s"] = [round(i * 0.002, 3) for i in range(20_000)]
    task["ledger"][_ledger_index(task, "beat_alignment")]["tolerance_s"] = 10
    client = TestClient(build_app(VerifierSettings()))
    report = client.post("/v1/verify", json={"task": task, "timeline": timeline}).json()
    rule = next(c for c in report["constraints"] if c["kind"] == "beat_alignment")
    assert rule["satisfied"] and report["components"]["rubric"]["beats"] == 1.0


def test_a_batch_whose_work_passes_the_cap_is_refused(surf) -> None:
    task, timeline = copy.deepcopy(surf)
    shots = len(timeline["shots"])
    client = TestClient(build_app(VerifierSettings(max_shot_work=shots * 4)))
    fits = {"task": task, "timeline": timeline, "patches": [SWAP, SWAP]}  # 2 patches + 2 ops
    assert client.post("/v1/verify:batch", json=fits).status_code == 200
    body = {**fits, "patches": [SWAP, SWAP, SWAP]}
    error = _error(client.post("/v1/verify:batch", json=body))
    assert error["code"] == "limit_exceeded" and error["param"] == "patches"
    assert error["count"] == shots * 6 and "REFINERY_MAX_SHOT_WORK" in error["message"]


def test_an_apply_whose_ops_pass_the_work_cap_is_refused(surf) -> None:
    task, timeline = copy.deepcopy(surf)
    shots = len(timeline["shots"])
    client = TestClient(build_app(VerifierSettings(max_shot_work=shots * 3)))
    patch = {"ops": [SWAP["ops"][0]] * 3}
    error = _error(
        client.post("/v1/apply", json={"task": task, "timeline": timeline, "patch": patch})
    )
    assert error["param"] == "patch.ops" and error["limit"] == shots * 3


def test_thousands_of_invalid_items_answer_a_bounded_envelope(surf) -> None:
    task, timeline = copy.deepcopy(surf)
    task["music"][0]["beats_s"] = [-1.0] * 10_000
    client = TestClient(build_app(VerifierSettings()))
    error = _error(client.post("/v1/verify", json={"task": task, "timeline": timeline}))
    assert error["param"] == "task.music[0].beats_s[0]"
    assert "(and 9999 more)" in error["message"]
    assert len(error["details"]) == 50 and error["details_omitted"] == 9_950
