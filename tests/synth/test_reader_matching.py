"""The reader's matching of said words to parameters (``template.matching``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read


def _tool(name: str, description: str, props: dict, required: list[str]) -> dict:
    parameters = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


PAINT = _tool(
    "repaint_wall",
    "Repaint a wall of a house.",
    {
        "wall": {"type": "string", "description": "Which wall, e.g. north"},
        "finish_color": {"type": "string", "description": "The finish color. Default 'white'."},
    },
    ["wall"],
)
ROOMS = _tool(
    "hotel_reserve",
    "Reserve a hotel room.",
    {
        "city": {"type": "string", "description": "The city."},
        "room_type": {"type": "string", "description": "The type of room."},
    },
    ["city"],
)


SAVINGS = _tool(
    "estimate_fuel_savings",
    "Estimate the money saved by a switch of heating.",
    {
        "fuel_type": {"type": "string", "description": "Type of the heating fuel."},
        "months": {"type": "integer", "description": "How many months."},
        "region": {"type": "string", "description": "The region. Default 'Ohio'."},
    },
    ["fuel_type", "months"],
)


def test_a_name_said_after_in_is_evidence_for_an_optional_place() -> None:
    calls = read("Estimate savings with pellet fuel over 3 months in Vermont.", [SAVINGS])
    assert calls == (
        Call("estimate_fuel_savings", {"fuel_type": "pellet", "months": 3, "region": "Vermont"}),
    )


HEADLINES = _tool(
    "headlines",
    "Fetch news headlines on a topic.",
    {
        "topic": {"type": "string", "description": "The topic of the news."},
        "count": {"type": "integer", "description": "The number of headlines to return."},
    },
    ["topic"],
)


def test_a_count_said_a_few_words_before_what_it_counts_is_read() -> None:
    for said, count in (("seven", 7), ("12", 12)):
        calls = read(f"Show me {said} major local headlines about Solar Energy.", [HEADLINES])
        assert calls == (Call("headlines", {"topic": "Solar Energy", "count": count}),)


def test_numbers_each_said_with_the_same_unit_are_one_list() -> None:
    query = "What would I save with pellet fuel for 12 months and wood fuel for 8 months?"
    calls = read(query, [SAVINGS])
    assert [(c.arguments["fuel_type"], c.arguments["months"]) for c in calls] == [
        ("pellet", 12),
        ("wood", 8),
    ]


STORES = _tool(
    "store_nearby",
    "Find a store nearby.",
    {
        "location": {"type": "string", "description": "The city, e.g. Denver, CO."},
        "preferences": {
            "type": "array",
            "items": {"type": "string", "enum": ["Disabled Access", "24 hours"]},
            "description": "Preferences.",
        },
    },
    ["location", "preferences"],
)


def test_a_bare_number_is_no_place() -> None:
    query = "Find a store in Denver, CO that has disabled access and operates 24 hours."
    assert read(query, [STORES]) == (
        Call(
            "store_nearby",
            {"location": "Denver, CO", "preferences": ["Disabled Access", "24 hours"]},
        ),
    )


LAWSUITS = _tool(
    "lawsuit_details",
    "Find lawsuits involving a company.",
    {
        "company_name": {"type": "string", "description": "The name of the company."},
        "year": {"type": "integer", "description": "The year."},
    },
    ["company_name", "year"],
)


def test_a_name_said_again_shorter_is_the_same_one() -> None:
    query = "Lawsuits of Globex Corp. and the ones involving Globex from 2010."
    assert read(query, [LAWSUITS]) == (
        Call("lawsuit_details", {"company_name": "Globex Corp.", "year": 2010}),
    )


BOOKING = _tool(
    "hotel_booking",
    "Book rooms at a hotel.",
    {
        "hotel_name": {"type": "string", "description": "The name of the hotel."},
        "rooms": {"type": "integer", "description": "How many rooms to book."},
    },
    ["hotel_name", "rooms"],
)
BMI = _tool(
    "calculate_bmi",
    "Body Mass Index of a person.",
    {
        "weight": {"type": "integer", "description": "The weight in kilograms."},
        "height": {"type": "integer", "description": "The height in centimeters."},
    },
    ["weight", "height"],
)


def test_a_number_in_quotes_is_a_number() -> None:
    (booked,) = read("Book '3' rooms at the 'Grand Plaza' hotel.", [BOOKING])
    assert booked.arguments == {"hotel_name": "Grand Plaza", "rooms": 3}
    query = "What is the BMI of someone who weighs '70' kilograms and is '175' centimeters tall?"
    (bmi,) = read(query, [BMI])
    assert bmi.arguments == {"weight": 70, "height": 175}


RAINFALL = _tool(
    "average_rainfall",
    "Average rainfall of a city over recent days.",
    {
        "city": {"type": "string", "description": "The city."},
        "days": {"type": "integer", "description": "How many past days."},
    },
    ["city", "days"],
)


def test_a_value_said_in_the_same_words_as_the_first_is_one_more_however_far() -> None:
    query = (
        "What was the average rainfall in Oslo over the past 10 days, and how does that"
        " compare with the average rainfall in Bergen?"
    )
    calls = read(query, [RAINFALL])
    assert [c.arguments for c in calls] == [
        {"city": "Oslo", "days": 10},
        {"city": "Bergen", "days": 10},
    ]


TRAIN = _tool(
    "train_model",
    "Train a model on a dataset.",
    {
        "dataset": {"type": "string", "description": "The dataset to train on."},
        "epochs": {"type": "integer", "description": "The number of epochs."},
    },
    ["dataset", "epochs"],
)


def test_a_number_that_counts_other_things_is_no_text_value() -> None:
    calls = read(
        "Train the model on 'sales_2024', which has 1000 rows and 20 columns, for 5 epochs.",
        [TRAIN],
    )
    assert [c.arguments for c in calls] == [{"dataset": "sales_2024", "epochs": 5}]


HOLIDAYS = _tool(
    "public_holidays",
    "List the public holidays of a year.",
    {
        "year": {"type": "integer", "description": "The year."},
        "country": {"type": "string", "description": "The country. Default is US."},
    },
    ["year"],
)


def test_a_name_after_in_the_is_placed_for_an_optional_place() -> None:
    (call,) = read("What are the public holidays of 2026 in the Netherlands?", [HOLIDAYS])
    assert call.arguments == {"year": 2026, "country": "Netherlands"}


SHOWS = _tool(
    "show_ratings",
    "Get the ratings of a TV show.",
    {
        "show": {"type": "string", "description": "The title of the show."},
        "platform": {"type": "string", "description": "Where it streams. Default is all."},
    },
    ["show"],
)


def test_a_name_after_on_is_placed_for_an_optional_platform() -> None:
    (call,) = read("Get the ratings of 'Dark' on Netflix.", [SHOWS])
    assert call.arguments == {"show": "Dark", "platform": "Netflix"}


CLOSING = _tool(
    "closing_price",
    "Get the closing stock price of a company on a date.",
    {
        "company": {"type": "string", "description": "Name of the company."},
        "date": {"type": "string", "description": "The date of the stock price, yyyy-mm-dd."},
    },
    ["company", "date"],
)


def test_a_date_parameter_takes_no_name_without_a_digit() -> None:
    (call,) = read("Get the NYSE stock price of the company Boeing on May 4, 2021.", [CLOSING])
    assert call.arguments == {"company": "Boeing", "date": "2021-05-04"}


GEAR = _tool(
    "gear_details",
    "Get details of a piece of gear.",
    {
        "item": {"type": "string", "description": "The item."},
        "maker": {"type": "string", "description": "The maker."},
    },
    ["item", "maker"],
)


def test_a_name_said_after_from_goes_to_who_makes_or_sells() -> None:
    (call,) = read("Get details of the tent from Vaude.", [GEAR])
    assert call.arguments == {"item": "tent", "maker": "Vaude"}


RECORD = _tool(
    "record_price",
    "Fetch the price of a record.",
    {
        "record_name": {"type": "string", "description": "The name of the record."},
        "artist": {"type": "string", "description": "The artist's name."},
    },
    ["record_name", "artist"],
)


def test_a_name_said_as_an_owner_is_no_name_of_a_thing() -> None:
    (call,) = read("Find the price of Nina Simone's album 'Pastel Blues'.", [RECORD])
    assert call.arguments == {"record_name": "Pastel Blues", "artist": "Nina Simone"}


TEAM_RANK = _tool(
    "team_ranking",
    "Get the ranking of a national team in a year.",
    {
        "team_name": {"type": "string", "description": "The team."},
        "league": {"type": "string", "description": "The league the team plays in."},
    },
    ["team_name", "league"],
)


def test_an_owners_noun_that_is_a_parameters_name_says_that_parameter() -> None:
    (call,) = read("What is the UEFA ranking of Spain's women football team?", [TEAM_RANK])
    assert call.arguments == {"team_name": "Spain", "league": "UEFA"}


ROUTE = _tool(
    "route_time",
    "Travel time between two cities.",
    {
        "origin": {"type": "string", "description": "The city you start from."},
        "destination": {"type": "string", "description": "The city you go to."},
        "mode": {"type": "string", "description": "Mode of travel. Default is 'car'."},
    },
    ["origin", "destination"],
)


def test_a_word_after_by_via_or_through_is_the_mode_of_something() -> None:
    (call,) = read("Find the travel time from Lyon to Nice through the ferry.", [ROUTE])
    assert call.arguments == {"origin": "Lyon", "destination": "Nice", "mode": "ferry"}


TRANSLATE = _tool(
    "translate",
    "Translate a piece of text.",
    {
        "text": {"type": "string", "description": "The text to translate."},
        "language": {"type": "string", "description": "The language of the text."},
    },
    ["text", "language"],
)


def test_a_value_after_its_parameters_name_and_is_goes_to_that_parameter() -> None:
    (call,) = read(
        "I wrote a piece of text in 'Danish' and want it translated. "
        "The text is 'We walked along the harbour all afternoon.'",
        [TRANSLATE],
    )
    assert call.arguments == {
        "text": "We walked along the harbour all afternoon.",
        "language": "Danish",
    }
