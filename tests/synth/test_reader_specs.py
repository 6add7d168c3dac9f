"""The schemas as the reader sees them (``template.specs``)."""

from __future__ import annotations

from services.synth.calls import Call
from services.synth.generators.template.reader import read
from services.synth.generators.template.specs import _hints, _param, undefaulted
from services.synth.generators.template.specs import _tool as _tool_spec
from tests.synth.test_reader_matching import _tool

MIXING = _tool(
    "final_temperature",
    "The temperature after mixing two bodies.",
    {
        "mass1": {"type": "integer", "description": "The mass of the first body (kg)."},
        "temperature1": {"type": "integer", "description": "The first temperature (Celsius)."},
        "mass2": {"type": "integer", "description": "The mass of the second body (kg)."},
        "temperature2": {"type": "integer", "description": "The second temperature (Celsius)."},
        "heat_capacity": {
            "type": "number",
            "description": "Heat capacity in kJ/kg/K. If not provided, that of water at room"
            " temperature.",
        },
    },
    ["mass1", "temperature1", "mass2", "temperature2"],
)


def test_words_of_the_default_say_less_of_what_is_asked() -> None:
    schema = {"type": "string", "description": "The medium of the field. Default is vacuum."}
    assert "vacuum" not in undefaulted(schema)
    stems = _param("medium", schema, False).stems
    assert stems["vacuum"] < stems["field"]


def test_a_value_goes_to_what_it_measures_not_to_the_words_of_a_default() -> None:
    query = "Mix 20 kg of water at 30 degree Celsius with 15 kg of water at 60 degree Celsius."
    calls = read(query, [MIXING])
    assert calls == (
        Call(
            "final_temperature",
            {"mass1": 20, "temperature1": 30, "mass2": 15, "temperature2": 60},
        ),
    )


PLANET = _tool(
    "weight_in_space",
    "Calculate your weight on other planets given your weight on earth.",
    {
        "weight_kg": {"type": "number", "description": "Your weight on Earth in kg."},
        "planet": {"type": "string", "description": "The planet."},
    },
    ["weight_kg", "planet"],
)


def test_a_pronoun_is_no_word_of_a_tool() -> None:
    assert "your" not in _tool_spec(PLANET).words
    assert "weight" in _tool_spec(PLANET).words


def test_examples_after_ie_or_for_instance_are_offered_without_etc() -> None:
    said = "The type of information, i.e., victim, accused, verdict etc."
    assert _param("info", {"type": "string", "description": said}, True).hints == (
        "victim",
        "accused",
        "verdict",
    )
    said = "The variable, for instance 'x' or 'y', etc. Default is 'x'."
    assert _param("var", {"type": "string", "description": said}, False).hints[:2] == ("x", "y")


def test_if_is_no_word_of_a_tool() -> None:
    spec = _tool_spec(_tool("reserve_book", "Reserves a book if available.", {}, []))
    assert "if" not in spec.words
    assert "available" in spec.words


def test_new_is_no_word_of_a_tool() -> None:
    spec = _tool_spec(_tool("create_profile", "Create a new player profile.", {}, []))
    assert "new" not in spec.words
    assert "player" in spec.words


def test_options_a_description_lists_in_brackets_are_its_hints() -> None:
    schema = {"type": "string", "description": "The type of paint (Watercolor, Oil, Acrylic)."}
    assert _param("paint_type", schema, True).hints == ("Watercolor", "Oil", "Acrylic")
    unit = {"type": "string", "description": "The unit (optional, default is 'km')."}
    assert _param("unit", unit, False).hints == ("km",)


def test_values_listed_after_i_e_are_offered_without_etc() -> None:
    schema = {"type": "string", "description": "Which facts to return, i.e., referee, score etc."}
    assert _hints(schema) == ("referee", "score")
    match = _tool(
        "get_match_info",
        "Retrieve the facts of a football match by its code.",
        {
            "match_code": {"type": "string", "description": "The code of the match."},
            "info_type": schema,
        },
        ["match_code", "info_type"],
    )
    calls = read("Who was the referee in the match numbered M-2291?", [match])
    assert calls == (Call("get_match_info", {"match_code": "M-2291", "info_type": "referee"}),)


SCORES = _tool(
    "arcade.get_scores",
    "Get the scores of a player in an arcade game.",
    {
        "game": {"type": "string", "description": "The name of the game."},
        "username": {"type": "string", "description": "The player's handle."},
        "team": {"type": "string", "description": "The team the user plays for."},
    },
    ["game", "username"],
)


def test_a_name_compounded_with_name_is_said_by_its_head_word() -> None:
    assert _param("username", {"type": "string"}, True).stems["user"] == 2.0
    calls = read("Show the scores in 'Tetris' for user 'kim22'.", [SCORES])
    assert calls == (Call("arcade.get_scores", {"game": "Tetris", "username": "kim22"}),)
