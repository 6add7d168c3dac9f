"""A parameter's values: mentions converted to the schema, plain lists, spans of time, a
start from rest, a gender (``template.values``)."""

from __future__ import annotations

from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

PARKS = _tool(
    "find_parks",
    "Locate nearby parks based on criteria like picnic area availability.",
    {
        "location": {"type": "string", "description": "The city, e.g. Oslo"},
        "amenities": {
            "type": "array",
            "items": {"type": "string", "enum": ["Picnic Area", "Playground", "Dog Run"]},
            "description": "Preferred amenities in the park.",
        },
    },
    ["location"],
)


def test_an_option_of_several_words_said_whole_is_asked_though_the_tool_names_it() -> None:
    (asked,) = read("Find the nearest park with a picnic area in Oslo.", [PARKS])
    assert asked.arguments == {"location": "Oslo", "amenities": ["Picnic Area"]}
    (plain,) = read("Find the nearest park in Oslo.", [PARKS])
    assert plain.arguments == {"location": "Oslo"}


SALES = _tool(
    "sales_forecast",
    "Forecast the sales of a store.",
    {
        "store": {"type": "string", "description": "The store's city."},
        "weeks": {"type": "integer", "description": "How many weeks ahead."},
    },
    ["store", "weeks"],
)


def test_a_span_of_time_said_once_without_a_number_counts_one() -> None:
    (call,) = read("Forecast the sales of the store in Leeds over the coming week.", [SALES])
    assert call.arguments == {"store": "Leeds", "weeks": 1}


BANKER = _tool(
    "banker.search",
    "Search for a banker by area of expertise and city.",
    {
        "city": {"type": "string", "description": "The city."},
        "expertise": {"type": "string", "description": "The area of expertise."},
    },
    ["city", "expertise"],
)


def test_a_phrase_ends_before_a_word_of_the_tools_own_thing() -> None:
    (call,) = read("Search for mortgage bank advisors in Turin.", [BANKER])
    assert call.arguments == {"city": "Turin", "expertise": "mortgage"}


PLUMBER = _tool(
    "plumber.find",
    "Find a plumber in a city.",
    {"city": {"type": "string", "description": "The city and state, e.g. Denver, CO."}},
    ["city"],
)


def test_a_city_said_as_the_descriptions_example_takes_the_examples_form() -> None:
    (call,) = read("Find a plumber in Denver.", [PLUMBER])
    assert call.arguments == {"city": "Denver, CO"}
    (call,) = read("Find a plumber in Boulder.", [PLUMBER])
    assert call.arguments == {"city": "Boulder"}


PHARMACY = _tool(
    "pharmacy.find_best",
    "Find the best pharmacy near a place.",
    {
        "near": {"type": "string", "description": "Where to look."},
        "goods": {"type": "array", "items": {"type": "string"}, "description": "Needed goods."},
    },
    ["near", "goods"],
)


def test_a_plain_list_ending_the_request_fills_a_required_list_of_texts() -> None:
    (call,) = read(
        "Find the best pharmacy near Leeds, selling sunscreen and cough syrup.", [PHARMACY]
    )
    assert call.arguments == {"near": "Leeds", "goods": ["sunscreen", "cough syrup"]}


FEEDING = _tool(
    "feeding_plan",
    "Plan how much a fish tank needs.",
    {
        "fish": {"type": "integer", "description": "How many fish."},
        "feeding_frequency": {"type": "integer", "description": "Feedings per day."},
    },
    ["fish", "feeding_frequency"],
)


def test_a_frequency_per_span_said_as_every_span_is_one() -> None:
    (call,) = read("Plan feeding for 12 fish that eat every day.", [FEEDING])
    assert call.arguments == {"fish": 12, "feeding_frequency": 1}


PODCASTS = _tool(
    "podcast.top",
    "Find the top podcast on a subject.",
    {
        "subject": {"type": "string", "description": "The main subject."},
        "angles": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Angles touching on the subject. Default is none.",
        },
    },
    ["subject"],
)


def test_a_list_said_right_after_words_of_a_lists_description_is_its_value() -> None:
    (call,) = read("Find the top history podcast touching on trade and city life.", [PODCASTS])
    assert call.arguments == {"subject": "history", "angles": ["trade", "city life"]}


FALL = _tool(
    "impact_speed",
    "Speed of a falling object when it lands.",
    {
        "height": {"type": "integer", "description": "The height in meters."},
        "initial_speed": {"type": "number", "description": "The starting speed in m/s."},
    },
    ["height", "initial_speed"],
)


def test_a_start_from_rest_is_an_initial_speed_of_zero() -> None:
    (call,) = read("How fast does a stone dropped from 45 m land?", [FALL])
    assert call.arguments == {"height": 45, "initial_speed": 0.0}


TOP_PLAYER = _tool(
    "top_player",
    "Get the top player of a sport.",
    {
        "sport": {"type": "string", "description": "The sport."},
        "gender": {"type": "string", "description": "The gender of the category. Optional."},
    },
    ["sport"],
)


def test_a_gender_word_is_the_gender_parameters_value_and_no_other() -> None:
    (call,) = read(
        "I am a big fan of volleyball and I want to know who the top female player is.",
        [TOP_PLAYER],
    )
    assert call.arguments == {"sport": "volleyball", "gender": "female"}
