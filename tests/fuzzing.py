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
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, settings
from schemathesis import BaseSchema, Case
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

from protocol.common import MAX_DB_INT

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


OVERSIZED_INTS = (MAX_DB_INT + 1, 20942121842314727424)
"""Integers no database column holds (the second one once answered 500 on the planner)."""


def unbounded_integers(raw: dict[str, Any]) -> list[str]:
    """Every integer a request may carry (query, path, header, body) whose schema lets it
    pass :data:`MAX_DB_INT`, as ``"<method> <path> <where>"``."""
    found: list[str] = []
    components = raw.get("components", {}).get("schemas", {})
    for path, item in raw.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            label = f"{method.upper()} {path}"
            for param in operation.get("parameters", []):
                where = f"{label} {param['in']}.{param['name']}"
                _walk(param.get("schema", {}), where, components, found, set())
            body = operation.get("requestBody", {}).get("content", {})
            for media in body.values():
                _walk(media.get("schema", {}), f"{label} body", components, found, set())
    return found


def _walk(node: Any, where: str, components: dict, found: list[str], seen: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, where, components, found, seen)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            _walk(components.get(name, {}), f"{where}>{name}", components, found, seen | {name})
        return
    if node.get("type") == "integer" and node.get("maximum", MAX_DB_INT + 1) > MAX_DB_INT:
        found.append(where)
    for key, child in node.items():
        if key in ("properties", "patternProperties", "$defs"):
            for name, sub in child.items():
                _walk(sub, f"{where}.{name}", components, found, seen)
        elif key in ("items", "prefixItems", "anyOf", "oneOf", "allOf", "additionalProperties"):
            _walk(child, where, components, found, seen)


def oversized_int_cases(schema: BaseSchema) -> Iterator[tuple[Case, str]]:
    """One request per integer query parameter and oversized value, with the parameter it
    carries; path parameters are filled with a placeholder the route never reaches."""
    for result in schema.get_all_operations():
        operation = result.ok()
        for param in operation.query:
            if param.definition.get("schema", {}).get("type") != "integer":
                continue
            for value in OVERSIZED_INTS:
                path = {p.name: "x" for p in operation.path_parameters}
                yield operation.Case(path_parameters=path, query={param.name: value}), param.name


def assert_oversized_ints_refused(schema: BaseSchema) -> None:
    """Every :func:`oversized_int_cases` request answers 422 naming its parameter."""
    cases = list(oversized_int_cases(schema))
    assert cases
    for case, param in cases:
        response = case.call_and_validate(checks=CHECKS)
        assert response.status_code == 422, (case.operation.label, response.text)
        assert response.json()["error"]["param"] == param
