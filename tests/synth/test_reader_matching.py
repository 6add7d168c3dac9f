"""The reader's assignment of mentions to parameters, and the evidence an optional one
needs (``template.matching``)."""

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
