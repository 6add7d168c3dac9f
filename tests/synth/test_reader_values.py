"""A parameter's values: flags, hints, conversions (``template.values``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool
from tests.synth.test_reader_pairing import DOJO

ENTROPY = _tool(
    "entropy_change",
    "Entropy change of an isothermal process.",
    {
        "heat": {"type": "number", "description": "The heat in joules."},
        "isothermal": {"type": "boolean", "description": "Whether it is isothermal."},
    },
    ["heat"],
)


def test_a_flag_stated_of_what_is_asked_is_set_and_not_unsets_it() -> None:
    query = (
        "The heat is 40 joules. The process is isothermal. What is the entropy change?"
        " What if the process is not isothermal, what is the entropy change?"
    )
    assert [c.arguments.get("isothermal") for c in read(query, [ENTROPY])] == [True, False]


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


SHARE = _tool(
    "market_share",
    "Market share of a company.",
    {
        "company": {"type": "string", "description": "The company."},
        "as_fraction": {
            "type": "boolean",
            "description": "When true, gives the share as a fraction instead of a percentage.",
        },
    },
    ["company"],
)


def test_what_a_flag_does_instead_when_off_asks_it_off() -> None:
    def flag(query: str) -> object:
        return read(query, [SHARE])[0].arguments.get("as_fraction")

    assert flag("What is the market share of Nokia, as a percentage?") is False
    assert flag("What is the market share of Nokia, as a fraction?") is True
    assert flag("What is the market share of Nokia?") is None


CANCEL = _tool(
    "cancel_hotel",
    "Cancel a hotel reservation.",
    {
        "reservation": {"type": "string", "description": "The reservation code."},
        "to_card": {
            "type": "boolean",
            "description": "Refund to the card used for booking instead of hotel credit",
        },
    },
    ["reservation"],
)


def test_a_word_the_tool_says_itself_asks_no_flag_off() -> None:
    (call,) = read("Cancel the hotel reservation T7YQ4W.", [CANCEL])
    assert call.arguments == {"reservation": "T7YQ4W"}


REPORT = _tool(
    "sales_report",
    "Sales report of one month.",
    {
        "month": {"type": "string", "description": "The month, e.g. March."},
        "itemised": {
            "type": "boolean",
            "description": "Return an itemised list if true, a summary total if false",
        },
    },
    ["month", "itemised"],
)


def test_a_flag_said_both_ways_asks_each_call_on_and_off() -> None:
    calls = read(
        "The sales report for March and April, as an itemised list as well as a summary total.",
        [REPORT],
    )
    assert sorted((c.arguments["month"], c.arguments["itemised"]) for c in calls) == [
        ("April", False), ("April", True), ("March", False), ("March", True),
    ]  # fmt: skip
    (one,) = read("The sales report for March as an itemised list.", [REPORT])
    assert one.arguments["itemised"] is True


QUOTE = _tool(
    "price_quote",
    "Quote the price of a product.",
    {
        "product": {"type": "string", "description": "The product to price."},
        "include_tax": {"type": "boolean", "description": "Whether the price includes tax."},
    },
    ["product"],
)


def test_with_and_without_a_flags_words_asks_it_both_ways() -> None:
    calls = read("Quote the price of the 'Aero 15' laptop with and without tax.", [QUOTE])
    assert sorted(c.arguments.get("include_tax") for c in calls) == [False, True]
    assert {c.arguments["product"] for c in calls} == {"Aero 15"}


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


SOUP = _tool(
    "soup_recipe",
    "Find a soup recipe.",
    {
        "main_vegetable": {"type": "string", "description": "The vegetable the soup is built on."},
        "servings": {"type": "integer", "description": "How many people it serves."},
    },
    ["main_vegetable"],
)


def test_a_word_said_as_the_parameters_name_is_its_value() -> None:
    (call,) = read("Find a soup that uses leek as the main vegetable, for 4 servings.", [SOUP])
    assert call.arguments == {"main_vegetable": "leek", "servings": 4}


HEATING = _tool(
    "heating_cost",
    "Yearly cost of heating a house.",
    {
        "area": {"type": "integer", "description": "The floor area in square meters."},
        "heating_source": {"type": "string", "description": "What the heating runs on."},
    },
    ["area", "heating_source"],
)


def test_a_word_before_a_hyphen_and_the_parameters_name_is_its_value() -> None:
    (call,) = read("What does it cost to keep a 120 m2 oil-heated house warm?", [HEATING])
    assert call.arguments == {"area": 120, "heating_source": "oil"}


BRIDGE = _tool(
    "bridge.get_details",
    "Retrieve details of a bridge by its name and city.",
    {
        "name": {"type": "string", "description": "The name of the bridge."},
        "city": {"type": "string", "description": "The city of the bridge."},
        "detail": {"type": "string", "description": "The specific detail wanted about it."},
    },
    ["name", "city"],
)


def test_the_fact_a_question_asks_of_something_is_the_which_fact_parameters_value() -> None:
    (call,) = read(
        "Find the main span of the bridge named 'Golden Gate' in San Francisco.", [BRIDGE]
    )
    assert call.arguments == {
        "name": "Golden Gate",
        "city": "San Francisco",
        "detail": "main span",
    }
    (call,) = read("Find the details of the bridge named 'Golden Gate' in San Francisco.", [BRIDGE])
    assert call.arguments == {"name": "Golden Gate", "city": "San Francisco"}


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


CONVERT = _tool(
    "unit_conversion",
    "Convert a value from one unit to another.",
    {
        "value": {"type": "number", "description": "The value to be converted."},
        "from_unit": {"type": "string", "description": "The unit to convert from."},
        "to_unit": {"type": "string", "description": "The unit to convert to."},
    },
    ["value", "from_unit", "to_unit"],
)


def test_a_conversion_goes_from_the_unit_a_number_is_said_in_to_the_other() -> None:
    calls = read("I have 15 kilometers that I would like to convert into miles.", [CONVERT])
    assert calls == (
        Call("unit_conversion", {"value": 15.0, "from_unit": "kilometers", "to_unit": "miles"}),
    )
    calls = read("I want to convert 3 meters. How many feet is it?", [CONVERT])
    assert calls[0].arguments == {"value": 3.0, "from_unit": "meters", "to_unit": "feet"}


TEMPERAMENT = _tool(
    "temperament_analyse",
    "Analyse a temperament.",
    {
        "calm_vs_lively": {"type": "string", "description": "Between calm and lively."},
        "early_vs_late": {"type": "string", "description": "Between early and late."},
    },
    ["calm_vs_lively", "early_vs_late"],
)


def test_a_choice_between_two_is_the_one_preferred_over_the_other() -> None:
    calls = read(
        "Analyse my temperament: I am more lively than calm, and I prefer late over early.",
        [TEMPERAMENT],
    )
    assert calls == (
        Call("temperament_analyse", {"calm_vs_lively": "lively", "early_vs_late": "late"}),
    )


LIFE = _tool(
    "game_of_life_play",
    "Runs rounds of the game of life from a board.",
    {
        "rounds": {"type": "integer", "description": "Number of rounds to play."},
        "start_board": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "Starting board, empty for a random start.",
        },
    },
    ["rounds", "start_board"],
)


def test_an_array_said_empty_by_its_noun_is_the_empty_list() -> None:
    calls = read("Play the game of life for 4 rounds starting from an empty board.", [LIFE])
    assert calls == (Call("game_of_life_play", {"rounds": 4, "start_board": []}),)


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


CELL = _tool(
    "get_cell_info",
    "Information about the structure of a type of cell.",
    {
        "cell_type": {"type": "string", "description": "Type of cell."},
        "detailed": {"type": "boolean", "description": "Whether to give a detailed description."},
    },
    ["cell_type"],
)


def test_a_flag_said_as_less_of_it_is_off() -> None:
    calls = read(
        "Give a detailed description of a neuron cell and then a less detailed description"
        " of a muscle cell.",
        [CELL],
    )
    assert [(c.arguments["cell_type"], c.arguments.get("detailed")) for c in calls] == [
        ("neuron", True),
        ("muscle", False),
    ]


TRANSIT = _tool(
    "find_shortest_route",
    "The shortest distance between two cities by public transportation.",
    {
        "start_city": {"type": "string", "description": "The city you start from."},
        "end_city": {"type": "string", "description": "The city you go to."},
        "transportation": {"type": "string", "description": "Preferred mode, e.g. bus."},
        "allow_transfer": {
            "type": "boolean",
            "description": "Allows transfer between different transportation if true.",
        },
    },
    ["start_city", "end_city"],
)


def test_another_parameters_name_is_no_other_form_of_a_flags_word() -> None:
    (call,) = read(
        "The shortest distance between Lyon and Nice using a bus as the mode of transportation.",
        [TRANSIT],
    )
    assert "allow_transfer" not in call.arguments


MOTION = _tool(
    "calculate_displacement",
    "Displacement of an object from its initial velocity, time and acceleration.",
    {
        "initial_velocity": {"type": "integer", "description": "The initial velocity in m/s."},
        "time": {"type": "integer", "description": "The time in seconds."},
        "acceleration": {"type": "number", "description": "The acceleration in m/s^2."},
    },
    ["initial_velocity", "time"],
)


def test_a_quantity_said_to_be_absent_by_its_name_is_zero() -> None:
    (call,) = read(
        "A car with an initial velocity of 25 m/s travels for 8 seconds without any"
        " acceleration. What is its displacement?",
        [MOTION],
    )
    assert call.arguments == {"initial_velocity": 25, "time": 8, "acceleration": 0.0}


CASE = _tool(
    "law_case.get_details",
    "Fetches details of a case including its history and the litigants involved.",
    {
        "case_number": {"type": "string", "description": "The number of the case."},
        "include_history": {"type": "boolean", "description": "Whether to include history."},
        "include_litigants": {"type": "boolean", "description": "Whether to include litigants."},
    },
    ["case_number"],
)


def test_a_flags_own_word_said_asks_it_though_the_tools_description_says_it() -> None:
    (call,) = read("Find the details of case 28473, its history and the litigants.", [CASE])
    assert call.arguments == {
        "case_number": "28473",
        "include_history": True,
        "include_litigants": True,
    }
    (call,) = read("Find the details of case 28473.", [CASE])
    assert call.arguments == {"case_number": "28473"}


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


DERIVATIVE = _tool(
    "calculus.derivative",
    "Compute the derivative of a function at a specific value.",
    {
        "function": {"type": "string", "description": "The function."},
        "value": {"type": "integer", "description": "The value to compute it at."},
        "function_variable": {"type": "string", "description": "The variable, e.g. x."},
    },
    ["function", "value"],
)


def test_a_quote_said_to_be_the_parameters_name_is_its_value() -> None:
    (call,) = read(
        "The derivative of the function '5y^3 - 4y + 2' at the value of 3 where 'y' is the"
        " function variable.",
        [DERIVATIVE],
    )
    assert call.arguments == {"function": "5y^3 - 4y + 2", "value": 3, "function_variable": "y"}


def test_an_option_said_apart_takes_no_word_of_an_option_found_whole() -> None:
    (call,) = read("Find a karate dojo that also gives judo classes in Lyon.", [DOJO])
    assert call.arguments == {"city": "Lyon", "classes": ["Judo Classes"], "gear": ["Karate"]}
