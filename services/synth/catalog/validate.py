"""Catalog validation: every tool is a usable OpenAI function schema, or a 422 says where.

The sampler and the value generator trust what passes here: object parameters, required
keys that exist, enums that can be drawn from, defaults that fit, bounds that leave room.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from services.common.errors import RefineryError
from services.synth.calls import Tool

__all__ = ["NAME_PATTERN", "CatalogError", "validate_catalog"]

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_DEPTH = 33
"""Nested objects and arrays one ``parameters`` schema may hold (16 levels of nested
properties): deeper ones are refused before any recursive check walks them."""

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}
_BOUNDS = (
    ("minimum", "maximum"),
    ("minimum", "exclusiveMaximum"),
    ("exclusiveMinimum", "maximum"),
    ("exclusiveMinimum", "exclusiveMaximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
)


_SIZE_CAPS = {"minItems": 64, "minProperties": 64, "minLength": 4096}
"""The largest lower size bounds a sampled value must meet (larger ones cannot be drawn)."""


class CatalogError(RefineryError):
    """A tool catalog that cannot be used; ``param`` is the path of the offending field."""

    status_code = 422
    code = "invalid_catalog"


def validate_catalog(tools: Any) -> list[Tool]:
    """Check a list of OpenAI function schemas and return deep copies of them.

    Raises :class:`CatalogError` at the first problem, e.g. with ``param``
    ``catalog[3].function.parameters.properties.date.enum``.
    """
    if not isinstance(tools, list) or not tools:
        raise CatalogError(
            "catalog must be a non-empty JSON array of function tools", param="catalog"
        )
    seen: dict[str, int] = {}
    for index, tool in enumerate(tools):
        name = _check_tool(tool, f"catalog[{index}]")
        if name in seen:
            raise CatalogError(
                f"function name {name!r} is used by catalog[{seen[name]}] and "
                f"catalog[{index}]: give every function a unique name",
                param=f"catalog[{index}].function.name",
            )
        seen[name] = index
    return copy.deepcopy(tools)


def _check_tool(tool: Any, path: str) -> str:
    if not isinstance(tool, dict):
        raise CatalogError(
            'each tool must be an object {"type": "function", "function": {...}}', param=path
        )
    _check_depth(tool, path)
    if tool.get("type") != "function":
        raise CatalogError('set "type" to "function"', param=f"{path}.type")
    function = tool.get("function")
    if not isinstance(function, dict):
        raise CatalogError(
            'give "function" as an object with name, description and parameters',
            param=f"{path}.function",
        )
    name = function.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise CatalogError(
            f"function name {name!r} is invalid: use 1-64 letters, digits, '_' or '-'",
            param=f"{path}.function.name",
        )
    description = function.get("description")
    if not isinstance(description, str) or not description.strip():
        raise CatalogError(
            f"function {name!r} needs a non-empty description saying what it does",
            param=f"{path}.function.description",
        )
    if "parameters" in function:
        _check_parameters(function["parameters"], f"{path}.function.parameters")
    return name


def _check_parameters(schema: Any, path: str) -> None:
    if not isinstance(schema, dict):
        raise CatalogError("parameters must be a JSON Schema object", param=path)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in exc.path)
        raise CatalogError(
            f"parameters is not a valid JSON Schema: {exc.message}", param=path + where
        ) from None
    if schema.get("type") != "object":
        raise CatalogError('parameters must have "type": "object"', param=f"{path}.type")
    _check_schema(schema, path)


def _check_depth(tool: Any, path: str) -> None:
    """Refuse a tool whose schema nests deeper than :data:`MAX_DEPTH` (walked without
    recursion; the tool and its ``function`` object add two levels)."""
    stack: list[tuple[Any, int]] = [(tool, -1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise CatalogError(
                f"the tool nests objects and arrays more than {MAX_DEPTH} levels deep in "
                "function.parameters: flatten the schema",
                code="schema_too_deep",
                param=f"{path}.function.parameters",
            )
        children = list(node.values() if isinstance(node, dict) else node)
        if any(isinstance(c, float) and not math.isfinite(c) for c in children):
            raise CatalogError(
                "numbers in a tool are finite (no NaN or Infinity)", param=f"{path}.function"
            )
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def _check_schema(schema: Mapping[str, Any], path: str) -> None:
    """The semantic checks JSON Schema's meta-schema does not make, recursively."""
    _check_bounds(schema, path)
    if "enum" in schema:
        _check_enum(schema, path)
    if "default" in schema and not Draft202012Validator(schema).is_valid(schema["default"]):
        raise CatalogError(
            f"default {schema['default']!r} does not satisfy its own schema: "
            "change the default or the constraints",
            param=f"{path}.default",
        )
    properties = schema.get("properties") or {}
    missing = [key for key in schema.get("required", []) if key not in properties]
    if missing:
        raise CatalogError(
            f"required names {missing} are not in properties: declare them or drop them",
            param=f"{path}.required",
        )
    for key, sub in properties.items():
        if isinstance(sub, dict):
            _check_schema(sub, f"{path}.properties.{key}")
    if isinstance(schema.get("items"), dict):
        _check_schema(schema["items"], f"{path}.items")


def _check_bounds(schema: Mapping[str, Any], path: str) -> None:
    for key, cap in _SIZE_CAPS.items():
        if isinstance(schema.get(key), int) and schema[key] > cap:
            raise CatalogError(
                f"{key} {schema[key]} is more than a sampled value can carry (at most {cap})",
                param=f"{path}.{key}",
            )
    for low, high in _BOUNDS:
        if low in schema and high in schema:
            lo, hi = schema[low], schema[high]
            empty = (
                lo >= hi
                if low.startswith("exclusive") or high.startswith("exclusive")
                else (lo > hi)
            )
            if empty:
                raise CatalogError(
                    f"{low} {lo} and {high} {hi} leave no valid value: lower {low} or raise {high}",
                    param=f"{path}.{low}",
                )


def _check_enum(schema: Mapping[str, Any], path: str) -> None:
    values = schema["enum"]
    if not isinstance(values, list) or not values:
        raise CatalogError("enum must list at least one allowed value", param=f"{path}.enum")
    keys = [repr((type(v).__name__, v)) for v in values]
    if len(set(keys)) != len(keys):
        raise CatalogError("enum lists a value twice: keep each once", param=f"{path}.enum")
    declared = schema.get("type")
    if isinstance(declared, str) and declared in _JSON_TYPES:
        for index, value in enumerate(values):
            if not _is_type(value, declared):
                raise CatalogError(
                    f"enum value {value!r} is not of the declared type {declared!r}",
                    param=f"{path}.enum[{index}]",
                )


def _is_type(value: Any, declared: str) -> bool:
    if isinstance(value, bool) and declared != "boolean":
        return False
    if declared == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES[declared])
