"""The reader's cutting of a request into asks (``template.routing``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from services.synth.generators.template.routing import _respelled
from services.synth.generators.template.specs import _tool as _spec
from tests.synth.test_reader_matching import PROJECTION, _tool

SUITS = _tool(
    "lawsuit_search",
    "Search lawsuits involving a person or company.",
    {
        "entity": {"type": "string", "description": "The person or company."},
        "county": {"type": "string", "description": "The county."},
    },
    ["entity"],
)


def test_a_titles_period_ends_no_sentence() -> None:
    calls = read("Find lawsuits involving Dr. Jane Roe in the county of Marin.", [SUITS])
    assert calls == (Call("lawsuit_search", {"entity": "Dr. Jane Roe", "county": "Marin"}),)


PUBLISHED = _tool(
    "literature.get_publicat",
    "Retrieve a publication of a writer in a given year.",
    {
        "writer": {"type": "string", "description": "The writer."},
        "year": {"type": "integer", "description": "The year."},
    },
    ["writer", "year"],
)
GCD = _tool(
    "math.gcd",
    "Greatest common divisor of two integers.",
    {
        "num1": {"type": "integer", "description": "First number."},
        "num2": {"type": "integer", "description": "Second number."},
    },
    ["num1", "num2"],
)


def test_a_word_weighs_as_its_kin_in_the_tools_name_though_the_description_says_it() -> None:
    calls = read("What was Mary Shelley's best known publication in 1818?", [GCD, PUBLISHED])
    assert calls == (Call("literature.get_publicat", {"writer": "Mary Shelley", "year": 1818}),)


BAKERY = _tool(
    "bakery.find_nearby",
    "Locate nearby bakeries by what they sell.",
    {
        "location": {"type": "string", "description": "The city."},
        "sells": {
            "type": "array",
            "items": {"type": "string", "enum": ["Bagels", "Coffee", "Cakes"]},
            "description": "What the bakery sells.",
        },
    },
    ["location"],
)


def test_also_after_that_or_which_adds_to_the_same_ask() -> None:
    calls = read("Find a bagel bakery that also sells coffee in Paris.", [GCD, BAKERY])
    assert calls == (
        Call("bakery.find_nearby", {"location": "Paris", "sells": ["Bagels", "Coffee"]}),
    )


LOAN = _tool(
    "loan_payment",
    "Monthly payment of a loan.",
    {
        "principal": {"type": "integer", "description": "The amount borrowed."},
        "interest": {"type": "number", "description": "Yearly rate. Default 0.05."},
    },
    ["principal"],
)


def test_a_word_one_letter_off_a_parameters_name_is_that_word() -> None:
    calls = read("What is the monthly payment on 20000 borrowed at an intrest of 0.04?", [LOAN])
    assert calls == (Call("loan_payment", {"principal": 20000, "interest": 0.04}),)
    assert _respelled("the 'intrest' and interests", [_spec(LOAN)]) == "the 'intrest' and interests"


def _finder(name: str, who: str) -> dict:
    return _tool(
        name,
        f"Search for a {who} based on area of expertise and location.",
        {
            "location": {"type": "string", "description": "The city."},
            "expertise": {"type": "string", "description": "The area of expertise."},
        },
        ["location", "expertise"],
    )


def test_a_word_says_the_tool_of_the_one_who_does_it() -> None:
    calls = read(
        "Search for art restoration experts in Rome.",
        [_finder("doctor.search", "doctor"), _finder("artist.search", "artist")],
    )
    assert [c.name for c in calls] == ["artist.search"]


HOTEL = _tool(
    "hotel_room_pricing.get",
    "Get pricing for a specific type of hotel room.",
    {
        "hotelName": {"type": "string", "description": "The name of the hotel"},
        "nights": {"type": "integer", "description": "Number of nights"},
    },
    ["hotelName", "nights"],
)
CAR = _tool(
    "car_rental_pricing.get",
    "Estimate the cost of renting a car.",
    {
        "rentalCompany": {"type": "string", "description": "The rental company"},
        "carType": {"type": "string", "description": "Type of the car, e.g. SUV, Sedan"},
        "length": {"type": "integer", "description": "How long the rental lasts"},
    },
    ["rentalCompany", "carType", "length"],
)
FLIGHT = _tool(
    "flight_ticket_pricing.get",
    "Get pricing for a flight ticket.",
    {
        "airline": {"type": "string", "description": "The airline"},
        "passengers": {"type": "integer", "description": "Number of passengers"},
    },
    ["airline", "passengers"],
)


def test_a_clause_with_values_that_shares_words_with_one_tool_only_asks_it() -> None:
    query = (
        "First, I'm staying at the Grand Plaza hotel for 4 nights. How much would that cost? "
        "Second, I'm thinking of renting a van from Hertz for 6 days. "
        "Lastly, I'm flying with United Airlines, 2 passengers. What is the flight ticket price?"
    )
    calls = read(query, [HOTEL, CAR, FLIGHT])
    assert [c.name for c in calls] == [
        "hotel_room_pricing.get",
        "car_rental_pricing.get",
        "flight_ticket_pricing.get",
    ]
    assert calls[1].arguments == {"rentalCompany": "Hertz", "carType": "van", "length": 6}


UNITS = _tool(
    "convert_units",
    "Convert a value from one unit to another.",
    {
        "value": {"type": "number", "description": "The value."},
        "from_unit": {"type": "string", "description": "The unit it is in."},
        "to_unit": {"type": "string", "description": "The unit wanted."},
    },
    ["value", "from_unit", "to_unit"],
)
ROUTE = _tool(
    "get_route",
    "Directions from a start to an end.",
    {
        "start": {"type": "string", "description": "Where the route starts."},
        "end": {"type": "string", "description": "Where the route ends."},
        "avoid": {
            "type": "array",
            "items": {"type": "string", "enum": ["tolls", "highways", "ferries"]},
            "description": "Features to leave out.",
        },
    },
    ["start", "end"],
)


def test_a_clause_that_says_a_tools_listed_options_is_about_that_tool() -> None:
    calls = read(
        "First, convert 5 miles to kilometers. Then, I need to plan my trip from Porto to "
        "Braga, but I want to avoid tolls and ferries.",
        [UNITS, ROUTE],
    )
    assert [c.name for c in calls] == ["convert_units", "get_route"]
    assert calls[1].arguments == {"start": "Porto", "end": "Braga", "avoid": ["tolls", "ferries"]}


BIRDS = _tool(
    "bird_census",
    "Get the count of birds in a wetland.",
    {
        "wetland": {"type": "string", "description": "The name of the wetland."},
        "year": {"type": "integer", "description": "The year of the count."},
        "species": {"type": "boolean", "description": "Whether to include species detail."},
    },
    ["wetland"],
)


def test_a_clause_naming_only_the_ask_befores_parameter_stays_with_that_ask() -> None:
    calls = read(
        "I would like the bird count in the Camargue wetland in the year 2020, and also "
        "include the species detail. Then, I need a route from Nice to Arles.",
        [BIRDS, ROUTE],
    )
    assert [c.name for c in calls] == ["bird_census", "get_route"]
    assert calls[0].arguments.get("species") is True
    assert calls[1].arguments == {"start": "Nice", "end": "Arles"}


def test_and_then_a_new_question_after_a_comma_is_an_ask_of_its_own() -> None:
    calls = read(
        "What is the projected population growth of Japan in the next 10 years, and how would"
        " it change if we consider a growth rate of 2%?",
        [PROJECTION],
    )
    assert [c.arguments for c in calls] == [
        {"country": "Japan", "years": 10},
        {"country": "Japan", "years": 10, "growth_rate": 0.02},
    ]


SEASON = _tool(
    "get_collectables_in_season",
    "Collectable items in a game during a season.",
    {
        "game_name": {"type": "string", "description": "Name of the game."},
        "season": {"type": "string", "description": "The season."},
        "item_type": {"type": "string", "description": "Possible values: 'bug', 'fish'."},
    },
    ["game_name", "season"],
)
SNP = _tool(
    "mutation_type.find",
    "The type of a genetic mutation from its SNP ID.",
    {"snp_id": {"type": "string", "description": "The SNP ID."}},
    ["snp_id"],
)


def test_a_clause_without_values_that_points_back_stays_with_the_ask_before() -> None:
    calls = read(
        "In the game 'Animal Crossing', I collect bugs during the 'Summer' season. Could you"
        " find out what bugs are available during this time? Also, in the same game, what fish"
        " can be collected in the 'Winter' season? Lastly, what type is the mutation 'rs53576'?",
        [SEASON, SNP],
    )
    assert [c.arguments for c in calls] == [
        {"game_name": "Animal Crossing", "season": "Summer", "item_type": "bug"},
        {"game_name": "Animal Crossing", "season": "Winter", "item_type": "fish"},
        {"snp_id": "rs53576"},
    ]
