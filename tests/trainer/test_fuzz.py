"""Schemathesis drives every trainer operation in process: no 5xx, only documented status
codes, and every answer matching its documented schema and content type.

The app serves the API only (no training worker), with an empty upstream allow-list, file
sources confined to an empty folder, and planner/synth clients on an in-process transport
that answers an empty record page, so nothing the fuzzer sends trains a model or leaves the
process. Generation is derandomised (the same examples on every run) and bounded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient

from clients.planner import PlannerClient
from clients.synth import SynthClient
from services.trainer.app import build_app
from services.trainer.config import TrainerSettings
from tests.fuzzing import CHECKS, FUZZ_SETTINGS, Tally, unbounded_integers

UPSTREAM_CALLS: list[str] = []


def _empty_upstream(request: httpx.Request) -> httpx.Response:
    UPSTREAM_CALLS.append(f"{request.method} {request.url.path}")
    if request.url.path == "/v1/records":
        return httpx.Response(200, content=b"", headers={"X-Next-Cursor": "0"})
    return httpx.Response(404, json={"error": {"code": "not_found", "message": "none"}})


@pytest.fixture(scope="module")
def trainer_schema(tmp_path_factory: pytest.TempPathFactory) -> schemathesis.BaseSchema:
    folder: Path = tmp_path_factory.mktemp("trainer-fuzz")
    (folder / "sources").mkdir()
    config = TrainerSettings(
        data_dir=folder,
        database_url=f"sqlite:///{folder / 'trainer.db'}",
        log_level="CRITICAL",
        planner_url="http://planner.invalid",
        synth_url="http://synth.invalid",
        allowed_upstreams=[],
        source_roots=[folder / "sources"],
        max_episodes=8,
    )
    transport = httpx.MockTransport(_empty_upstream)
    planner = PlannerClient("http://planner.invalid", transport=transport, max_retries=0)
    synth = SynthClient("http://synth.invalid", transport=transport, max_retries=0)
    app = build_app(config, planner=planner, synth=synth, worker=False)
    with TestClient(app):  # creates the tables
        pass
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("trainer_schema")
TALLY = Tally()


@pytest.fixture(scope="module", autouse=True)
def _summary() -> Iterator[None]:
    yield
    print("\ntrainer fuzzing: " + TALLY.summary())


@schema.parametrize()
@FUZZ_SETTINGS
def test_trainer_api_holds_under_fuzzing(case: schemathesis.Case) -> None:
    response = case.call_and_validate(checks=CHECKS)
    TALLY.add(case.operation.label, response.status_code)
    assert all(call.endswith("/v1/records") for call in UPSTREAM_CALLS)


def test_every_integer_a_request_carries_is_bounded_for_the_database(
    trainer_schema: schemathesis.BaseSchema,
) -> None:
    assert unbounded_integers(trainer_schema.raw_schema) == []
