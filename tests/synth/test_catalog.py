"""The built-in catalog: size, domains, parameter-type coverage, distinct wording, validity."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from services.synth.calls import parameters, tool_name
from services.synth.catalog import BUILTIN_DOMAINS, builtin_catalog, validate_catalog


def _schemas(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (name, schema) below a parameters schema, nested objects and items included."""
    for name, sub in (schema.get("properties") or {}).items():
        yield name, sub
        yield from _schemas(sub)
        if isinstance(sub.get("items"), dict):
            yield f"{name}[]", sub["items"]
            yield from _schemas(sub["items"])


def test_catalog_is_large_and_spans_domains() -> None:
    tools = builtin_catalog()
    names = [tool_name(tool) for tool in tools]
    assert len(tools) >= 60
    assert len(set(names)) == len(names)
    assert set(BUILTIN_DOMAINS) == set(names)
    per_domain = Counter(BUILTIN_DOMAINS.values())
    assert len(per_domain) >= 8
    assert {"travel", "finance", "calendar", "weather", "commerce", "messaging", "maps"} <= set(
        per_domain
    )
    assert min(per_domain.values()) >= 5


def test_catalog_passes_validation() -> None:
    tools = builtin_catalog()
    assert validate_catalog(list(tools)) == list(tools)


def test_catalog_uses_every_parameter_kind() -> None:
    found: Counter[str] = Counter()
    for tool in builtin_catalog():
        schema = parameters(tool)
        required = set(schema["required"])
        for _name, sub in _schemas(schema):
            found[sub.get("type", "enum-only")] += 1
            found["enum"] += "enum" in sub
            found[f"format:{sub.get('format')}"] += "format" in sub
            found["pattern"] += "pattern" in sub
            found["bounded"] += "minimum" in sub and "maximum" in sub
            found["array-items"] += sub.get("type") == "array" and "items" in sub
            found["nested-object"] += sub.get("type") == "object"
        for name in schema["properties"]:
            found["optional"] += name not in required
            found["default"] += "default" in schema["properties"][name]
    for kind in ("string", "integer", "number", "boolean", "array", "object", "enum"):
        assert found[kind] >= 3, kind
    for kind in ("format:date", "format:email", "format:date-time", "pattern"):
        assert found[kind] >= 2, kind
    for kind in ("bounded", "array-items", "nested-object", "optional", "default"):
        assert found[kind] >= 3, kind


def test_names_and_descriptions_are_distinct_and_present() -> None:
    tools = builtin_catalog()
    descriptions = [tool["function"]["description"] for tool in tools]
    assert len(set(descriptions)) == len(descriptions)
    for tool in tools:
        assert len(tool["function"]["description"]) > 20
        for name, sub in _schemas(parameters(tool)):
            assert sub.get("description") or name.endswith("[]"), (tool_name(tool), name)


def test_every_optional_parameter_is_optional_and_every_required_one_declared() -> None:
    for tool in builtin_catalog():
        schema = parameters(tool)
        assert schema["type"] == "object"
        assert set(schema["required"]) <= set(schema["properties"])


def test_builtin_catalog_returns_fresh_copies() -> None:
    first = builtin_catalog()
    first[0]["function"]["name"] = "changed"
    parameters(first[0])["properties"].clear()
    second = builtin_catalog()
    assert tool_name(second[0]) != "changed"
    assert parameters(second[0])["properties"]
