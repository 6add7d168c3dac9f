"""Stage 3 of the template generator reads queries it never wrote, from schemas alone."""

from __future__ import annotations

from services.synth.calls import Call, GroundTruth
from services.synth.checker import check_calls
from services.synth.generators.template import TemplateGenerator
from services.synth.generators.template.solver import solve


def _tool(name: str, description: str, props: dict, required: list[str]) -> dict:
    parameters = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


HOTEL = _tool(
    "book_hotel",
    "Book a hotel room.",
    {
        "city": {"type": "string"},
        "check_in": {"type": "string", "format": "date"},
        "guests": {"type": "integer"},
        "room_type": {"type": "string", "enum": ["standard", "family_suite"]},
        "breakfast": {"type": "boolean"},
    },
    ["city", "check_in", "guests"],
)
WEATHER = _tool(
    "get_weather_forecast",
    "Weather forecast.",
    {
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "max_temp": {"type": "number"},
    },
    ["location"],
)
TRAIN = _tool(
    "book_train_ticket",
    "Train tickets.",
    {
        "to_station": {"type": "string"},
        "departure_time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"},
        "passengers": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"full_name": {"type": "string"}, "age": {"type": "integer"}},
                "required": ["full_name"],
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    ["to_station", "passengers"],
)


def test_reads_dates_numbers_enums_flags_in_their_many_forms() -> None:
    query = (
        "Could you reserve a hotel for Lisbon, with three guests, March 14, 2026 as "
        "the check in, the room type family suite and the breakfast turned on?"
    )
    assert solve(query, [HOTEL, WEATHER]) == (
        Call(
            "book_hotel",
            {
                "city": "Lisbon",
                "guests": 3,
                "check_in": "2026-03-14",
                "room_type": "family_suite",
                "breakfast": True,
            },
        ),
    )
    query = 'Book a hotel with the city "Rome, Italy", the check in 03/02/2027 and 12 guests.'
    assert solve(query, [HOTEL])[0].arguments == {
        "city": "Rome, Italy",
        "check_in": "2027-03-02",
        "guests": 12,
    }


def test_picks_the_function_by_its_wording_and_splits_parallel_requests() -> None:
    query = (
        "Look up the weather forecast for the location Oslo and the days 5. "
        'Also, get the weather forecast with the location "Bergen", the maximum temp 1,250.5.'
    )
    calls = solve(query, [HOTEL, WEATHER])
    assert calls == (
        Call("get_weather_forecast", {"location": "Oslo", "days": 5}),
        Call("get_weather_forecast", {"location": "Bergen", "max_temp": 1250.5}),
    )


def test_arrays_nested_objects_and_clock_times() -> None:
    query = (
        'Book a train ticket with the to station "Paris Nord", the departure time 2:30 pm, '
        'the passengers (full name "Ann Lee", age 34) and (full name "Bo Chen"), '
        'and the tags "quiet", "window" and "late".'
    )
    (call,) = solve(query, [TRAIN])
    assert call.arguments == {
        "to_station": "Paris Nord",
        "departure_time": "14:30",
        "passengers": [{"full_name": "Ann Lee", "age": 34}, {"full_name": "Bo Chen"}],
        "tags": ["quiet", "window", "late"],
    }


def test_no_call_when_no_candidate_fits() -> None:
    query = "Please book a flight with the origin JFK and the destination LHR."
    assert solve(query, [HOTEL, WEATHER, TRAIN]) == ()
    # the right words but a required value missing is no fit either
    assert solve("Book a hotel with the city Paris.", [HOTEL]) == ()


def test_the_generator_answers_its_own_queries_without_the_truth() -> None:
    generator = TemplateGenerator()
    truth = GroundTruth(
        "multiple",
        (WEATHER, HOTEL),
        (
            Call(
                "book_hotel",
                {"city": "Kyoto", "check_in": "2026-11-02", "guests": 2, "breakfast": False},
            ),
        ),
    )
    hits = 0
    for seed in range(40):
        query = generator.query(truth, previous=None, issues=(), seed=seed)
        hits += check_calls(generator.calls(query, truth.tools, seed=seed), truth).ok
    assert hits >= 36
