"""Values said in pairs and currencies (``template.pairing``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

WORTH = _tool(
    "net_worth",
    "Get the net worth of a celebrity.",
    {
        "name": {"type": "string", "description": "Name of the celebrity."},
        "currency": {
            "type": "string",
            "description": "The currency in which the net worth will be returned.",
        },
    },
    ["name", "currency"],
)


def test_a_currency_said_by_name_goes_to_the_currency() -> None:
    calls = read(
        "Can you tell me the net worth of the famous singer Adele Adkins in Euros?", [WORTH]
    )
    assert calls == (Call("net_worth", {"name": "Adele Adkins", "currency": "EUR"}),)


HANDS = _tool(
    "hand_angle",
    "The angle between the hands of a clock.",
    {
        "hours": {"type": "integer", "description": "The hour on the clock face."},
        "minutes": {"type": "integer", "description": "The minutes on the clock face."},
    },
    ["hours", "minutes"],
)


def test_a_time_is_its_hour_and_minutes_for_a_tool_that_asks_them_apart() -> None:
    calls = read("What is the angle between the hands at 9:45 PM?", [HANDS])
    assert calls == (Call("hand_angle", {"hours": 9, "minutes": 45}),)


MOVIES = _tool(
    "find_movies_by_actor",
    "Search the movies an actor starred in.",
    {
        "actor_name": {"type": "string", "description": "The name of the actor."},
        "year": {"type": "integer", "description": "The year to search in."},
        "category": {
            "type": "string",
            "description": "The category of the film (e.g. Drama, Comedy, etc).",
        },
    },
    ["actor_name", "year"],
)


def test_several_examples_a_description_offers_go_to_that_parameter_only() -> None:
    query = "Find the Drama and Comedy movies that Tom Hanks starred in 2010 and 2012 respectively."
    calls = read(query, [MOVIES])
    assert [c.arguments for c in calls] == [
        {"actor_name": "Tom Hanks", "year": 2010, "category": "Drama"},
        {"actor_name": "Tom Hanks", "year": 2012, "category": "Comedy"},
    ]


LOAN = _tool(
    "loan_check",
    "Check loan eligibility.",
    {
        "bank": {"type": "string", "description": "The name of the bank e.g. HSBC"},
        "amount": {"type": "integer", "description": "The loan amount in USD"},
    },
    ["bank", "amount"],
)


def test_one_example_said_alone_stays_one_value_among_others() -> None:
    query = "Check a loan of $500,000 from HSBC and a loan of $700,000 from Wells Fargo."
    banks = [c.arguments["bank"] for c in read(query, [LOAN])]
    assert banks == ["HSBC", "Wells Fargo"]


HOURS = _tool(
    "museum_hours",
    "Opening hours of a museum.",
    {
        "museum": {"type": "string", "description": "Name of the museum."},
        "day": {"type": "string", "description": "Day of the week, e.g. Monday, Tuesday."},
    },
    ["museum"],
)


def test_a_word_said_once_is_the_value_of_the_parameter_that_offers_it() -> None:
    query = "I plan to visit the Prado museum, can you tell me its opening hours on Monday?"
    assert read(query, [HOURS]) == (Call("museum_hours", {"museum": "Prado", "day": "Monday"}),)


GUITAR = _tool(
    "find_guitar",
    "Locate a guitar for sale based on specific requirements.",
    {
        "brand": {"type": "string", "description": "The brand of the guitar. Example, 'Gibson'"},
        "specs": {
            "type": "array",
            "items": {"type": "string", "enum": ["solid top", "D tuning", "gold tuners"]},
            "description": "The specifications of the guitar desired.",
        },
    },
    ["brand", "specs"],
)


def test_a_word_of_another_parameters_value_is_no_further_value() -> None:
    query = (
        "Find a Martin guitar with the specifications of solid top, D tuning, and gold tuners"
        " available for sale."
    )
    specs = ["solid top", "D tuning", "gold tuners"]
    assert read(query, [GUITAR]) == (Call("find_guitar", {"brand": "Martin", "specs": specs}),)


BLEND = _tool(
    "blend_dyes",
    "Blend two dyes into a new shade.",
    {
        "dye1": {"type": "string", "description": "The first dye to blend."},
        "dye2": {"type": "string", "description": "The second dye to blend."},
        "strength": {"type": "integer", "description": "The strength of the shade in percent."},
    },
    ["dye1", "dye2"],
)


def test_two_words_joined_by_and_next_to_the_twins_noun_are_the_twins() -> None:
    for query in (
        "Blend indigo and saffron dyes at a strength of 40 percent.",
        "I want to blend two natural dyes, indigo and saffron, at a strength of 40 percent.",
    ):
        (call,) = read(query, [BLEND])
        assert call.arguments == {"dye1": "indigo", "dye2": "saffron", "strength": 40}


FLIGHT_TIME = _tool(
    "flight_time",
    "Flight time between two airports.",
    {
        "origin_city": {"type": "string", "description": "The city the flight leaves."},
        "destination_city": {"type": "string", "description": "The city the flight lands."},
    },
    ["origin_city", "destination_city"],
)


def test_between_two_of_a_kind_then_a_pair_is_an_end_pair() -> None:
    calls = read("What is the flight time between two cities, Lisbon and Oslo?", [FLIGHT_TIME])
    assert [c.arguments for c in calls] == [{"origin_city": "Lisbon", "destination_city": "Oslo"}]


EXCHANGE = _tool(
    "exchange",
    "Exchange an amount of money into another currency.",
    {
        "amount": {"type": "number", "description": "The amount of money."},
        "from_currency": {"type": "string", "description": "The currency of the amount."},
        "to_currency": {"type": "string", "description": "The currency wanted."},
    },
    ["amount", "from_currency", "to_currency"],
)


def test_a_currency_said_with_its_country_word_is_its_code() -> None:
    (call,) = read("How many Japanese yen do I get for 300 British pounds?", [EXCHANGE])
    assert call.arguments == {"amount": 300, "from_currency": "GBP", "to_currency": "JPY"}


FILM = _tool(
    "film_brief",
    "A brief about a film.",
    {
        "title": {"type": "string", "description": "Title of the film"},
        "extra": {
            "type": "boolean",
            "description": "Option to add details like Director, Cast, Awards etc.",
        },
    },
    ["title"],
)


def test_names_a_flags_description_lists_say_the_flag_and_are_no_values() -> None:
    calls = read(
        "Give me a film brief of 'Alien' and add details like Director, Cast, Awards.", [FILM]
    )
    assert calls == (Call("film_brief", {"title": "Alien", "extra": True}),)


def test_to_a_place_from_another_says_the_end_then_the_start() -> None:
    calls = read(
        "What is the flight time from Lisbon to Oslo and then from Oslo to Rome, as I have to"
        " return to Lisbon from Rome?",
        [FLIGHT_TIME],
    )
    assert [tuple(c.arguments.values()) for c in calls] == [
        ("Lisbon", "Oslo"),
        ("Oslo", "Rome"),
        ("Rome", "Lisbon"),
    ]


GROWTH = _tool(
    "calculate_cagr",
    "The compound annual growth rate of an investment.",
    {
        "initial_value": {"type": "integer", "description": "The initial investment value."},
        "final_value": {"type": "integer", "description": "The final investment value."},
        "period_in_years": {"type": "integer", "description": "The period in years."},
    },
    ["initial_value", "final_value", "period_in_years"],
)


def test_the_two_ends_of_one_thing_take_their_values_in_the_order_said() -> None:
    (call,) = read(
        "John invested $5000 in a fund 5 years ago. Today, the value of his investment has"
        " grown to $7000. What is the growth rate?",
        [GROWTH],
    )
    assert call.arguments == {"initial_value": 5000, "final_value": 7000, "period_in_years": 5}
    (call,) = read(
        "The final value is $9000 after 4 years, and the initial value was $6000. The growth?",
        [GROWTH],
    )
    assert call.arguments == {"initial_value": 6000, "final_value": 9000, "period_in_years": 4}


QUADRATIC = _tool(
    "quadratic_roots",
    "Find the roots of a quadratic equation ax^2 + bx + c = 0.",
    {
        "a": {"type": "integer", "description": "Coefficient of x^2."},
        "b": {"type": "integer", "description": "Coefficient of x."},
        "c": {"type": "integer", "description": "Constant term."},
    },
    ["a", "b", "c"],
)


def test_a_polynomial_gives_each_coefficient_parameter_its_powers_coefficient() -> None:
    (call,) = read("Find the roots of the equation 2x^2 - 7x + 3 = 0.", [QUADRATIC])
    assert call.arguments == {"a": 2, "b": -7, "c": 3}
    (call,) = read("Find the roots of x^2 - 4 = 0.", [QUADRATIC])
    assert call.arguments == {"a": 1, "b": 0, "c": -4}


STALLS = _tool(
    "market.find_stalls",
    "Find market stalls selling a product.",
    {
        "product": {"type": "string", "description": "The product the stalls should sell."},
        "vegan": {"type": "boolean", "description": "If the product should be vegan."},
    },
    ["product"],
)


def test_a_flag_set_by_its_word_takes_that_word_from_the_text_value_it_opens() -> None:
    (call,) = read("Find the top vegan cheese stalls at the market.", [STALLS])
    assert call.arguments == {"product": "cheese", "vegan": True}


DOJO = _tool(
    "dojo.find_nearby",
    "Locate nearby martial arts schools.",
    {
        "city": {"type": "string", "description": "The city."},
        "classes": {
            "type": "array",
            "items": {"type": "string", "enum": ["Karate Classes", "Judo Classes"]},
            "description": "Classes the school gives.",
        },
        "gear": {
            "type": "array",
            "items": {"type": "string", "enum": ["Karate", "Judo", "Boxing"]},
            "description": "Gear the school sells.",
        },
    },
    ["city"],
)


def test_an_option_inside_a_longer_option_another_list_took_is_none_of_its_own() -> None:
    (call,) = read("Find a boxing dojo giving judo classes in Lyon.", [DOJO])
    assert call.arguments == {"city": "Lyon", "classes": ["Judo Classes"], "gear": ["Boxing"]}


NUTRITION = _tool(
    "nutrition_facts",
    "Nutrition facts of a food.",
    {
        "food": {"type": "string", "description": "The food."},
        "facts": {
            "type": "array",
            "items": {"type": "string", "enum": ["Sugar", "Salt", "Fat"]},
            "description": "Which facts.",
        },
    },
    ["food", "facts"],
)


def test_a_phrase_that_is_an_option_of_a_closed_list_is_no_other_value() -> None:
    (call,) = read("Check the amount of sugar and salt in a mango.", [NUTRITION])
    assert call.arguments == {"food": "mango", "facts": ["Sugar", "Salt"]}


DINER = _tool(
    "restaurant_finder",
    "Search for restaurants by location and cuisine.",
    {
        "location": {"type": "string", "description": "City and state, e.g. Boston, MA."},
        "cuisine": {"type": "string", "description": "Type of cuisine, e.g. Greek, Thai etc."},
    },
    ["location", "cuisine"],
)


def test_a_parameter_whose_examples_are_said_takes_no_other_name() -> None:
    calls = read("Find a Greek restaurant in Boston and a Thai restaurant in Denver.", [DINER])
    assert [c.arguments for c in calls] == [
        {"location": "Boston, MA", "cuisine": "Greek"},  # the example's form
        {"location": "Denver", "cuisine": "Thai"},
    ]
