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


ARTWORK = _tool(
    "artwork_details",
    "Details of an artwork.",
    {
        "artist": {"type": "string", "description": "The artist who made the artwork."},
        "title": {"type": "string", "description": "The title of the artwork."},
        "detail": {"type": "string", "description": "The detail wanted about the artwork."},
    },
    ["artist", "title"],
)


def test_a_participle_before_a_value_says_its_noun() -> None:
    calls = read(
        "I'd like artwork details about the piece titled 'Guernica' made by the artist "
        "'Picasso', and about its 'size'.",
        [ARTWORK],
    )
    assert calls == (
        Call("artwork_details", {"artist": "Picasso", "title": "Guernica", "detail": "size"}),
    )


SLOPE = _tool(
    "derivative_at",
    "The derivative of a function at a value.",
    {
        "function": {"type": "string", "description": "The function."},
        "value": {"type": "integer", "description": "Where the derivative is taken."},
        "function_variable": {"type": "string", "description": "The variable. Default 'x'."},
    },
    ["function", "value"],
)


def test_what_a_value_is_said_to_be_names_its_parameter() -> None:
    calls = read(
        "Find the derivative of the function '2t^2 + 1' at the value of 4 where 't' is the "
        "function variable.",
        [SLOPE],
    )
    assert calls[0].arguments["value"] == 4
    assert calls[0].arguments["function_variable"] == "t"


LENDING = _tool(
    "search_book",
    "Search for a book.",
    {
        "title": {"type": "string", "description": "The title of the book."},
        "author": {"type": "string", "description": "The author of the book."},
        "platform": {"type": "string", "description": "The library to search in."},
    },
    ["title", "author"],
)


def test_a_name_that_holds_what_its_parameter_is_described_as_is_evidence() -> None:
    calls = read(
        "Search for a book titled 'Emma' by the author 'Jane Austen' in the 'Bodleian Library'.",
        [LENDING],
    )
    assert calls[0].arguments == {
        "title": "Emma",
        "author": "Jane Austen",
        "platform": "Bodleian Library",
    }


CASES = _tool(
    "case_info",
    "Retrieve case details by docket number and court.",
    {
        "docket": {"type": "string", "description": "Docket number of the case."},
        "court": {"type": "string", "description": "Court in which the case was heard."},
        "info_type": {
            "type": "string",
            "description": "The information needed, e.g. victim, accused, verdict.",
        },
    },
    ["docket", "court", "info_type"],
)


def test_a_quoted_value_a_parameters_description_offers_goes_to_it() -> None:
    calls = read(
        "Retrieve the 'verdict' details of the case with docket number '55512' in the "
        "'Fulton Tribunal'.",
        [CASES],
    )
    assert calls[0].arguments == {
        "docket": "55512",
        "court": "Fulton Tribunal",
        "info_type": "verdict",
    }


DIABETES = _tool(
    "diabetes_prediction",
    "Predict the likelihood of diabetes type 2 from a person's weight and height.",
    {
        "weight": {"type": "integer", "description": "Weight in lbs."},
        "height": {"type": "integer", "description": "Height in inches."},
    },
    ["weight", "height"],
)


def test_a_bare_number_does_not_continue_numbers_said_with_a_unit() -> None:
    calls = read(
        "I am a 150 lbs, 6'1\" tall man, can you predict my likelihood of having type 2 diabetes?",
        [DIABETES],
    )
    assert calls == (Call("diabetes_prediction", {"weight": 150, "height": 73}),)


CHESS = _tool(
    "chess_play",
    "Makes moves in a chess game.",
    {"moves": {"type": "array", "items": {"type": "string"}, "description": "Moves to play."}},
    ["moves"],
)


def test_an_ordinal_that_says_which_is_no_text_value() -> None:
    calls = read("Play chess where the 1st move is d4 and the 2nd move is d5.", [CHESS])
    assert calls == (Call("chess_play", {"moves": ["d4", "d5"]}),)


