"""The reader's cutting of a request into asks (``template.routing``)."""

from __future__ import annotations

import re

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from services.synth.generators.template.routing import _nested, _respelled, _split_outside
from services.synth.generators.template.specs import _tool as _spec
from tests.synth.test_reader_matching import PROJECTION, _tool
from tests.synth.test_reader_phrasings import CONVERT

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


BOOK = _tool(
    "book_summary",
    "Get a summary of a book.",
    {
        "title": {"type": "string", "description": "Title of the book."},
        "spoilers": {"type": "boolean", "description": "Whether to reveal the ending."},
    },
    ["title"],
)


def test_a_clause_that_ends_a_sentence_an_ask_began_adds_to_that_ask() -> None:
    calls = read(
        "I'm reading 'Emma'. Could you give me a book summary of it and also reveal the "
        "ending? Then, I need a route from Nice to Arles.",
        [BOOK, ROUTE],
    )
    assert [c.name for c in calls] == ["book_summary", "get_route"]
    assert calls[0].arguments == {"title": "Emma", "spoilers": True}


SCULPTURE = _tool(
    "sculpture_details",
    "Details of a sculpture by its artist and title.",
    {
        "artist": {"type": "string", "description": "The artist who made the sculpture."},
        "title": {"type": "string", "description": "The title of the sculpture."},
        "detail": {"type": "string", "description": "The detail wanted about the sculpture."},
    },
    ["artist", "title"],
)


def test_a_clause_that_says_its_adds_to_the_ask_before() -> None:
    calls = read(
        "Tell me about the sculpture with the title 'David' by the artist 'Michelangelo'. "
        "I want to know about its 'material'. Then, I need a route from Nice to Arles.",
        [SCULPTURE, ROUTE],
    )
    assert [c.name for c in calls] == ["sculpture_details", "get_route"]
    assert calls[0].arguments["detail"] == "material"
    assert calls[1].arguments == {"start": "Nice", "end": "Arles"}


MONEY = _tool(
    "currency_conversion",
    "Convert a value from one currency to another.",
    {
        "amount": {"type": "number", "description": "The amount to be converted."},
        "from_currency": {"type": "string", "description": "The currency to convert from."},
        "to_currency": {"type": "string", "description": "The currency to convert to."},
    },
    ["amount", "from_currency", "to_currency"],
)


def test_a_clause_that_names_two_units_of_one_measure_asks_a_unit_conversion() -> None:
    calls = read(
        "First, I have 300 euros that I would like to convert into US dollars. After that, "
        "I have 12 miles that I would like to convert into kilometers.",
        [MONEY, CONVERT],
    )
    assert [c.name for c in calls] == ["currency_conversion", "unit_conversion"]
    assert calls[1].arguments == {"value": 12.0, "from_unit": "miles", "to_unit": "kilometers"}


def test_a_closing_clause_that_points_back_at_the_asks_asks_nothing() -> None:
    calls = read(
        "I need a route from Nice to Arles. Then, I'd like the details of the sculpture with "
        "the title 'David' by the artist 'Michelangelo'. Can you assist Mary with these tasks?",
        [SCULPTURE, ROUTE],
    )
    assert [c.name for c in calls] == ["get_route", "sculpture_details"]
    assert calls[1].arguments == {"artist": "Michelangelo", "title": "David"}


COLLECTABLES = _tool(
    "get_collectables_in_season",
    "Retrieve a list of collectable items in a game during a season.",
    {
        "game_name": {"type": "string", "description": "Name of the game."},
        "season": {"type": "string", "description": "The season."},
        "item_type": {
            "type": "string",
            "description": "Type of item, e.g. bug, fish, sea creatures.",
        },
    },
    ["game_name", "season"],
)


def test_a_clause_that_says_this_adds_to_the_ask_before() -> None:
    calls = read(
        "In the game 'Stardew Valley', I am interested in collecting bugs during the 'Spring' "
        "season. Could you tell me what bugs there are during this time? Also, in the same "
        "game, I would like to know what fish can be collected in the 'Fall' season.",
        [COLLECTABLES, ROUTE],
    )
    assert [(c.arguments["season"], c.arguments.get("item_type")) for c in calls] == [
        ("Spring", "bug"),
        ("Fall", "fish"),
    ]


SEARCH_BOOK = _tool(
    "search_book",
    "Searches for a book in the library within a city.",
    {
        "book_name": {"type": "string", "description": "The name of the book."},
        "city": {"type": "string", "description": "The city to search within."},
        "availability": {"type": "boolean", "description": "If true, available copies only."},
    },
    ["book_name", "city"],
)


RESERVE_BOOK = _tool(
    "reserve_book",
    "Reserves a book in the library if available.",
    {
        "book_id": {"type": "string", "description": "The id of the book."},
        "branch_id": {"type": "string", "description": "The id of the library branch."},
    },
    ["book_id", "branch_id"],
)


