"""Hostile requests, in process: each is refused with a 4xx naming the field (or answered,
when valid) within a bounded memory. ``python -m benchmarks attacks`` times them over HTTP."""

from __future__ import annotations

import tracemalloc

import pytest
from fastapi.testclient import TestClient

from benchmarks.attacks import Attack, attacks
from services.verifier.app import build_app
from services.verifier.config import VerifierSettings

MiB = 1024 * 1024
PARAMS = {
    "no_reuse_10000_shots": "timeline.shots",
    "no_reuse_100000_shots": "timeline.shots",
    "clips_100000 verify": "task.clips",
    "duration_1e308 /v1/verify": "task.clips[0].duration_s",
    "duration_1e308 /v1/apply": "task.clips[0].duration_s",
    "duration_1e308 /v1/verify:batch": "task.clips[0].duration_s",
    "out_s_1e18": "timeline.shots[0].out_s",
    "batch 2000 shots × 256 patches": "patches",
    "nesting_500 verify": "task",
    "nesting_1023 verify": "task",
    "fps_false": "task.fps",
}
VERIFIER_ATTACKS = [a for a in attacks() if a.service == "verifier"]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(build_app(VerifierSettings()))


def post_traced(client: TestClient, attack: Attack) -> tuple[object, int]:
    """The response and the peak memory traced while it was served."""
    body = attack.body()
    tracemalloc.start()
    try:
        response = client.post(
            attack.path, content=body, headers={"content-type": "application/json"}
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return response, peak


@pytest.mark.parametrize("attack", VERIFIER_ATTACKS, ids=lambda a: a.name)
def test_attack_is_answered_within_bounded_memory(client: TestClient, attack: Attack) -> None:
    response, peak = post_traced(client, attack)
    assert response.status_code == attack.expect, response.text[:500]
    assert peak < 100 * MiB
    if attack.expect != 200:
        error = response.json()["error"]
        assert error["param"] == PARAMS[attack.name]
        assert error["message"]


def test_the_shot_cap_names_the_limit_and_its_setting(client: TestClient) -> None:
    attack = next(a for a in VERIFIER_ATTACKS if a.name == "no_reuse_10000_shots")
    response, _ = post_traced(client, attack)
    error = response.json()["error"]
    assert error["code"] == "limit_exceeded"
    assert error["limit"] == 2_000 and error["count"] == 10_000
    assert "REFINERY_MAX_SHOTS" in error["message"]


def test_the_report_at_the_shot_cap_is_bounded(client: TestClient) -> None:
    attack = next(a for a in VERIFIER_ATTACKS if a.expect == 200)
    response, _ = post_traced(client, attack)
    no_reuse = next(c for c in response.json()["constraints"] if c["kind"] == "no_reuse")
    assert no_reuse["violation"] == 1_999 + 2_000 * 1_999 // 2
    assert len(no_reuse["message"]) < 400 and "more)" in no_reuse["message"]
