"""A boolean parameter's value: a flag said, stated, negated or asked both ways
(``template.flags``)."""

from __future__ import annotations

from services.synth.generators.template.reader import read
from tests.synth.test_reader_matching import _tool

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
