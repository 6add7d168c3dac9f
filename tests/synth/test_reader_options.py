"""The options a parameter offers, found in the text (``template.options``)."""

from __future__ import annotations

from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool
from tests.synth.test_reader_pairing import DOJO

EMISSION = _tool(
    "vehicle_emission",
    "Yearly emissions of a vehicle.",
    {
        "vehicle_type": {
            "type": "string",
            "description": "The type of vehicle. 'petrol' for a petrol car, 'diesel' for a"
            " diesel one, 'EV' for an electric one.",
        },
        "miles": {"type": "integer", "description": "Miles driven per year."},
    },
    ["vehicle_type", "miles"],
)


def test_an_offered_value_said_in_a_hyphenated_word_is_said() -> None:
    query = "What are the emissions of a diesel-powered vehicle driving 9000 miles a year?"
    (call,) = read(query, [EMISSION])
    assert call.arguments == {"vehicle_type": "diesel", "miles": 9000}


SHIRT = _tool(
    "shirt_stock",
    "Stock of a shirt size.",
    {
        "size": {"type": "string", "description": "The size.", "enum": ["S", "s", "M", "m"]},
    },
    ["size"],
)


def test_options_told_apart_only_by_case_are_found_as_written() -> None:
    calls = read("How many shirts are in stock in size (s) and in size (M)?", [SHIRT])
    assert [c.arguments["size"] for c in calls] == ["s", "M"]


RACE = _tool(
    "race.find",
    "Find running races in a city.",
    {
        "city": {"type": "string", "description": "The city."},
        "distance": {"type": "string", "description": "The race distance: '5k' or '10k'."},
    },
    ["city"],
)


def test_an_option_of_a_number_and_a_units_letter_is_said_with_the_units_word() -> None:
    (call,) = read("Find a 10-kilometer race in Boston.", [RACE])
    assert call.arguments == {"city": "Boston", "distance": "10k"}


ZOO = _tool(
    "zoo_info",
    "Retrieve information about a zoo.",
    {
        "zoo": {"type": "string", "description": "The name of the zoo."},
        "features": {
            "type": "array",
            "items": {"type": "string", "enum": ["feeding times", "aquarium", "prices"]},
            "description": "What to tell about the zoo.",
        },
    },
    ["zoo"],
)


def test_an_option_said_inside_a_longer_name_is_no_option_said() -> None:
    (call,) = read("Get me the feeding times and prices of the Berlin Aquarium Zoo.", [ZOO])
    assert call.arguments == {"zoo": "Berlin Aquarium Zoo", "features": ["feeding times", "prices"]}


GALLERY = _tool(
    "gallery.find_nearby",
    "Locate nearby galleries.",
    {
        "city": {"type": "string", "description": "The city."},
        "amenities": {
            "type": "array",
            "items": {"type": "string", "enum": ["Wheelchair Ramp", "Guided Tours", "Cafe"]},
            "description": "What the gallery should offer.",
        },
    },
    ["city"],
)


def test_the_long_first_word_of_an_option_said_alone_says_the_option() -> None:
    (call,) = read("Find a gallery in Rome that wheelchair users can visit.", [GALLERY])
    assert call.arguments == {"city": "Rome", "amenities": ["Wheelchair Ramp"]}
    (call,) = read("Find a gallery in Rome for wheelchair users with a ramp.", [GALLERY])
    assert call.arguments == {"city": "Rome"}


REVIEWS = _tool(
    "hotel_reviews",
    "Get what guests say of a hotel.",
    {
        "hotel": {"type": "string", "description": "The hotel's name."},
        "aspect": {
            "type": "string",
            "enum": ["cleaning", "parking"],
            "description": "What the reviews should be about.",
        },
    },
    ["hotel", "aspect"],
)


def test_a_plural_of_an_ing_word_says_that_word() -> None:
    (call,) = read("How are the cleanings at the Hotel Adlon?", [REVIEWS])
    assert call.arguments == {"hotel": "Hotel Adlon", "aspect": "cleaning"}


CAR_FACTS = _tool(
    "car_facts",
    "Get the price and mileage of a car model.",
    {
        "model": {"type": "string", "description": "The car model."},
        "facts": {
            "type": "array",
            "items": {"type": "string", "enum": ["price", "mileage"]},
            "description": "The facts to get. Default is 'price'.",
        },
    },
    ["model"],
)


def test_options_said_one_after_another_are_asked_though_the_tool_says_them() -> None:
    (call,) = read("Get the price and mileage of the model 'Golf'.", [CAR_FACTS])
    assert call.arguments == {"model": "Golf", "facts": ["price", "mileage"]}
    (call,) = read("Get the price of the model 'Golf'.", [CAR_FACTS])
    assert call.arguments == {"model": "Golf"}


MACROS = _tool(
    "macros",
    "Macronutrients of a dish.",
    {
        "dish": {"type": "string", "description": "The dish."},
        "nutrients": {
            "type": "array",
            "items": {"type": "string", "enum": ["Protein", "Carbohydrates", "Fat"]},
            "description": "Which nutrients.",
        },
    },
    ["dish", "nutrients"],
)


def test_an_option_said_clipped_in_a_list_of_options_is_said() -> None:
    (call,) = read("Give the macronutrients fat and carbs of a lasagna.", [MACROS])
    assert call.arguments == {"dish": "lasagna", "nutrients": ["Fat", "Carbohydrates"]}
    (call,) = read("Give the macronutrients carbs of a lasagna.", [MACROS])
    assert call.arguments == {"dish": "lasagna"}


PARK = _tool(
    "park_information",
    "Retrieve information such as elevation and area of a national park.",
    {
        "park_name": {"type": "string", "description": "The name of the national park."},
        "information": {
            "type": "array",
            "items": {"type": "string", "enum": ["Elevation", "Area", "Location", "Opening Year"]},
            "description": "The information wanted.",
        },
    },
    ["park_name", "information"],
)


def test_an_option_of_several_words_said_apart_joins_the_options_listed() -> None:
    calls = read(
        "I would like to know the location and the year when Zion National Park was opening.",
        [PARK],
    )
    assert calls[0].arguments["information"] == ["Location", "Opening Year"]


EMISSIONS = _tool(
    "vehicle_emission",
    "Annual carbon emissions of a type of vehicle.",
    {
        "vehicle_type": {
            "type": "string",
            "description": "The type of vehicle. 'gas' refers to a gasoline vehicle, and 'EV'"
            " refers to an electric vehicle.",
        },
        "miles_driven": {"type": "integer", "description": "The miles driven per year."},
    },
    ["vehicle_type", "miles_driven"],
)


def test_an_option_is_said_by_what_its_description_glosses_it_as() -> None:
    calls = read(
        "The emissions of a gasoline vehicle and an electric vehicle driving 9,000 miles.",
        [EMISSIONS],
    )
    assert [c.arguments["vehicle_type"] for c in calls] == ["gas", "EV"]


def test_an_option_said_apart_takes_no_word_of_an_option_found_whole() -> None:
    (call,) = read("Find a karate dojo that also gives judo classes in Lyon.", [DOJO])
    assert call.arguments == {"city": "Lyon", "classes": ["Judo Classes"], "gear": ["Karate"]}
