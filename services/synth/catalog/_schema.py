"""Terse builders for the built-in catalog's OpenAI function schemas.

Each helper returns one JSON Schema fragment with a description, so a domain module reads
like a list of signatures: ``fn("book_hotel", "...", required={"city": text("...")})``.
Parameters passed as ``optional`` go into ``properties`` but not ``required``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.synth.calls import Tool

__all__ = [
    "TIME_PATTERN",
    "array",
    "boolean",
    "date",
    "datetime",
    "email",
    "enum",
    "fn",
    "integer",
    "number",
    "obj",
    "text",
    "time",
]

TIME_PATTERN = "^([01][0-9]|2[0-3]):[0-5][0-9]$"
"""24-hour ``HH:MM``; JSON Schema's ``time`` format wants seconds and an offset."""

Schema = dict[str, Any]


def _with(schema: Schema, default: Any, extra: Mapping[str, Any]) -> Schema:
    if default is not None:
        schema["default"] = default
    schema.update(extra)
    return schema


def text(description: str, *, default: str | None = None, **extra: Any) -> Schema:
    return _with({"type": "string", "description": description}, default, extra)


def date(description: str) -> Schema:
    return {"type": "string", "format": "date", "description": f"{description} (YYYY-MM-DD)"}


def datetime(description: str) -> Schema:
    return {
        "type": "string",
        "format": "date-time",
        "description": f"{description} (ISO 8601, e.g. 2026-05-03T09:30:00Z)",
    }


def time(description: str, *, default: str | None = None) -> Schema:
    schema = {"type": "string", "pattern": TIME_PATTERN, "description": f"{description} (HH:MM)"}
    return _with(schema, default, {})


def email(description: str) -> Schema:
    return {"type": "string", "format": "email", "description": description}


def integer(
    description: str,
    minimum: int | None = None,
    maximum: int | None = None,
    *,
    default: int | None = None,
) -> Schema:
    schema: Schema = {"type": "integer", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return _with(schema, default, {})


def number(
    description: str,
    minimum: float | None = None,
    maximum: float | None = None,
    *,
    default: float | None = None,
) -> Schema:
    schema: Schema = {"type": "number", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return _with(schema, default, {})


def boolean(description: str, *, default: bool | None = None) -> Schema:
    return _with({"type": "boolean", "description": description}, default, {})


def enum(description: str, values: Sequence[str], *, default: str | None = None) -> Schema:
    return _with({"type": "string", "enum": list(values), "description": description}, default, {})


def array(
    description: str,
    items: Schema,
    *,
    min_items: int = 1,
    max_items: int | None = None,
    unique: bool = False,
) -> Schema:
    schema: Schema = {"type": "array", "description": description, "items": items}
    schema["minItems"] = min_items
    if max_items is not None:
        schema["maxItems"] = max_items
    if unique:
        schema["uniqueItems"] = True
    return schema


def obj(
    description: str,
    required: Mapping[str, Schema],
    optional: Mapping[str, Schema] | None = None,
) -> Schema:
    """A nested object: ``required`` keys must be present, ``optional`` may be."""
    return {
        "type": "object",
        "description": description,
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }


def fn(
    name: str,
    description: str,
    required: Mapping[str, Schema] | None = None,
    optional: Mapping[str, Schema] | None = None,
) -> Tool:
    """One OpenAI function schema; ``required`` then ``optional`` parameters, in order."""
    required = required or {}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {**required, **(optional or {})},
                "required": list(required),
            },
        },
    }
