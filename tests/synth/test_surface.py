"""Relative dates: every form the realiser may write reads back as its day."""

from datetime import date, timedelta

import pytest

from services.synth.surface import relative_dates, relative_forms

REFERENCE = date(2026, 3, 13)  # a Friday


@pytest.mark.parametrize("ahead", range(1, 14))
def test_every_relative_form_reads_back_as_its_day(ahead: int) -> None:
    iso = (REFERENCE + timedelta(days=ahead)).isoformat()
    forms = relative_forms(iso, REFERENCE)
    assert forms
    for form in forms:
        assert relative_dates(f"Book it {form}.", REFERENCE) == [(8, 8 + len(form), iso)]


def test_the_usual_forms() -> None:
    assert relative_forms("2026-03-14", REFERENCE) == ("tomorrow", "next Saturday")
    assert "the day after tomorrow" in relative_forms("2026-03-15", REFERENCE)
    assert relative_forms("2026-03-20", REFERENCE) == ("in 7 days", "next Friday")


@pytest.mark.parametrize("iso", ["2026-03-13", "2026-03-12", "2026-03-27", "2026-02-30", "soon"])
def test_no_relative_form_outside_the_next_13_days(iso: str) -> None:
    assert relative_forms(iso, REFERENCE) == ()
