"""Schemathesis drives every synth operation in process: no 5xx, only documented status
codes, and every answer matching its documented schema and content type.

The app runs with no LLM configured, an empty upstream allow-list and no worker threads,
so nothing the fuzzer sends starts a real job or leaves the process. Generation is
derandomised (the same examples on every run) and bounded per operation.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient

from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.fuzzing import (
    CHECKS,
    FUZZ_SETTINGS,
    Tally,
    assert_oversized_ints_refused,
    unbounded_integers,
)


@pytest.fixture(scope="module")
def synth_schema(tmp_path_factory: pytest.TempPathFactory) -> schemathesis.BaseSchema:
    folder: Path = tmp_path_factory.mktemp("synth-fuzz")
    config = SynthSettings(
        data_dir=folder,
        database_url=f"sqlite:///{folder / 'synth.db'}",
        log_level="CRITICAL",
        synth_workers=0,
        synth_max_n=50,
        llm_base_url=None,
        llm_model=None,
        allowed_upstreams=[],
    )
    app = build_app(config)
    with TestClient(app):  # creates the tables
        pass
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("synth_schema")
TALLY = Tally()


@pytest.fixture(scope="module", autouse=True)
def _summary() -> Iterator[None]:
    yield
    print("\nsynth fuzzing: " + TALLY.summary())


@schema.parametrize()
@FUZZ_SETTINGS
def test_synth_api_holds_under_fuzzing(case: schemathesis.Case) -> None:
    response = case.call_and_validate(checks=CHECKS)
    TALLY.add(case.operation.label, response.status_code)


def test_every_integer_a_request_carries_is_bounded_for_the_database(
    synth_schema: schemathesis.BaseSchema,
) -> None:
    assert unbounded_integers(synth_schema.raw_schema) == []


def test_an_integer_past_any_database_column_is_a_422_naming_it(
    synth_schema: schemathesis.BaseSchema,
) -> None:
    assert_oversized_ints_refused(synth_schema)
