"""Identifiers named by a parameter's description or name: drawn valid, checked by stdnum."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pycountry
import pytest
from stdnum import bic, ean, iban, isbn, luhn

from services.synth.calls import tool_name
from services.synth.catalog.identifiers import draw, identifier
from services.synth.values import sample_arguments, sample_value

LIBRARY = json.loads(
    (Path(__file__).parents[2] / "examples" / "catalogs" / "library.json").read_text()
)
BY_NAME = {tool_name(tool): tool for tool in LIBRARY}


@pytest.mark.parametrize(
    ("name", "description", "expected"),
    [
        ("isbn", "ISBN-13 of the book", "isbn13"),
        ("book_id", "The book's ISBN-10", "isbn10"),
        ("isbn", "", "isbn13"),
        ("account", "IBAN of the account to debit.", "iban"),
        ("memberId", "The member's UUID", "uuid"),
        ("country", "ISO 3166-1 alpha-2 country code.", "alpha2"),
        ("nation", "ISO 3166-1 alpha-3 code", "alpha3"),
        ("pay_in", "ISO 4217 code", "currency"),
        ("locale", "ISO 639-1 language code", "language_code"),
        ("where", "Coordinates as lat,lng", "coordinates"),
        ("country", "The country to visit.", None),
        ("title", "Title of the book", None),
    ],
)
def test_description_then_name_names_the_identifier(
    name: str, description: str, expected: str | None
) -> None:
    assert identifier(name, description) == expected


@pytest.mark.parametrize(
    ("label", "valid"),
    [
        ("isbn13", lambda v: isbn.is_valid(v) and len(v) == 13),
        ("isbn10", lambda v: isbn.is_valid(v) and len(v) == 10),
        ("iban", iban.is_valid),
        ("bic", bic.is_valid),
        ("ean13", lambda v: ean.is_valid(v) and len(v) == 13),
        ("card_number", luhn.is_valid),
        ("alpha2", lambda v: pycountry.countries.get(alpha_2=v) is not None),
        ("alpha3", lambda v: pycountry.countries.get(alpha_3=v) is not None),
    ],
)
def test_drawn_identifiers_pass_an_independent_check(
    label: str, valid: Callable[[str], bool]
) -> None:
    rng = random.Random(7)
    values = [draw(label, rng) for _ in range(200)]
    bad = [v for v in values if not valid(v)]
    assert not bad, bad[:3]
    assert len(set(values)) > 100  # drawn, not one fixed value


def test_same_seed_same_identifiers() -> None:
    one = [draw("iban", random.Random(3)) for _ in range(3)]
    two = [draw("iban", random.Random(3)) for _ in range(3)]
    assert one == two


def test_an_isbn_described_parameter_gets_an_isbn_not_a_title() -> None:
    rng = random.Random(0)
    for _ in range(50):
        arguments = sample_arguments(BY_NAME["reserve_book"], rng)
        assert isbn.is_valid(arguments["isbn"]) and len(arguments["isbn"]) == 13
        order = sample_arguments(BY_NAME["order_books"], rng)
        assert all(isbn.is_valid(item["isbn"]) for item in order["line_items"])
        member = sample_arguments(BY_NAME["register_member"], rng)["member"]
        assert pycountry.countries.get(alpha_2=member["address"]["country"]) is not None
        assert iban.is_valid(sample_arguments(BY_NAME["pay_fine"], rng)["iban"])


def test_a_pattern_still_has_the_last_word() -> None:
    schema = {"type": "string", "description": "ISBN-13 of the book", "pattern": "^979"}
    rng = random.Random(1)
    assert all(sample_value(schema, rng, name="isbn").startswith("979") for _ in range(20))