def test_a_clause_naming_a_parameter_by_a_word_of_its_family_stays_with_that_ask() -> None:
    calls = read(
        "I am looking for a book named 'Emma' in the city of Bath. I would like to know if "
        "it's available. Then can you reserve it? The book id is 'B12' and the branch id is "
        "'BR7'.",
        [SEARCH_BOOK, RESERVE_BOOK],
    )
    assert [c.name for c in calls] == ["search_book", "reserve_book"]
    assert calls[0].arguments == {"book_name": "Emma", "city": "Bath", "availability": True}


DNA = _tool(
    "analyze_dna_sequence",
    "Analyzes a DNA sequence against a reference sequence for mutations.",
    {
        "sequence": {"type": "string", "description": "The DNA sequence to analyze."},
        "reference_sequence": {"type": "string", "description": "The reference sequence."},
        "mutation_type": {
            "type": "string",
            "enum": ["insertion", "deletion", "substitution"],
            "description": "Type of the mutation.",
        },
    },
    ["sequence", "reference_sequence"],
)


def test_a_clause_that_asks_the_same_again_is_an_ask_of_its_own() -> None:
    calls = read(
        'Can you analyze the DNA sequence "ACGTTA" and "ACGGTA" using the reference sequence '
        "\"ACGTTA\" to identify any 'insertion' mutations, then repeat the same analysis for "
        "'deletion' mutations?",
        [DNA],
    )
    said = [(c.arguments["sequence"], c.arguments.get("mutation_type")) for c in calls]
    assert said[:2] == [("ACGTTA", "insertion"), ("ACGGTA", "insertion")]
    assert {m for _, m in said[2:]} == {"deletion"}


def test_a_clause_that_opens_a_sentence_leads_up_to_the_next_ask() -> None:
    calls = read(
        "Could you give me a book summary of 'Emma'? After that, consider the trip from Nice "
        "to Arles. Can you give me the route?",
        [BOOK, ROUTE],
    )
    assert calls == (
        Call("book_summary", {"title": "Emma"}),
        Call("get_route", {"start": "Nice", "end": "Arles"}),
    )


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


_MOTION = {
    "initial_speed": {"type": "number", "description": "The initial speed in m/s."},
    "acceleration": {"type": "number", "description": "The acceleration in m/s^2."},
    "time": {"type": "number", "description": "The time in seconds."},
}
SPEED = _tool(
    "final_speed",
    "Calculate the final speed of an object that starts from an initial speed and accelerates.",
    _MOTION,
    list(_MOTION),
)
DISPLACEMENT = _tool(
    "displacement",
    "Calculate displacement from initial speed, acceleration and time.",
    _MOTION,
    list(_MOTION),
)


def test_a_clause_that_says_this_and_a_value_of_its_own_may_lead_up_to_the_next_ask() -> None:
    calls = read(
        "A bike starts with an initial speed of 3 m/s. Then it starts to accelerate at 4 m/s^2. "
        "The rider keeps this acceleration for 6 seconds. What is the displacement of the bike? "
        "Also, what is its final speed after these 6 seconds?",
        [SPEED, DISPLACEMENT],
    )
    said = {"initial_speed": 3.0, "acceleration": 4.0, "time": 6.0}
    assert calls == (Call("displacement", said), Call("final_speed", said))


PLAYER = _tool(
    "create_player_profile",
    "Create a new player profile with a name and class.",
    {
        "player_name": {"type": "string", "description": "The name of the player."},
        "class_type": {"type": "string", "description": "The class of the player."},
    },
    ["player_name", "class_type"],
)


CONCERT = _tool(
    "concert.find_nearby",
    "Locate nearby concerts based on genre.",
    {
        "location": {"type": "string", "description": "The city and state, e.g. Seattle, WA"},
        "genre": {"type": "string", "description": "Genre of the music."},
    },
    ["location", "genre"],
)


def test_a_tools_own_word_outweighs_a_word_said_of_what_another_tools_doer_does() -> None:
    calls = read(
        "Make a player named 'Zed' of class 'Mage'. Then find a nearby concert. I am in "
        "'Austin, TX' and want a concert that plays 'Jazz' music.",
        [PLAYER, CONCERT],
    )
    assert [c.arguments for c in calls] == [
        {"player_name": "Zed", "class_type": "Mage"},
        {"location": "Austin, TX", "genre": "Jazz"},
    ]


def test_an_object_holding_an_object_is_never_cut_into_clauses() -> None:
    text = 'new: (name "Ada", address (street "9 Kingsway", city "Leeds")), and reserve it'
    assert _nested(text) == [(5, 62)]
    pieces = _split_outside(re.compile(r"(,\s+)"), text)
    assert pieces[0] == 'new: (name "Ada", address (street "9 Kingsway", city "Leeds"))'
