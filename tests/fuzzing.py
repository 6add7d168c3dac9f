"""What the fuzz tests (tests/*/test_fuzz.py) check on every answer, and how many examples
each operation gets.

Every schemathesis check runs here except ``positive_data_acceptance`` (the services answer
422 for schema-valid requests that break a rule no schema states: a settings cap, a media
URI outside the root, an unconfigured LLM; see docs/experiments/fuzz.md), the
stateful ``use_after_free`` and ``ensure_resource_availability``, and ``ignored_auth`` (the
fuzzed apps run without keys; tests/common/test_app.py covers auth).
``python -m benchmarks fuzz`` runs them all (``st run --checks all``) against live servers.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    missing_required_header,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
    missing_required_header,
    unsupported_method,
    allow_header_conformance,
]
EXAMPLES = 60
"""Examples per operation and generation mode (positive and negative), besides the
schema's explicit examples and the coverage phase."""

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
"""Hypothesis settings every fuzz module uses: bounded, derandomised for stable CI."""


class Tally:
    """Answers seen per operation and status, for the summary a fuzz module prints (``-s``)."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, int]] = Counter()

    def add(self, label: str, status: int) -> None:
        self.seen[(label, status)] += 1

    def summary(self) -> str:
        operations = sorted({label for label, _ in self.seen})
        lines = [f"{len(operations)} operations, {sum(self.seen.values())} requests"]
        for label in operations:
            codes = {s: n for (lab, s), n in sorted(self.seen.items()) if lab == label}
            lines.append(f"  {label}: {codes}")
        errors = sum(n for (_, s), n in self.seen.items() if s >= 500)
        lines.append(f"server errors: {errors}")
        return "\n".join(lines)
