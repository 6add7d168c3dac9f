"""The verifier's API fuzzed from its own OpenAPI document (schemathesis, in process).

Valid and invalid bodies are generated from the documented schemas; every answer must be
no 5xx, a documented status code, and match the documented schema (the envelope for 4xx).
Generation is derandomised, so a run is the same run in CI and here.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, event, settings

from services.verifier.app import build_app
from services.verifier.config import VerifierSettings
from tests.fuzzing import CHECKS, unbounded_integers

EXAMPLES = 60

schema = schemathesis.openapi.from_asgi("/openapi.json", build_app(VerifierSettings()))


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


def test_every_integer_a_request_carries_is_bounded_for_the_database() -> None:
    assert unbounded_integers(schema.raw_schema) == []
