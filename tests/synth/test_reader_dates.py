"""How dates and times are said (``template.dates``)."""

from __future__ import annotations

from datetime import date

from services.synth.generators.template.mentions import find_mentions
from services.synth.generators.template.reader import read
from services.synth.surface import relative_dates
from tests.synth.test_reader_matching import _tool


def test_a_relative_date_without_a_reference_is_kept_as_said() -> None:
    said = [(m.kind, m.value) for m in find_mentions("Find jazz concerts in Oslo next Friday.")]
    assert ("date", "next Friday") in said
    dated = find_mentions("Tickets for next Friday, June 30th 2023, please.")
    assert [m.value for m in dated if m.kind == "date"] == ["2023-06-30"]  # the day said


def test_next_month_is_a_relative_date_unless_a_month_of_a_year_is_said() -> None:
    said = [(m.kind, m.value) for m in find_mentions("Find jazz concerts in Oslo next month.")]
    assert ("date", "next month") in said
    dated = find_mentions("Find jazz concerts in Oslo next month (May 2027).")
    assert not [m for m in dated if m.kind == "date"]
    assert relative_dates("next month", date(2027, 1, 31)) == [(0, 10, "2027-02-01")]


def test_a_relative_date_said_for_a_formatted_parameter_stays_as_said() -> None:
    shows = _tool(
        "find_shows",
        "Find shows in a city on a date.",
        {
            "city": {"type": "string", "description": "The city."},
            "date": {"type": "string", "description": "The date, in yyyy-mm-dd."},
        },
        ["city", "date"],
    )
    (call,) = read("Find shows in Oslo next Friday.", [shows])
    assert call.arguments == {"city": "Oslo", "date": "next Friday"}


def test_a_month_run_into_its_day_by_a_period_is_a_date() -> None:
    said = find_mentions("Book it for Sept.3, 2026 or Oct. 4, 2026.")
    assert [(m.kind, m.value) for m in said if m.kind != "phrase"] == [
        ("date", "2026-09-03"),
        ("date", "2026-10-04"),
    ]


def test_a_month_run_into_its_day_is_a_date() -> None:
    said = find_mentions("Book it for July04 2026.")
    assert [(m.kind, m.value) for m in said if m.kind != "phrase"] == [("date", "2026-07-04")]


def test_a_relative_date_with_a_clock_time_is_a_timestamp_against_the_reference() -> None:
    found = find_mentions("Remind me tomorrow at 09:30 UTC.", date(2026, 3, 13))
    assert ("datetime", "2026-03-14T09:30:00Z") in [(m.kind, m.value) for m in found]
    later = find_mentions("Remind me in 3 days at 7:15 pm.", date(2026, 3, 13))
    assert ("datetime", "2026-03-16T19:15:00Z") in [(m.kind, m.value) for m in later]