TREES = _tool(
    "random_forest_train",
    "Train a forest on given data",
    {
        "n_estimators": {"type": "integer", "description": "The number of trees in the forest."},
        "max_depth": {"type": "integer", "description": "The maximum depth of the tree."},
        "data": {"type": "string", "description": "The training data."},
    },
    ["n_estimators", "max_depth", "data"],
)


def test_a_bare_phrase_of_another_parameters_words_is_no_value() -> None:
    calls = read(
        "I have a dataset `df` to train a forest on. It has 1000 rows and I would like to set "
        "the number of trees in the forest to 200 and the maximum depth of the tree to 10.",
        [TREES],
    )
    assert calls == (
        Call("random_forest_train", {"n_estimators": 200, "max_depth": 10, "data": "df"}),
    )


DEPTHS = _tool(
    "train_model",
    "Train a tree model on given data.",
    {
        "trees": {"type": "integer", "description": "The number of trees."},
        "max_depth": {"type": "integer", "description": "The maximum depth of a tree."},
        "data": {"type": "string", "description": "The training data."},
    },
    ["trees", "max_depth", "data"],
)


def test_a_number_word_after_a_list_of_digits_is_no_further_value() -> None:
    calls = read(
        'You are given a dataset "d1" and want to train a tree model on it. First, you train a'
        " model with 100 trees and a maximum depth of 10. Then, you train another model with"
        " 200 trees and a maximum depth of 20. After that, you train a third model with 300"
        " trees and a maximum depth of 30. Can you train it three times with these different"
        " parameters and compare the three models?",
        [DEPTHS],
    )
    assert [(c.arguments["trees"], c.arguments["max_depth"]) for c in calls] == [
        (100, 10),
        (200, 20),
        (300, 30),
    ]


INTEREST = _tool(
    "compound_interest",
    "Compound interest on a principal amount.",
    {
        "principal": {"type": "integer", "description": "The principal amount."},
        "rate": {"type": "number", "description": "The annual interest rate."},
        "time": {"type": "integer", "description": "The time invested, in years."},
    },
    ["principal", "rate", "time"],
)
RECTANGLE = _tool(
    "rectangle_area",
    "The area of a rectangle.",
    {
        "length": {"type": "integer", "description": "The length."},
        "width": {"type": "integer", "description": "The width."},
    },
    ["length", "width"],
)


def test_numbers_listed_each_with_one_unit_word_are_one_parameters_values() -> None:
    calls = read(
        "What is the compound interest for the first 2 years, first 3 years and first 5 years?",
        [INTEREST],
    )
    assert [c.arguments for c in calls] == [{"time": t} for t in (2, 3, 5)]
    (call,) = read("The area of a rectangle of length 12 meters and width 5 meters.", [RECTANGLE])
    assert call.arguments == {"length": 12, "width": 5}


PROJECTION = _tool(
    "population_projections",
    "Projected population growth of a country.",
    {
        "country": {"type": "string", "description": "The country."},
        "years": {"type": "integer", "description": "Number of years."},
        "growth_rate": {"type": "number", "description": "Optional growth rate."},
    },
    ["country", "years"],
)


def test_numbers_listed_before_one_unit_word_are_one_parameters_values() -> None:
    calls = read(
        "What is the projected population growth of Japan and India in the next 10 and 20"
        " years respectively, at the current growth rate?",
        [PROJECTION],
    )
    assert [c.arguments for c in calls] == [
        {"country": "Japan", "years": 10},
        {"country": "India", "years": 20},
    ]


BOOKS = _tool(
    "library.search_book",
    "Search for a specific book in the library.",
    {
        "title": {"type": "string", "description": "The title of the book."},
        "author": {"type": "string", "description": "The author of the book."},
        "platform": {"type": "string", "description": "The library to fetch the book from."},
    },
    ["title", "author"],
)


def test_an_optional_text_parameter_takes_a_name_ending_in_its_described_noun() -> None:
    (call,) = read("Look for the book '1984' by 'George Orwell' in the 'British Library'.", [BOOKS])
    assert call.arguments == {
        "title": "1984",
        "author": "George Orwell",
        "platform": "British Library",
    }
