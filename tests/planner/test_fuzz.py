"""The planner's API fuzzed from its own OpenAPI document (schemathesis, in process).

The planner runs for real (SQLite, its lifespan, the search proposer) with a real verifier
behind it in process. Plans are the slow part, so the fuzzed app allows few rounds and
candidates: larger options are documented 422s. Generation is derandomised.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, settings

from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from tests.fuzzing import CHECKS, assert_oversized_ints_refused, unbounded_integers

EXAMPLES = 40


@pytest.fixture(scope="module")
def planner_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    folder = tmp_path_factory.mktemp("planner-fuzz")
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    config = PlannerSettings(
        data_dir=folder / "data",
        media_root=folder,
        relevance="tfidf",
        max_rounds_limit=8,
        max_candidates_limit=8,
        max_teachers=2,
    )
    app = build_app(config, verifier=verifier)
    with TestClient(app):  # the lifespan: tables, the render worker
        yield schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("planner_schema")


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_answers_as_documented(case: schemathesis.Case) -> None:
    response = case.call_and_validate(checks=CHECKS)
    event(f"status {response.status_code}")


def test_every_integer_a_request_carries_is_bounded_for_the_database(
    planner_schema: schemathesis.BaseSchema,
) -> None:
    assert unbounded_integers(planner_schema.raw_schema) == []


def test_an_integer_past_any_database_column_is_a_422_naming_it(
    planner_schema: schemathesis.BaseSchema,
) -> None:
    assert_oversized_ints_refused(planner_schema)
