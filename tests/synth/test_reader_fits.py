"""How well a mention fits a parameter (``template.fits``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

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


CHESS = _tool(
    "chess_play",
    "Makes moves in a chess game.",
    {"moves": {"type": "array", "items": {"type": "string"}, "description": "Moves to play."}},
    ["moves"],
)


def test_an_ordinal_that_says_which_is_no_text_value() -> None:
    calls = read("Play chess where the 1st move is d4 and the 2nd move is d5.", [CHESS])
    assert calls == (Call("chess_play", {"moves": ["d4", "d5"]}),)
