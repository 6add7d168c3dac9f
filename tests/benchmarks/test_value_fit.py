"""The independent value-fit check: schema formats, check digits, ISO codes, nested values."""

from __future__ import annotations

import pytest

from benchmarks.value_fit import fits, leaves, named_identifier, value_fit

ISBN = {"type": "string", "description": "ISBN-13 of the book"}


@pytest.mark.parametrize(
    ("name", "schema", "value", "ok"),
    [
        ("isbn", ISBN, "9780306406157", True),
        ("isbn", ISBN, "9780306406158", False),  # wrong check digit
        ("isbn", ISBN, "Normal People", False),  # a title is no ISBN
        ("isbn", {"type": "string", "description": "ISBN-10"}, "9780306406157", False),
        ("iban", {"type": "string"}, "GB82WEST12345698765432", True),
        ("iban", {"type": "string"}, "north wing", False),
        ("country", {"type": "string", "description": "ISO 3166-1 alpha-2"}, "DE", True),
        ("country", {"type": "string", "description": "ISO 3166-1 alpha-2"}, "Germany", False),
        ("currency", {"type": "string"}, "EUR", True),
        ("currency", {"type": "string"}, "NIS", False),  # withdrawn, not ISO 4217 today
        ("id", {"type": "string", "format": "uuid"}, "not-a-uuid", False),
        ("day", {"type": "string", "format": "date"}, "2026-02-30", False),
        ("site", {"type": "string", "format": "uri"}, "https://example.org/a", True),
        ("site", {"type": "string", "format": "uri"}, "example dot org", False),
        ("lat", {"type": "number"}, 91.0, False),
        ("count", {"type": "integer", "maximum": 5}, 6, False),
        ("note", {"type": "string", "description": "Anything"}, "hello", True),
    ],
)
def test_fits(name: str, schema: dict, value: object, ok: bool) -> None:
    assert fits(name, schema, value) is ok


def test_the_description_names_the_identifier_before_the_name() -> None:
    named = named_identifier("code", {"description": "ISO 3166-1 alpha-3 code"})
    assert named is not None and named[0] == "country3"
    assert named_identifier("title", {"description": "Title of the book"}) is None


def test_nested_values_are_checked_one_by_one() -> None:
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"isbn": ISBN}},
            }
        },
    }
    arguments = {"items": [{"isbn": "9780306406157"}, {"isbn": "Beloved"}]}
    assert [value for _, _, value in leaves(schema, arguments)] == ["9780306406157", "Beloved"]
    figures = value_fit(iter([(schema, arguments)]))
    assert figures["values_checked"] == 2 and figures["value_fit_rate"] == 0.5
    assert figures["identifier_values"] == 2 and figures["identifier_fit_rate"] == 0.5
