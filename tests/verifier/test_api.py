"""The verifier's HTTP API, in process: routes, envelopes, the compiled-task cache."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.verifier.app import build_app
from services.verifier.config import VerifierSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name: str) -> tuple[dict, dict]:
    folder = EXAMPLES / name
    task = json.loads((folder / "task.json").read_text())
    timeline = json.loads((folder / "timeline.json").read_text())
    return task, timeline


@pytest.fixture
def client() -> TestClient:
    return TestClient(build_app(VerifierSettings(max_body_bytes=200_000)))


@pytest.fixture
def surf() -> tuple[dict, dict]:
    return _load("surf-reel")


def _error(response, status: int) -> dict:
    assert response.status_code == status, response.text
    return response.json()["error"]


def test_verify_answers_a_report(client: TestClient, surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    report = client.post("/v1/verify", json={"task": task, "timeline": timeline}).json()
    assert report["schema"] == "Report.1"
    assert report["executable"] and report["feasible"]
    assert 0.9 <= report["ves"] <= 1.0
    assert {c["id"] for c in report["constraints"]} == {c["id"] for c in task["ledger"]}
    assert report["duration_frames"] == round(report["duration_s"] * task["fps"])


def test_verify_reports_unmet_constraints_with_messages(client: TestClient) -> None:
    task, timeline = _load("city-night")
    report = client.post("/v1/verify", json={"task": task, "timeline": timeline}).json()
    assert report["executable"] and not report["feasible"]
    unmet = [c for c in report["constraints"] if not c["satisfied"]]
    assert unmet and all(c["message"] for c in unmet)
    assert report["components"]["H"] < 1


def test_apply_returns_the_new_timeline_and_its_report(
    client: TestClient, surf: tuple[dict, dict]
) -> None:
    task, timeline = surf
    patch = {"schema": "Patch.1", "ops": [{"op": "swap", "a": 0, "b": 1}]}
    answer = client.post("/v1/apply", json={"task": task, "timeline": timeline, "patch": patch})
    assert answer.status_code == 200
    shots = answer.json()["timeline"]["shots"]
    assert shots[0]["clip_id"] == timeline["shots"][1]["clip_id"]
    assert shots[1]["clip_id"] == timeline["shots"][0]["clip_id"]
    assert answer.json()["report"]["schema"] == "Report.1"


def test_a_rejected_patch_names_the_op_and_changes_nothing(
    client: TestClient, surf: tuple[dict, dict]
) -> None:
    task, timeline = surf
    before = copy.deepcopy(timeline)
    patch = {"ops": [{"op": "swap", "a": 0, "b": 1}, {"op": "remove", "shot": 99}]}
    error = _error(
        client.post("/v1/apply", json={"task": task, "timeline": timeline, "patch": patch}), 422
    )
    assert error["code"] == "patch_rejected"
    assert error["op_index"] == 1 and error["reason"] == "shot_out_of_range"
    assert error["param"] == "patch.ops[1].shot"
    assert timeline == before
    again = client.post("/v1/verify", json={"task": task, "timeline": timeline}).json()
    assert again["feasible"]


def test_batch_answers_one_result_per_patch_in_order(
    client: TestClient, surf: tuple[dict, dict]
) -> None:
    task, timeline = surf
    patches = [
        {"ops": [{"op": "remove", "shot": 0}]},
        {"ops": [{"op": "insert", "at": 0, "clip_id": "nope", "in_s": 0, "out_s": 1}]},
        {"ops": [{"op": "swap", "a": 0, "b": 1}]},
    ]
    body = {"task": task, "timeline": timeline, "patches": patches}
    answer = client.post("/v1/verify:batch", json=body).json()
    assert answer["base"]["feasible"]
    first, second, third = answer["results"]
    assert first["ok"] and len(first["timeline"]["shots"]) == len(timeline["shots"]) - 1
    assert not second["ok"] and second["error"]["reason"] == "unknown_clip"
    assert second["error"]["param"] == "patches[1].ops[0].clip_id"
    assert third["ok"] and third["report"]["schema"] == "Report.1"
    lean = client.post("/v1/verify:batch", json={**body, "include_timelines": False}).json()
    assert all(r["timeline"] is None for r in lean["results"])
    assert [r["report"] for r in lean["results"]] == [r["report"] for r in answer["results"]]


def test_batch_refuses_more_patches_than_configured(surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    client = TestClient(build_app(VerifierSettings(max_batch_patches=2)))
    patches = [{"ops": [{"op": "swap", "a": 0, "b": 1}]}] * 3
    body = {"task": task, "timeline": timeline, "patches": patches}
    error = _error(client.post("/v1/verify:batch", json=body), 422)
    assert error["code"] == "too_many_patches" and error["param"] == "patches"


@pytest.mark.parametrize("name", ["Task", "Timeline", "Patch", "Report", "patch"])
def test_schemas_are_json_schemas(client: TestClient, name: str) -> None:
    schema = client.get(f"/v1/schemas/{name}").json()
    assert schema["type"] == "object" and "properties" in schema


def test_unknown_schema_is_404(client: TestClient) -> None:
    assert _error(client.get("/v1/schemas/Nope"), 404)["param"] == "name"


def _bad(task: dict, timeline: dict, edit) -> tuple[dict, dict]:
    task, timeline = copy.deepcopy(task), copy.deepcopy(timeline)
    edit(task, timeline)
    return task, timeline


BAD_INPUTS = {
    "wrong task schema": (lambda t, tl: t.update(schema="Task.2"), "task.schema"),
    "wrong timeline schema": (lambda t, tl: tl.update(schema="Timeline.9"), "timeline.schema"),
    "unknown clip": (
        lambda t, tl: tl["shots"][1].update(clip_id="zz"),
        "timeline.shots[1].clip_id",
    ),
    "unknown track": (lambda t, tl: tl["music"].update(track_id="zz"), "timeline.music.track_id"),
    "negative time": (lambda t, tl: tl["shots"][0].update(in_s=-1), "timeline.shots[0].in_s"),
    "inverted times": (lambda t, tl: tl["shots"][2].update(in_s=5, out_s=4), "timeline.shots[2]"),
    "empty pool": (lambda t, tl: t.update(clips=[]), "task.clips"),
    "unknown ledger kind": (
        lambda t, tl: t["ledger"].append({"id": "X", "kind": "vibes"}),
        "task.ledger[{n}]",
    ),
    "unknown ledger parameter": (
        lambda t, tl: t["ledger"][0].update(colour="red"),
        "task.ledger[0]",
    ),
    "zero duration clip": (
        lambda t, tl: t["clips"][0].update(duration_s=0),
        "task.clips[0].duration_s",
    ),
    "fps mismatch": (lambda t, tl: tl.update(fps=25), "timeline.fps"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, surf: tuple[dict, dict], case: str
) -> None:
    edit, param = BAD_INPUTS[case]
    task, timeline = _bad(*surf, edit)
    param = param.format(n=len(task["ledger"]) - 1)
    error = _error(client.post("/v1/verify", json={"task": task, "timeline": timeline}), 422)
    assert error["param"].startswith(param), error
    assert error["message"]


def test_nan_is_rejected(client: TestClient, surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    raw = json.dumps({"task": task, "timeline": timeline})
    raw, replaced = re.subn(r'"in_s": [0-9.]+', '"in_s": NaN', raw, count=1)
    assert replaced == 1
    response = client.post("/v1/verify", content=raw, headers={"content-type": "application/json"})
    assert _error(response, 422)["code"] in {"invalid_json", "invalid_request"}


def test_malformed_json_and_non_objects(client: TestClient) -> None:
    headers = {"content-type": "application/json"}
    assert (
        _error(client.post("/v1/verify", content=b"{nope", headers=headers), 422)["code"]
        == "invalid_json"
    )
    assert (
        _error(client.post("/v1/verify", content=b"[1, 2]", headers=headers), 422)["code"]
        == "invalid_request"
    )
    missing = _error(client.post("/v1/verify", json={"timeline": {}}), 422)
    assert missing["param"] == "task"
    extra = client.post("/v1/verify", json={"task": {}, "timeline": {}, "bonus": 1})
    assert _error(extra, 422)["param"].startswith("task")


def test_an_unknown_top_level_field_is_named(client: TestClient, surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    body = {"task": task, "timeline": timeline, "bonus": 1}
    assert _error(client.post("/v1/verify", json=body), 422)["param"] == "bonus"


def test_oversized_body_is_413(client: TestClient, surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    task = {**task, "brief": {**task["brief"], "text": "x" * 250_000}}
    error = _error(client.post("/v1/verify", json={"task": task, "timeline": timeline}), 413)
    assert error["code"] == "payload_too_large"


def test_the_task_cache_compiles_each_task_once(surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    app = build_app(VerifierSettings(task_cache_size=4))
    client = TestClient(app)
    body = {"task": task, "timeline": timeline}
    first = client.post("/v1/verify", json=body).json()
    second = client.post("/v1/verify", json=body).json()
    assert first == second
    cache = app.state.task_cache
    assert (cache.misses, cache.hits) == (1, 1)
    changed = copy.deepcopy(task)
    changed["ledger"][0] = {
        "id": changed["ledger"][0]["id"],
        "kind": "duration",
        "min_s": 100,
        "max_s": 200,
    }
    third = client.post("/v1/verify", json={"task": changed, "timeline": timeline}).json()
    assert cache.misses == 2 and not third["feasible"]


def test_an_invalid_task_is_not_cached(client: TestClient, surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    broken = {**task, "fps": 0}
    for _ in range(2):
        error = _error(client.post("/v1/verify", json={"task": broken, "timeline": timeline}), 422)
        assert error["param"] == "task.fps"
    assert client.app.state.task_cache.hits == 0


def test_api_keys_guard_the_routes(surf: tuple[dict, dict]) -> None:
    task, timeline = surf
    client = TestClient(build_app(VerifierSettings(api_keys=["k1"])))
    body = {"task": task, "timeline": timeline}
    assert _error(client.post("/v1/verify", json=body), 401)["code"] == "unauthorized"
    ok = client.post("/v1/verify", json=body, headers={"Authorization": "Bearer k1"})
    assert ok.status_code == 200
    assert client.get("/healthz").json()["service"] == "verifier"


def test_openapi_documents_the_request_bodies(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    post = document["paths"]["/v1/verify"]["post"]
    ref = post["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schemas = document["components"]["schemas"]
    body = schemas[ref.rsplit("/", 1)[-1]]
    assert {"task", "timeline"} <= set(body["properties"])
    task = schemas[body["properties"]["task"]["$ref"].rsplit("/", 1)[-1]]
    assert "clips" in task["properties"]  # every model the body uses resolves in the document
    error = post["responses"]["422"]["content"]["application/json"]["schema"]["$ref"]
    assert error.endswith("/ErrorOut")
