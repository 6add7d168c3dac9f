"""How numbers are written (``template.numerals``)."""

from __future__ import annotations

from services.synth.generators.template.mentions import find_mentions


def test_feet_and_inches_are_one_height_in_inches() -> None:
    for said, inches in (("6 feet 2 inches", 74.0), ("5'11\"", 71.0)):
        found = find_mentions(f"He weighs 200 pounds and is {said} tall.")
        assert [(m.text, m.value) for m in found if m.kind == "number"][-1] == (said, inches)


def test_a_rating_out_of_five_or_ten_is_the_rating_and_a_day_is_not() -> None:
    said = find_mentions("Hotels rated above 4/5 or 8.5/10, from 3/10 on.")
    assert [(m.kind, m.value) for m in said if m.kind != "phrase"] == [
        ("number", 4.0),
        ("number", 8.5),
        ("code", "3/10"),
    ]


def test_a_number_in_written_out_scientific_notation_is_one_number() -> None:
    said = find_mentions("a permittivity of 8.854 x 10^-12 F/m, light at 3 × 10^8 m/s")
    assert [m.value for m in said if m.kind == "number"] == [8.854e-12, 3e8]
