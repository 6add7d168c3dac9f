"""Stage 3 of the template generator reads natural queries forward, from schemas alone."""

from __future__ import annotations

import datetime as dt

from services.synth.calls import Call, GroundTruth
from services.synth.catalog import builtin_catalog
from services.synth.checker import check_calls
from services.synth.generators.template import TemplateGenerator
from services.synth.generators.template.asks import _SAME
from services.synth.generators.template.mentions import find_mentions
from services.synth.generators.template.reader import read
from services.synth.surface import relative_dates
from tests.synth.test_reader_flags import TRANSIT
from tests.synth.test_reader_matching import PROJECTION, _tool

WEATHER = _tool(
    "get_weather",
    "Current weather for a city.",
    {
        "city": {"type": "string", "description": "The city, e.g. Oslo"},
        "date": {"type": "string", "format": "date", "description": "The day"},
    },
    ["city"],
)
TRIANGLE = _tool(
    "calculate_triangle_area",
    "Calculate the area of a triangle given its base and height.",
    {
        "base": {"type": "integer", "description": "The base of the triangle."},
        "height": {"type": "integer", "description": "The height of the triangle."},
        "unit": {"type": "string", "description": "The unit of measure."},
    },
    ["base", "height"],
)
FLIGHT = _tool(
    "search_flights",
    "Search flights between two airports.",
    {
        "origin": {"type": "string", "description": "IATA code of the departure airport"},
        "destination": {"type": "string", "description": "IATA code of the arrival airport"},
        "cabin": {"type": "string", "enum": ["economy", "business"], "description": "Cabin"},
        "nonstop": {"type": "boolean", "description": "Only direct flights without stops"},
        "max_price": {"type": "number", "description": "Highest fare in USD"},
    },
    ["origin", "destination"],
)
DIET = _tool(
    "find_restaurants",
    "Find places to eat in a city.",
    {
        "location": {"type": "string", "description": "City where to look"},
        "diet": {"type": "string", "description": "Dietary need, e.g. vegan, halal"},
    },
    ["location"],
)


def test_values_by_type_and_description_words_without_labels() -> None:
    calls = read(
        "Find the area of a triangle with a base of 10 units and height of 5 units.", [TRIANGLE]
    )
    assert calls == (Call("calculate_triangle_area", {"base": 10, "height": 5}),)
    calls = read(
        "Flights with JFK as the departure airport to LHR, business, up to $900.", [FLIGHT]
    )
    assert calls[0].arguments == {
        "origin": "JFK", "destination": "LHR", "cabin": "business", "max_price": 900.0
    }  # fmt: skip


def test_flags_examples_from_descriptions_and_negation() -> None:
    calls = read("Any vegan places to eat in Mexico City?", [DIET, WEATHER])
    assert calls == (Call("find_restaurants", {"location": "Mexico City", "diet": "vegan"}),)
    direct = read("Flights from JFK to LHR, direct only without stops please", [FLIGHT])
    assert direct[0].arguments["nonstop"] is True
    skip = read("Flights from JFK to LHR, no need for direct flights", [FLIGHT])
    assert skip[0].arguments.get("nonstop") is False


def test_several_calls_in_one_sentence_and_number_words() -> None:
    calls = read("What's the weather in Oslo and Bergen on March 3, 2027?", [WEATHER])
    assert calls == (
        Call("get_weather", {"city": "Oslo", "date": "2027-03-03"}),
        Call("get_weather", {"city": "Bergen", "date": "2027-03-03"}),
    )
    area = read("The area of a triangle with a base of twelve and a height of 7?", [TRIANGLE])
    assert area[0].arguments == {"base": 12, "height": 7}


def test_relative_dates_against_a_reference() -> None:
    thursday = dt.date(2026, 3, 12)
    spans = relative_dates("tomorrow, next Friday or in 3 days", thursday)
    assert [iso for _, _, iso in spans] == ["2026-03-13", "2026-03-13", "2026-03-15"]
    calls = read("Weather in Oslo next Friday", [WEATHER], reference=thursday)
    assert calls[0].arguments == {"city": "Oslo", "date": "2026-03-13"}
    kinds = [m.kind for m in find_mentions("at 9:30 on 2026-03-14 for $40 and 5%")]
    assert kinds == ["time", "date", "number", "percent"]


def test_labelled_fields_and_objects() -> None:
    address = _tool(
        "ship",
        "Ship a parcel.",
        {
            "to": {
                "type": "object",
                "description": "Where to deliver",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
            "express": {"type": "boolean", "description": "Next-day delivery"},
        },
        ["to"],
    )
    query = 'Ship it — where to deliver: (street "1 Main St", city "Oslo"); next-day delivery: no.'
    assert read(query, [address]) == (
        Call("ship", {"to": {"street": "1 Main St", "city": "Oslo"}, "express": False}),
    )


def test_no_call_when_no_tool_fits() -> None:
    assert read("Tell me a joke about penguins", [TRIANGLE, FLIGHT]) == ()


def test_the_generator_reads_its_own_natural_queries_without_the_truth() -> None:
    from services.synth.sampling import Sampler

    sampler = Sampler(builtin_catalog(), seed=5, mix={"simple": 1, "multiple": 1})
    generator = TemplateGenerator()
    solved = 0
    for seed in range(40):
        truth: GroundTruth = sampler.sample()
        query = generator.query(truth, seed=seed)
        solved += check_calls(generator.calls(query, truth.tools, seed=seed), truth).ok
    assert solved >= 20  # one-shot, no refinement: most natural queries read back exactly


MIX = _tool(
    "mix_liquids",
    "Final temperature of two mixed liquids.",
    {
        "mass1": {"type": "number", "description": "Mass of the first liquid in kg"},
        "mass2": {"type": "number", "description": "Mass of the second liquid in kg"},
        "ratio": {"type": "number", "description": "Share of the heat lost"},
    },
    ["mass1", "mass2"],
)
SAVINGS = _tool(
    "project_savings",
    "Project the value of savings.",
    {
        "deposit": {"type": "number", "description": "Money put in at the start"},
        "rate": {"type": "number", "description": "Yearly growth as a fraction"},
        "years": {"type": "integer", "description": "How long it grows"},
        "start": {"type": "string", "description": "Opening day, format dd.mm.yyyy"},
        "samples": {"type": "array", "items": {"type": "number"}, "description": "Past values"},
    },
    ["deposit", "rate", "years"],
)
FACTORIAL = _tool(
    "calculate_factorial",
    "Factorial of a number.",
    {"number": {"type": "integer", "description": "The number"}},
    ["number"],
)
PRIMES = _tool(
    "list_primes",
    "Primes in a range.",
    {
        "low": {"type": "integer", "description": "Lowest number of the range"},
        "high": {"type": "integer", "description": "Highest number of the range"},
    },
    ["low", "high"],
)
HISTORY = _tool(
    "get_statement",
    "Statement of an account.",
    {"account": {"type": "string", "description": "Account number"}},
    ["account"],
)
BALANCE = _tool(
    "calculate_balance",
    "Balance of an account.",
    {"account": {"type": "string", "description": "Account number"}},
    ["account"],
)


def test_twins_take_values_in_the_order_said_and_tuples_spread_over_them() -> None:
    said = read("Mix 2.5 kg of water with 4e-1 kg of oil.", [MIX])
    assert said == (Call("mix_liquids", {"mass1": 2.5, "mass2": 0.4}),)
    pairs = read("Mix the pairs (3, 5) and (7, 9).", [MIX])
    assert [c.arguments for c in pairs] == [
        {"mass1": 3.0, "mass2": 5.0},
        {"mass1": 7.0, "mass2": 9.0},
    ]


def test_a_list_of_values_shares_its_words_and_each_makes_a_call() -> None:
    calls = read("Project savings of $500 at a rate of 4% for 5, 10 and 20 years.", [SAVINGS])
    assert [c.arguments["years"] for c in calls] == [5, 10, 20]
    assert {c.arguments["deposit"] for c in calls} == {500.0}
    assert {c.arguments["rate"] for c in calls} == {0.04}


def test_date_shape_list_items_and_words_after_a_value() -> None:
    calls = read(
        "Project savings with a 3% yearly growth after 7 years on a deposit of $90, "
        "opening on March 4, 2026, past values [1, 2].",
        [SAVINGS],
    )
    assert calls == (
        Call(
            "project_savings",
            {
                "rate": 0.03,
                "years": 7,
                "deposit": 90.0,
                "start": "04.03.2026",
                "samples": [1.0, 2.0],
            },
        ),
    )
    assert all(isinstance(v, float) for v in calls[0].arguments["samples"])


def test_two_asks_in_one_sentence_and_a_value_carried_over() -> None:
    tools = [FACTORIAL, PRIMES]
    calls = read("Calculate the factorial of 6 and list primes from 10 to 40.", tools)
    assert calls == (
        Call("calculate_factorial", {"number": 6}),
        Call("list_primes", {"low": 10, "high": 40}),
    )
    carried = read(
        "Get the statement of account 'AC-1182'. Also calculate the balance.", [HISTORY, BALANCE]
    )
    assert [c.arguments for c in carried] == [{"account": "AC-1182"}, {"account": "AC-1182"}]


def test_a_scene_setting_sentence_makes_no_call() -> None:
    calls = read(
        "Project savings for my kids. Then project savings of $100 at 2% for 3 years. "
        "After that, project savings of $200 at 5% for 4 years.",
        [SAVINGS],
    )
    assert [c.arguments for c in calls] == [
        {"deposit": 100.0, "rate": 0.02, "years": 3},
        {"deposit": 200.0, "rate": 0.05, "years": 4},
    ]


STANDING = _tool(
    "get_team_standing",
    "League standing of a team in a season.",
    {
        "team": {"type": "string", "description": "Team name"},
        "season": {"type": "integer", "description": "Season year"},
    },
    ["team", "season"],
)


def test_two_lists_ask_every_combination_unless_respectively() -> None:
    crossed = read("Get the standing of Lakers and Bulls in seasons 2018 and 2020.", [STANDING])
    assert [(c.arguments["team"], c.arguments["season"]) for c in crossed] == [
        ("Lakers", 2018),
        ("Lakers", 2020),
        ("Bulls", 2018),
        ("Bulls", 2020),
    ]
    zipped = read(
        "Get the standing of Lakers and Bulls in seasons 2018 and 2020 respectively.",
        [STANDING],
    )
    assert [(c.arguments["team"], c.arguments["season"]) for c in zipped] == [
        ("Lakers", 2018),
        ("Bulls", 2020),
    ]


def test_an_ask_after_to_is_no_value() -> None:
    calls = read("I would like to know the current weather.", [WEATHER])
    assert calls == (Call("get_weather", {}),)


def test_ordinals_are_numbers_and_titles_do_not_end_a_name() -> None:
    said = {(m.kind, m.text) for m in find_mentions("Events of the 16th century for Mr. Smith.")}
    assert ("number", "16th") in said and ("name", "Mr. Smith") in said
    cut = {m.text for m in find_mentions("Book Hilton New York. Can you?")}
    assert "Hilton New York" in cut


FILTER = _tool(
    "design_filter",
    "Design an RC filter.",
    {
        "capacitance": {"type": "number", "description": "The capacitance in farads (F)"},
        "cutoff": {"type": "number", "description": "Cutoff frequency in kHz"},
    },
    ["capacitance", "cutoff"],
)


def test_prefixed_units_in_the_unit_the_description_asks_for() -> None:
    calls = read("Design a filter with capacitance of 220µF and a cutoff of 3kHz.", [FILTER])
    assert calls == (Call("design_filter", {"capacitance": 0.00022, "cutoff": 3.0}),)


FIELD = _tool(
    "electric_field",
    "Calculate the electric field strength at a distance from a point charge.",
    {
        "charge": {"type": "integer", "description": "The charge in Coulombs."},
        "distance": {"type": "number", "description": "The distance from the charge in meters."},
        "medium": {"type": "string", "description": "The medium around the charge."},
    },
    ["charge", "distance"],
)


def test_a_follow_up_that_says_the_same_keeps_the_earlier_values() -> None:
    query = (
        "What is the electric field strength 0.5 meters from a charge of 3 Coulombs "
        "in a 'glycerin' medium? "
        "Then do the same at a distance of 4 meters."
    )
    calls = read(query, [FIELD])
    assert calls == (
        Call("electric_field", {"charge": 3, "distance": 0.5, "medium": "glycerin"}),
        Call("electric_field", {"charge": 3, "distance": 4.0, "medium": "glycerin"}),
    )


def test_without_the_same_a_second_sentence_keeps_only_its_own_values() -> None:
    query = (
        "What is the electric field strength 0.5 meters from a charge of 3 Coulombs "
        "in a 'glycerin' medium? "
        "Also the electric field strength 2 meters from a charge of 7 Coulombs."
    )
    second = read(query, [FIELD])[-1]
    assert second == Call("electric_field", {"charge": 7, "distance": 2.0})


STOCKS = _tool(
    "stock_quote",
    "Get the price of a stock.",
    {
        "company": {"type": "string", "description": "The company."},
        "data_type": {"type": "string", "description": "The kind of price data, e.g. close."},
    },
    ["company"],
)


def test_a_proper_name_goes_to_the_parameter_that_names_something() -> None:
    calls = read("What was the last price of Globex Industries stock?", [STOCKS])
    assert calls == (Call("stock_quote", {"company": "Globex Industries"}),)


HEADLINES = _tool(
    "headlines",
    "Fetch news headlines on a topic.",
    {
        "topic": {"type": "string", "description": "The topic of the news."},
        "count": {"type": "integer", "description": "The number of headlines to return."},
    },
    ["topic"],
)


def test_an_optional_count_said_in_words_is_read() -> None:
    calls = read("Show me seven headlines about Solar Energy.", [HEADLINES])
    assert calls == (Call("headlines", {"topic": "Solar Energy", "count": 7}),)


def test_a_number_word_that_counts_something_else_is_no_optional_count() -> None:
    calls = read("Between the two parties, what are the headlines about Solar Energy?", [HEADLINES])
    assert calls == (Call("headlines", {"topic": "Solar Energy"}),)


def _stat(name: str, what: str) -> dict:
    numbers = {"type": "array", "items": {"type": "number"}, "description": "The numbers."}
    return _tool(name, f"Calculate the {what} of a list of numbers.", {"data": numbers}, ["data"])


MEDIAN, SPREAD = _stat("stats_median", "median"), _stat("stats_variance", "variance")


def test_one_clause_asking_two_functions_makes_a_call_of_each() -> None:
    calls = read("Find the median and variance of the numbers [4, 8, 15].", [MEDIAN, SPREAD])
    assert calls == (
        Call("stats_median", {"data": [4.0, 8.0, 15.0]}),
        Call("stats_variance", {"data": [4.0, 8.0, 15.0]}),
    )


def test_and_between_values_of_one_function_is_no_second_ask() -> None:
    calls = read("What is the weather in Oslo and Bergen?", [WEATHER, DIET])
    assert calls == (
        Call("get_weather", {"city": "Oslo"}),
        Call("get_weather", {"city": "Bergen"}),
    )


AIR = _tool(
    "air_quality",
    "Air quality index of a city on a day.",
    {
        "city": {"type": "string", "description": "The city."},
        "day": {"type": "string", "description": "The date (month-day-year) of the reading."},
    },
    ["city", "day"],
)


def test_a_year_first_slashed_date_goes_out_in_the_order_the_description_spells() -> None:
    calls = read("What was the air quality in Lyon on 2023/09/04?", [AIR])
    assert calls == (Call("air_quality", {"city": "Lyon", "day": "09-04-2023"}),)


def test_a_slashed_code_is_no_date() -> None:
    assert not [m for m in find_mentions("docket 2022/AL2562 and 2022/13/40") if m.kind == "date"]


BOOK = _tool(
    "book_train",
    "Book a train from a departure city to a destination city on a date.",
    {
        "departure_city": {"type": "string", "description": "The city the train leaves from."},
        "destination_city": {"type": "string", "description": "The city the train goes to."},
        "date": {"type": "string", "description": "The date of the trip."},
    },
    ["departure_city", "destination_city", "date"],
)


def test_and_another_starts_a_second_ask_of_the_same_function() -> None:
    query = (
        "Book a train from Paris to Rome on May 3rd 2026 and another train "
        "from Rome to Oslo on May 18th 2026."
    )
    first = {"departure_city": "Paris", "destination_city": "Rome", "date": "2026-05-03"}
    second = {"departure_city": "Rome", "destination_city": "Oslo", "date": "2026-05-18"}
    assert read(query, [BOOK]) == (Call("book_train", first), Call("book_train", second))


REPORT = _tool(
    "fetch_report",
    "Fetch a detailed report on a project.",
    {
        "project": {"type": "string", "description": "The project's name."},
        "details": {"type": "boolean", "description": "True to include the details."},
    },
    ["project", "details"],
)


def test_a_required_flag_is_read_from_another_form_of_its_word() -> None:
    calls = read("Get me the detailed report of project 'Apollo'.", [REPORT])
    assert calls == (Call("fetch_report", {"project": "Apollo", "details": True}),)


def test_a_required_flag_not_said_is_left_out() -> None:
    assert read("Get me the report of project 'Apollo'.", [REPORT]) == (
        Call("fetch_report", {"project": "Apollo"}),
    )


SCORES = _tool(
    "user_score",
    "The average user score of a video game.",
    {"game": {"type": "string", "description": "The game's title."}},
    ["game"],
)


def test_a_colon_inside_a_quoted_title_is_no_field() -> None:
    calls = read("Get the user score for the game 'Castle Quest: The Return' please.", [SCORES])
    assert calls == (Call("user_score", {"game": "Castle Quest: The Return"}),)


ROUTE = _tool(
    "route_distance",
    "The driving distance of a route.",
    {
        "origin": {"type": "string", "description": "Where the route starts."},
        "destination": {"type": "string", "description": "Where the route ends."},
        "unit": {"type": "string", "description": "The unit of distance."},
    },
    ["origin", "destination"],
)


def test_between_a_and_b_gives_the_start_and_the_end() -> None:
    calls = read("What is the driving distance between Porto Alegre and Lima?", [ROUTE])
    assert calls == (Call("route_distance", {"origin": "Porto Alegre", "destination": "Lima"}),)


def test_each_from_a_to_b_is_one_route() -> None:
    calls = read("Driving distance from Lyon to Turin, then from Turin back to Lyon.", [ROUTE])
    assert calls == (
        Call("route_distance", {"origin": "Lyon", "destination": "Turin"}),
        Call("route_distance", {"origin": "Turin", "destination": "Lyon"}),
    )


def test_a_season_of_two_years_is_one_value() -> None:
    said = [(m.kind, m.text) for m in find_mentions("Stats for the 2016-2017 season and 2018/19")]
    assert said == [("code", "2016-2017"), ("code", "2018/19")]
    assert "code" not in [m.kind for m in find_mentions("from 1990-2010")]


LOCAL_TIME = _tool(
    "local_time",
    "The local time somewhere.",
    {
        "city": {"type": "string", "description": "The city."},
        "country": {"type": "string", "description": "The country of the city."},
    },
    ["city", "country"],
)


def test_a_place_with_its_country_fills_both_when_the_country_is_asked_apart() -> None:
    calls = read("What time is it in Osaka, Japan?", [LOCAL_TIME])
    assert calls == (Call("local_time", {"city": "Osaka", "country": "Japan"}),)
    assert read("What is the weather in Osaka, Japan?", [WEATHER]) == (
        Call("get_weather", {"city": "Osaka, Japan"}),
    )


CONVERT = _tool(
    "convert_money",
    "Convert an amount of money.",
    {
        "amount": {"type": "number", "description": "The amount to convert."},
        "from_currency": {"type": "string", "description": "The currency to convert from."},
        "to_currency": {"type": "string", "description": "The currency to convert to."},
    },
    ["amount", "from_currency", "to_currency"],
)


def test_currencies_said_by_name_are_their_codes() -> None:
    calls = read("Convert 80 Swiss francs to Australian dollars.", [CONVERT])
    assert calls == (
        Call("convert_money", {"amount": 80.0, "from_currency": "CHF", "to_currency": "AUD"}),
    )


EXCHANGE = _tool(
    "currency_exchange",
    "Exchange rates between currencies.",
    {
        "base_currency": {"type": "string", "description": "The currency held."},
        "target_currency": {"type": "string", "description": "The currency wanted."},
        "amount": {"type": "number", "description": "How much of the base currency."},
    },
    ["base_currency", "target_currency", "amount"],
)


def test_a_currency_said_by_name_asks_a_currency_tool_and_the_held_one_is_the_base() -> None:
    calls = read("How many euros would I get for 300 Swiss francs?", [EXCHANGE])
    assert calls == (
        Call(
            "currency_exchange",
            {"base_currency": "CHF", "target_currency": "EUR", "amount": 300.0},
        ),
    )


def test_two_codes_joined_by_to_are_a_pair_even_after_a_colon() -> None:
    calls = read("Rates for these pairs: GBP to JPY and GBP to SEK.", [EXCHANGE])
    assert [c.arguments for c in calls] == [
        {"base_currency": "GBP", "target_currency": "JPY"},
        {"base_currency": "GBP", "target_currency": "SEK"},
    ]


VARIANT = _tool(
    "variant_lookup",
    "Look up a genetic variant by its ID.",
    {
        "variant_id": {"type": "string", "description": "The ID of the Genome Variant."},
        "species": {"type": "string", "description": "Species the Genome Variant occurs in."},
    },
    ["variant_id"],
)


def test_names_that_only_say_the_tool_or_parameter_are_no_values() -> None:
    calls = read("Look up the Variant ID gv88231 please.", [VARIANT])
    assert calls == (Call("variant_lookup", {"variant_id": "gv88231"}),)
    naming = frozenset({"variant", "id"})
    assert [m.text for m in find_mentions("the Variant ID gv88231", naming=naming)] == ["gv88231"]


def test_an_optional_name_tied_only_by_another_parameters_words_is_left_out() -> None:
    calls = read("Find the Genome Variant (Human Genome Variant) ID gv88231.", [VARIANT])
    assert calls == (Call("variant_lookup", {"variant_id": "gv88231"}),)


TRAIN = _tool(
    "train_model",
    "Train a model on a dataset file.",
    {
        "dataset": {"type": "string", "description": "The dataset to train on."},
        "path": {"type": "string", "description": "Where the data lies."},
    },
    ["dataset", "path"],
)


def test_identifiers_paths_and_addresses_are_one_value_each() -> None:
    said = find_mentions("use sales_2024 at C:/data/sales.csv, mail ana@example.org at 5 m/s")
    assert [(m.kind, m.text) for m in said if m.kind == "code"] == [
        ("code", "sales_2024"), ("code", "C:/data/sales.csv"), ("code", "ana@example.org"),
    ]  # fmt: skip
    calls = read("Train the model on dataset my_sales from the path /srv/sales.csv", [TRAIN])
    assert calls == (Call("train_model", {"dataset": "my_sales", "path": "/srv/sales.csv"}),)


STANDINGS = _tool(
    "team_position",
    "A team's position in its league for a season.",
    {
        "team": {"type": "string", "description": "The name of the team."},
        "detailed": {"type": "boolean", "description": "Return the full stats."},
    },
    ["team"],
)


def test_an_optional_flag_is_read_from_another_form_of_its_own_name() -> None:
    calls = read("Get the league position of the team Oslo Owls, with details.", [STANDINGS])
    assert calls == (Call("team_position", {"team": "Oslo Owls", "detailed": True}),)


PARKS = _tool(
    "find_park",
    "Find parks near a place.",
    {
        "location": {"type": "string", "description": "The city."},
        "features": {
            "type": "array",
            "items": {"type": "string", "enum": ["Scenic View", "Playground", "Picnic Area"]},
            "description": "Features wanted.",
        },
        "visitor": {"type": "string", "enum": ["child", "adult"], "description": "Who visits."},
    },
    ["location"],
)


def test_options_are_found_by_their_stems_and_irregular_plurals() -> None:
    calls = read("A park in Lyon with scenic views and a playground for children.", [PARKS])
    assert calls == (
        Call(
            "find_park",
            {"features": ["Scenic View", "Playground"], "visitor": "child", "location": "Lyon"},
        ),
    )


SETS = _tool(
    "compare_sets",
    "Compare two sets of values.",
    {
        "set_a": {"type": "array", "items": {"type": "integer"}, "description": "First set."},
        "set_b": {"type": "array", "items": {"type": "integer"}, "description": "Second set."},
    },
    ["set_a", "set_b"],
)
AVERAGE = _tool(
    "average",
    "The average of a list of numbers.",
    {"numbers": {"type": "array", "items": {"type": "integer"}, "description": "The list."}},
    ["numbers"],
)


def test_a_number_word_counting_lists_joins_none_and_each_bracketed_list_is_a_call() -> None:
    calls = read("Compare the two sets, set_a with 1, 2, 3 and set_b with 4, 5, 6.", [SETS])
    assert calls == (Call("compare_sets", {"set_a": [1, 2, 3], "set_b": [4, 5, 6]}),)
    query = "Three lists: the first is [1, 2], the second is [3, 4] and the third is [5]."
    sets = read(query, [AVERAGE])
    assert [c.arguments["numbers"] for c in sets] == [[1, 2], [3, 4], [5]]


TRIP = _tool(
    "plan_trip",
    "Plan a trip.",
    {
        "destination": {"type": "string", "description": "Where to go."},
        "days": {"type": "integer", "description": "How many days."},
    },
    ["destination", "days"],
)


def test_a_number_joined_to_its_unit_by_a_hyphen_is_a_number() -> None:
    assert read("Plan a 7-day trip to Lisbon.", [TRIP]) == (
        Call("plan_trip", {"destination": "Lisbon", "days": 7}),
    )


EVENTS = _tool(
    "event_finder",
    "Find upcoming events in a city.",
    {
        "location": {"type": "string", "description": "The city."},
        "genre": {"type": "string", "description": "The genre of the events."},
        "days_ahead": {"type": "integer", "description": "How many days ahead."},
    },
    ["location", "genre"],
)
HOTEL = _tool(
    "book_hotel",
    "Book a hotel.",
    {
        "hotel_name": {"type": "string", "description": "The hotel."},
        "room_type": {"type": "string", "description": "The room wanted."},
    },
    ["hotel_name", "room_type"],
)


def test_the_words_qualifying_a_tool_or_parameter_noun_fill_a_required_kind() -> None:
    calls = read("Find me upcoming jazz events in Porto for the next 9 days.", [EVENTS])
    assert calls == (Call("event_finder", {"location": "Porto", "days_ahead": 9, "genre": "jazz"}),)
    room = read("Book a twin room at the Grand Hotel.", [HOTEL])
    assert room == (Call("book_hotel", {"hotel_name": "Grand Hotel", "room_type": "twin"}),)
    counted = read("Find three events in Porto.", [EVENTS])
    assert counted[0].arguments.get("genre") != "three"


MOVIES = _tool(
    "find_movies",
    "Movies of an actor.",
    {
        "actor": {"type": "string", "description": "The actor's name."},
        "category": {"type": "string", "enum": ["Drama", "Comedy"], "description": "Genre."},
        "year": {"type": "integer", "description": "The year."},
    },
    ["actor", "year"],
)


def test_an_option_of_a_closed_set_is_no_free_text_value() -> None:
    query = "All the Drama and Comedy movies Ana Lopez starred in 2010 and 2012 respectively"
    calls = read(query, [MOVIES])
    assert [c.arguments for c in calls] == [
        {"actor": "Ana Lopez", "category": "Drama", "year": 2010},
        {"actor": "Ana Lopez", "category": "Comedy", "year": 2012},
    ]


RAIN = _tool(
    "rain_stats",
    "Rain statistics of a place.",
    {
        "location": {"type": "string", "description": "The place, e.g. 'Amazon rainforest'."},
        "signature": {"type": "string", "description": "Time signature, e.g. 4/4."},
    },
    ["location"],
)


def test_an_example_said_partly_capitalised_is_taken_and_a_slashed_example_stays_whole() -> None:
    assert read("Rain stats for the Amazon rainforest.", [RAIN]) == (
        Call("rain_stats", {"location": "Amazon rainforest"}),
    )
    assert (
        read("Rain stats for the Amazon rainforest in 3/4.", [RAIN])[0].arguments.get("signature")
        != "4"
    )


FOREST = _tool(
    "forest_growth",
    "Forecast forest growth.",
    {
        "location": {"type": "string", "description": "The forest."},
        "years": {"type": "integer", "description": "The number of years."},
        "with_fires": {
            "type": "boolean",
            "description": "Whether or not to count wildfires. If not provided, defaults to false.",
        },
    },
    ["location", "years"],
)


def test_a_value_said_before_its_twin_with_the_same_unit_and_flag_boilerplate() -> None:
    calls = read(
        "Forest growth in Oslo Forest and Bergen Woods over 10 years and 20 years, "
        "respectively, if we do not count wildfires.",
        [FOREST],
    )
    assert [c.arguments for c in calls] == [
        {"location": "Oslo Forest", "years": 10, "with_fires": False},
        {"location": "Bergen Woods", "years": 20, "with_fires": False},
    ]


def test_a_function_named_in_the_query_is_its_words_and_a_quoted_request_is_unwrapped() -> None:
    calls = read("\"Use the 'average' function on [3, 4] please.\"", [AVERAGE])
    assert calls == (Call("average", {"numbers": [3, 4]}),)
    calls = read("Use the 'stats_median' function on [3, 4].", [MEDIAN, SPREAD])
    assert calls == (Call("stats_median", {"data": [3.0, 4.0]}),)


def test_a_list_of_several_asks_is_cut_at_commas_outside_quotes() -> None:
    calls = read(
        "Give me the weather in Oslo, vegan places to eat in Rome, and the weather in Bergen.",
        [WEATHER, DIET],
    )
    assert [c.name for c in calls] == ["get_weather", "find_restaurants", "get_weather"]


QUOTE = _tool(
    "stock_price",
    "Closing stock price of a company on a day.",
    {
        "company": {"type": "string", "description": "Name of the company."},
        "date": {"type": "string", "description": "The day, yyyy-mm-dd."},
        "exchange": {"type": "string", "description": "The stock exchange."},
    },
    ["company", "date"],
)


def test_a_date_goes_to_an_optional_text_only_when_tied_to_it() -> None:
    calls = read("Closing prices for Acme and Zenith on 2024-01-02 and 2024-02-01?", [QUOTE])
    assert len(calls) == 4 and all("exchange" not in c.arguments for c in calls)


LEAGUE = _tool(
    "team_schedule",
    "The schedule of a sports team for a number of games in a league.",
    {
        "team_name": {"type": "string", "description": "The name of the sports team."},
        "games": {"type": "integer", "description": "Number of games."},
        "league": {"type": "string", "description": "The name of the sports league."},
        "location": {"type": "string", "description": "The city or venue of the games."},
    },
    ["team_name", "games", "league"],
)


def test_a_name_holding_a_parameters_own_word_goes_to_it() -> None:
    calls = read("The schedule of Oslo Rovers for the next 6 games in Nordic League.", [LEAGUE])
    assert calls == (
        Call("team_schedule", {"team_name": "Oslo Rovers", "games": 6, "league": "Nordic League"}),
    )


SORT = _tool(
    "sort_list",
    "Sort a list.",
    {
        "elements": {"type": "array", "items": {"type": "string"}, "description": "The list."},
        "order": {"type": "string", "description": "asc or desc."},
    },
    ["elements"],
)


def test_a_bracketed_list_of_quotes_is_one_list_and_no_scalar_field() -> None:
    calls = read("Sort these names in ascending order: ['Eva', 'Bo', 'Al']", [SORT])
    assert calls[0].arguments["elements"] == ["Eva", "Bo", "Al"]
    assert "order" not in calls[0].arguments or calls[0].arguments["order"] != "['Eva', 'Bo', 'Al']"


WIRE = _tool(
    "wire_resistance",
    "Resistance of a wire.",
    {
        "length": {"type": "number", "description": "Length in m."},
        "area": {"type": "number", "description": "Cross-section area in m²."},
    },
    ["length", "area"],
)
ROI = _tool(
    "return_on_investment",
    "Return on an investment.",
    {
        "investment": {"type": "integer", "description": "The amount invested."},
        "gain_loss": {"type": "integer", "description": "Amount gained; negative if lost."},
    },
    ["investment", "gain_loss"],
)


def test_squared_units_and_amounts_said_as_losses() -> None:
    assert read("Resistance of a wire of length 5m and area 0.02m².", [WIRE]) == (
        Call("wire_resistance", {"length": 5.0, "area": 0.02}),
    )
    assert read("Return on an investment of $900 with a loss of $200.", [ROI]) == (
        Call("return_on_investment", {"investment": 900, "gain_loss": -200}),
    )


LIFE = _tool(
    "life_expectancy",
    "Average life expectancy of a country in a year.",
    {"year": {"type": "integer", "description": "The year."}},
    ["year"],
)
GDP = _tool(
    "gross_domestic_product",
    "Gross domestic product of a country in a year.",
    {"year": {"type": "integer", "description": "The year."}},
    ["year"],
)


def test_an_ask_referring_back_to_these_values_makes_a_call_for_each() -> None:
    calls = read(
        "What was the life expectancy in 1900 and 1950? Also, the gross domestic product in "
        "these years?",
        [LIFE, GDP],
    )
    assert calls == (
        Call("life_expectancy", {"year": 1900}),
        Call("life_expectancy", {"year": 1950}),
        Call("gross_domestic_product", {"year": 1900}),
        Call("gross_domestic_product", {"year": 1950}),
    )


TIGERS = _tool(
    "animal_population",
    "Population of a species in a country.",
    {
        "country": {"type": "string", "description": "The country of interest."},
        "species": {"type": "string", "description": "Species of the animal."},
    },
    ["country", "species"],
)


def test_names_listed_with_and_stay_with_the_parameter_of_the_first() -> None:
    calls = read("Population size of tigers in Nepal and India.", [TIGERS])
    assert [c.arguments for c in calls] == [
        {"country": "Nepal", "species": "tigers"},
        {"country": "India", "species": "tigers"},
    ]


def test_two_parameters_named_then_two_values_go_in_the_same_order() -> None:
    calls = read("The area of a triangle given its base and height as 8cm and 3cm.", [TRIANGLE])
    assert calls[0].arguments["base"] == 8 and calls[0].arguments["height"] == 3


def _scores(sport: str) -> dict:
    return _tool(
        f"{sport}_scores",
        f"Scores of a {sport} team over past rounds.",
        {
            "team": {"type": "string", "description": f"The {sport} team."},
            "rounds": {"type": "integer", "description": "Number of past rounds."},
        },
        ["team", "rounds"],
    )


def test_the_last_few_rounds_is_a_span_not_the_last_of_several_asks() -> None:
    calls = read(
        "Scores of the Oslo Owls soccer team for the last 5 rounds and also the scores of "
        "the Bergen Bears basketball team for the last 7 rounds.",
        [_scores("basketball"), _scores("soccer")],
    )
    assert calls == (
        Call("soccer_scores", {"team": "Oslo Owls", "rounds": 5}),
        Call("basketball_scores", {"team": "Bergen Bears", "rounds": 7}),
    )


ENZYMES = _tool(
    "cellbio_get_enzymes",
    "Enzymes of a cell compartment.",
    {"cell_compartment": {"type": "string", "description": "The cell compartment."}},
    ["cell_compartment"],
)


def test_a_phrase_that_starts_with_the_tools_own_word_is_no_value() -> None:
    calls = read("What are the names of enzymes found in the outer membrane?", [ENZYMES])
    assert calls == (Call("cellbio_get_enzymes", {"cell_compartment": "outer membrane"}),)


DRIVE = _tool(
    "driving_distance",
    "The shortest driving distance between two cities.",
    {
        "origin": {"type": "string", "description": "Where the drive starts."},
        "destination": {"type": "string", "description": "Where the drive ends."},
        "unit": {"type": "string", "description": "The unit of distance. Default is 'km'."},
    },
    ["origin", "destination"],
)


def test_a_unit_said_after_in_fills_an_optional_unit() -> None:
    calls = read("The driving distance in miles from Lyon to Turin.", [DRIVE])
    assert calls == (
        Call("driving_distance", {"origin": "Lyon", "destination": "Turin", "unit": "miles"}),
    )


SPEED = _tool(
    "travel_speed",
    "The speed of a trip over a distance within a duration.",
    {
        "distance": {"type": "integer", "description": "The distance, in kilometers."},
        "duration": {"type": "integer", "description": "The duration, in hours."},
        "unit": {"type": "string", "description": "The unit of the result."},
    },
    ["distance", "duration"],
)


def test_clauses_each_stating_a_whole_set_are_scenes_sharing_the_rest() -> None:
    calls = read(
        "Two hikers plan a walk. On the first day they walk 30 kilometers in 6 hours. On "
        "the second day they walk 24 kilometers in 4 hours. They want the speed in km/h.",
        [SPEED],
    )
    assert [c.arguments for c in calls] == [
        {"distance": 30, "duration": 6, "unit": "km/h"},
        {"distance": 24, "duration": 4, "unit": "km/h"},
    ]


def test_the_number_counting_the_scenes_is_no_value() -> None:
    calls = read(
        "Mia needs the area of two triangles. The first triangle has a base of 12 and a "
        "height of 15. The second triangle has a base of 18 and a height of 24.",
        [TRIANGLE],
    )
    assert [c.arguments for c in calls] == [{"base": 12, "height": 15}, {"base": 18, "height": 24}]


PAYOUT = _tool(
    "dividend_per_share",
    "Dividend per share from a total payout and the shares outstanding.",
    {
        "total_payout": {"type": "integer", "description": "The total dividend payout."},
        "shares": {"type": "integer", "description": "The number of shares outstanding."},
    },
    ["total_payout", "shares"],
)


def test_a_scene_keeping_the_same_value_takes_it_from_the_scene_before() -> None:
    calls = read(
        "We paid a total payout of $4,000 on 800 shares. Also, a total payout of $6,000 "
        "while keeping the same number of shares. And what if there were 1,000 shares with "
        "a total payout of $6,000?",
        [PAYOUT],
    )
    assert [c.arguments for c in calls] == [
        {"total_payout": 4000, "shares": 800},
        {"total_payout": 6000, "shares": 800},
        {"total_payout": 6000, "shares": 1000},
    ]


BINOMIAL = _tool(
    "binomial_probability",
    "Probability of a number of successes in a number of trials.",
    {
        "trials": {"type": "integer", "description": "The number of trials."},
        "successes": {"type": "integer", "description": "The number of successes."},
        "p": {"type": "number", "description": "The probability of success on one trial."},
    },
    ["trials", "successes"],
)


def test_a_probability_takes_no_number_above_one() -> None:
    calls = read(
        "You have a 0.4 probability of winning a round. If you play 10 times, what is the "
        "probability of winning exactly 3 times? Also, if you play 20 times, what is the "
        "probability of winning exactly 6 times?",
        [BINOMIAL],
    )
    assert [c.arguments for c in calls] == [
        {"trials": 10, "successes": 3, "p": 0.4},
        {"trials": 20, "successes": 6, "p": 0.4},
    ]


FORECAST = _tool(
    "stock_forecast",
    "Forecast a company's stock price.",
    {
        "company": {"type": "string", "description": "The company."},
        "days": {"type": "integer", "description": "Number of days to forecast."},
    },
    ["company", "days"],
)
WEATHER_DAYS = _tool(
    "weather_forecast",
    "Forecast the weather of a city.",
    {
        "location": {"type": "string", "description": "The city."},
        "days": {"type": "integer", "description": "Number of days to forecast."},
    },
    ["location", "days"],
)


def test_an_abbreviations_period_ends_no_sentence() -> None:
    calls = read(
        "What is the stock forecast for Acme Inc. for the next 30 days, and then the "
        "weather forecast for Oslo for the next 5 days?",
        [FORECAST, WEATHER_DAYS],
    )
    assert calls == (
        Call("stock_forecast", {"company": "Acme Inc.", "days": 30}),
        Call("weather_forecast", {"location": "Oslo", "days": 5}),
    )


def test_one_ask_said_on_both_sides_of_an_and_stays_one() -> None:
    calls = read(
        "What was the life expectancy in 1900 and 1950 according to the life expectancy "
        "function, and the gross domestic product in those same years?",
        [LIFE, GDP],
    )
    assert [c.arguments["year"] for c in calls] == [1900, 1950, 1900, 1950]


INTERSECT = _tool(
    "curves_intersect",
    "The points where two curves intersect.",
    {
        "curve1": {"type": "string", "description": "The first curve."},
        "curve2": {"type": "string", "description": "The second curve."},
    },
    ["curve1", "curve2"],
)
ROOTS = _tool(
    "curve_roots",
    "The zero points of a curve.",
    {"curve": {"type": "string", "description": "The curve."}},
    ["curve"],
)


def test_asks_that_only_together_hold_a_whole_set_are_one_call() -> None:
    calls = read(
        "I have two curves, the first one is '2x+1' and the second one is '3x-4'. I need "
        "the points where these curves intersect. After that, I need the zero points of "
        "'5x+2'.",
        [INTERSECT, ROOTS],
    )
    assert calls == (
        Call("curves_intersect", {"curve1": "2x+1", "curve2": "3x-4"}),
        Call("curve_roots", {"curve": "5x+2"}),
    )


SOLAR = _tool(
    "solar_output",
    "Energy output of a solar farm.",
    {
        "panel_area": {"type": "integer", "description": "Solar panel area in square feet."},
        "month": {"type": "string", "description": "The month."},
    },
    ["panel_area"],
)
WIND = _tool(
    "wind_output",
    "Energy output of a wind farm.",
    {
        "turbines": {"type": "integer", "description": "Number of wind turbines."},
        "month": {"type": "string", "description": "The month."},
    },
    ["turbines"],
)


def test_what_is_said_before_the_next_scene_ends_the_ask_before() -> None:
    calls = read(
        "Compare the projects. The first project is a solar farm with a solar panel area of "
        "5000 square feet. I would like the energy output for the month of July. The second "
        "project is a wind farm with 40 wind turbines. I would also like the energy output "
        "for this wind farm for the month of May.",
        [SOLAR, WIND],
    )
    assert calls == (
        Call("solar_output", {"panel_area": 5000, "month": "July"}),
        Call("wind_output", {"turbines": 40, "month": "May"}),
    )


TRIP_DAYS = _tool(
    "trip_plan",
    "Plan a trip to a destination for a number of days.",
    {
        "destination": {"type": "string", "description": "The city."},
        "days": {"type": "integer", "description": "Number of days."},
    },
    ["destination", "days"],
)


def test_followed_by_starts_another_ask() -> None:
    calls = read("Plan a 7-day trip to Tokyo, followed by a 5-day trip to Sydney.", [TRIP_DAYS])
    assert [c.arguments for c in calls] == [
        {"destination": "Tokyo", "days": 7},
        {"destination": "Sydney", "days": 5},
    ]


HOUSE = _tool(
    "house_price",
    "Predict the price of a house.",
    {
        "area": {"type": "integer", "description": "Area in square feet."},
        "rooms": {"type": "integer", "description": "Number of rooms."},
        "location": {"type": "string", "description": "The city."},
    },
    ["area", "rooms", "location"],
)


def test_a_similar_ask_keeps_what_the_one_before_set() -> None:
    calls = read(
        "Predict the price of a house with an area of 2500 square feet, 3 rooms, located in "
        "Denver, and then a similar house with an area of 3000 square feet located in Austin.",
        [HOUSE],
    )
    assert [c.arguments for c in calls] == [
        {"area": 2500, "rooms": 3, "location": "Denver"},
        {"area": 3000, "rooms": 3, "location": "Austin"},
    ]


MIXING = _tool(
    "mixed_temperature",
    "The final temperature of two samples of gas mixed.",
    {
        "quantity1": {"type": "integer", "description": "The quantity of the first sample."},
        "temperature1": {"type": "integer", "description": "The temperature of the first sample."},
        "quantity2": {"type": "integer", "description": "The quantity of the second sample."},
        "temperature2": {"type": "integer", "description": "The temperature of the second sample."},
    },
    ["quantity1", "temperature1", "quantity2", "temperature2"],
)


def test_the_unit_of_a_number_says_what_it_measures() -> None:
    calls = read("Mix 2 moles of gas at 300 K with 3 moles of gas at 400 K.", [MIXING])
    assert calls == (
        Call(
            "mixed_temperature",
            {"quantity1": 2, "temperature1": 300, "quantity2": 3, "temperature2": 400},
        ),
    )


GROWTH = _tool(
    "revenue_growth",
    "Growth rate of revenue between two years.",
    {
        "year1": {"type": "integer", "description": "The first year."},
        "year1_revenue": {"type": "number", "description": "The revenue in the first year."},
        "year2": {"type": "integer", "description": "The second year."},
        "year2_revenue": {"type": "number", "description": "The revenue in the second year."},
    },
    ["year1", "year1_revenue", "year2", "year2_revenue"],
)


def test_millions_said_short_and_a_year_takes_no_amount() -> None:
    assert [m.value for m in find_mentions("$1.2M, $300K and 300K")] == [1.2e6, 3e5, 300.0]
    calls = read("The revenue growth with revenues of $1M in 2019 and $1.5M in 2020.", [GROWTH])
    assert calls == (
        Call(
            "revenue_growth",
            {"year1": 2019, "year1_revenue": 1e6, "year2": 2020, "year2_revenue": 1.5e6},
        ),
    )


DERIVATIVE = _tool(
    "derivative",
    "The derivative of a function.",
    {"function": {"type": "string", "description": "The function to differentiate."}},
    ["function"],
)


def test_a_polynomial_said_bare_is_one_value_in_pythons_power() -> None:
    calls = read("Find the derivative of the function 4y^3 - 2y + 7.", [DERIVATIVE])
    assert calls == (Call("derivative", {"function": "4y**3 - 2y + 7"}),)
    said = find_mentions("3.5 m/s^2 and the coefficient of x^2")
    assert [m.kind for m in said] == ["number", "phrase"]


STOCK = _tool(
    "stock_info",
    "Information about a company's stock.",
    {
        "company_name": {"type": "string", "description": "The name of the company."},
        "detail_level": {
            "type": "string",
            "description": "Level of detail. Can be 'summary' or 'detailed'.",
        },
    },
    ["company_name", "detail_level"],
)


def test_a_description_closing_its_values_takes_no_name_and_a_participle_says_its_verb() -> None:
    calls = read("Give me detail information about the stock of Acme Corp.", [STOCK])
    assert calls == (
        Call("stock_info", {"company_name": "Acme Corp.", "detail_level": "detailed"}),
    )


EATERY = _tool(
    "find_eatery",
    "Locate nearby restaurants.",
    {
        "location": {"type": "string", "description": "Where to search for a restaurant."},
        "type": {"type": "string", "description": "The type of the cuisine/restaurant."},
        "diet_option": {"type": "string", "description": "Special dietary preferences."},
    },
    ["location", "type", "diet_option"],
)


def test_a_name_said_after_near_is_a_place_before_all_else() -> None:
    calls = read("Can I find a Thai restaurant with Vegan options near Soho?", [EATERY])
    assert calls == (
        Call("find_eatery", {"location": "Soho", "type": "Thai", "diet_option": "Vegan"}),
    )


CLOCK = _tool(
    "get_current_time",
    "Retrieve the current time in a city.",
    {"location": {"type": "string", "description": "The city."}},
    ["location"],
)
TIME_GAP = _tool(
    "get_time_difference",
    "Calculate the time difference between two cities.",
    {
        "city_1": {"type": "string", "description": "The first city."},
        "city_2": {"type": "string", "description": "The second city."},
    },
    ["city_1", "city_2"],
)


def test_an_ask_pointing_back_takes_its_values_by_role() -> None:
    calls = read(
        "What is the current time in Beijing and Tokyo and what's the time difference "
        "between two cities?",
        [CLOCK, TIME_GAP],
    )
    assert calls[-1] == Call("get_time_difference", {"city_1": "Beijing", "city_2": "Tokyo"})


DNA = _tool(
    "fetch_DNA_sequence",
    "Retrieve the sequence of a DNA molecule with the given id from a public database.",
    {
        "DNA_id": {"type": "string", "description": "Unique ID of the DNA molecule."},
        "format": {"type": "string", "description": "Optional format, e.g. 'fasta', 'genbank'."},
        "upstream": {"type": "integer", "description": "Optional base pairs upstream."},
    },
    ["DNA_id"],
)


def test_each_variant_said_once_more_varies_the_first_ask() -> None:
    calls = read(
        "Fetch the DNA sequence with the unique ID 'XYZ123', then fetch the same sequence "
        "again but this time in 'genbank' format, and finally fetch the sequence once more "
        "but now with 500 base pairs included upstream.",
        [DNA],
    )
    assert calls[1:] == (
        Call("fetch_DNA_sequence", {"DNA_id": "XYZ123", "format": "genbank"}),
        Call("fetch_DNA_sequence", {"DNA_id": "XYZ123", "upstream": 500}),
    )


def _population(name: str, description: str) -> dict:
    return _tool(
        name,
        description,
        {
            "country": {"type": "string", "description": "The country."},
            "species": {"type": "string", "description": "The species."},
            "years": {"type": "integer", "description": "Number of years."},
        },
        ["country", "species", "years"],
    )


POP_HISTORY = _population("population_get_history", "Retrieve the historical population size.")
POP_PROJECTION = _population("population_get_projection", "Predict the future population size.")


def test_a_word_of_the_same_family_as_a_tools_word_routes_to_it() -> None:
    calls = read(
        "What is the projected population size of tigers in Nepal?", [POP_HISTORY, POP_PROJECTION]
    )
    assert [c.name for c in calls] == ["population_get_projection"]


def test_a_clause_fitting_two_siblings_takes_the_one_its_neighbour_did_not() -> None:
    calls = read(
        "Give me the population size of tigers in India for the last 5 years. Also provide "
        "the projected population size of tigers in Nepal for the next 10 years.",
        [POP_HISTORY, POP_PROJECTION],
    )
    assert [(c.name, c.arguments["country"]) for c in calls] == [
        ("population_get_history", "India"),
        ("population_get_projection", "Nepal"),
    ]


CIRCUMFERENCE = _tool(
    "circumference",
    "Calculate the circumference of a circle.",
    {
        "radius": {"type": "integer", "description": "The radius of the circle."},
        "units": {"type": "string", "description": "The unit of the output, e.g. 'cm'."},
    },
    ["radius"],
)


def test_a_wish_after_the_last_scene_holds_for_every_scene() -> None:
    calls = read(
        "What is the circumference of two circles, where the first circle has a radius of 5m, "
        "the second circle has a radius of 10m, and I want the output in meters?",
        [CIRCUMFERENCE],
    )
    assert [c.arguments for c in calls] == [
        {"radius": 5, "units": "meters"},
        {"radius": 10, "units": "meters"},
    ]


ENTROPY = _tool(
    "calculate_entropy_change",
    "Calculate the entropy change for a reversible process.",
    {
        "initial_temp": {"type": "integer", "description": "The initial temperature in Kelvin."},
        "final_temp": {"type": "integer", "description": "The final temperature in Kelvin."},
        "heat_capacity": {"type": "float", "description": "The heat capacity in J/K."},
    },
    ["initial_temp", "final_temp", "heat_capacity"],
)


def test_a_what_if_after_asks_that_together_hold_the_values_is_a_variant_call() -> None:
    calls = read(
        "A process starts at an initial temperature of 300 Kelvin. The heat capacity of the "
        "system is 4.18 J/K. It ends at a final temperature of 350 Kelvin. Can you calculate "
        "the entropy change? What if the final temperature is 400 Kelvin?",
        [ENTROPY],
    )
    base = {"initial_temp": 300, "final_temp": 350, "heat_capacity": 4.18}
    assert [c.arguments for c in calls] == [base, {**base, "final_temp": 400}]


MUSEUM_HOURS = _tool(
    "museum_get_hours",
    "Retrieve the opening hours of a museum.",
    {"museum_name": {"type": "string", "description": "The name of the museum."}},
    ["museum_name"],
)
TRAVEL_TIME = _tool(
    "location_get_travel_time",
    "Retrieve the travel time from the current location to a destination.",
    {"destination": {"type": "string", "description": "The destination."}},
    ["destination"],
)


def test_a_common_noun_pointing_back_to_a_name_takes_that_name() -> None:
    calls = read(
        "Find the opening hours for Louvre Museum, then tell me the travel time from my "
        "current location to the museum.",
        [MUSEUM_HOURS, TRAVEL_TIME],
    )
    assert calls[-1] == Call("location_get_travel_time", {"destination": "Louvre Museum"})


PYTHAGORAS = _tool(
    "pythagoras",
    "Calculates the hypotenuse of a right triangle from the lengths of the other two sides.",
    {
        "a": {"type": "integer", "description": "Length of one side."},
        "b": {"type": "integer", "description": "Length of the other side."},
    },
    ["a", "b"],
)


def test_a_list_of_pairs_makes_one_call_per_pair() -> None:
    calls = read("Compute the hypotenuse for side lengths 3 and 4, 5 and 12.", [PYTHAGORAS])
    assert [c.arguments for c in calls] == [{"a": 3, "b": 4}, {"a": 5, "b": 12}]


QUADRATIC = _tool(
    "solve_quadratic",
    "Find the roots of a quadratic equation.",
    {
        "a": {"type": "integer", "description": "Coefficient of x squared."},
        "b": {"type": "integer", "description": "Coefficient of x."},
        "c": {"type": "integer", "description": "Constant term."},
    },
    ["a", "b", "c"],
)


def test_the_last_of_several_scenes_opens_a_scene_of_its_own() -> None:
    calls = read(
        "Solve these equations. The first one has coefficients a = 2, b = 5, and c = 3. The "
        "second equation has coefficients a = 1, b = -3, and c = 2. And the last equation "
        "has coefficients a = 1, b = 2, and c = 1.",
        [QUADRATIC],
    )
    assert [c.arguments["a"] for c in calls] == [2, 1, 1]


HOUSES = _tool(
    "house_price",
    "Predict the price of a house.",
    {"area": {"type": "integer", "description": "The area in square feet."}},
    ["area"],
)
ODDS = _tool(
    "lottery_odds",
    "The probability of winning a lottery.",
    {"outcomes": {"type": "integer", "description": "The number of possible outcomes."}},
    ["outcomes"],
)


def test_a_closing_sentence_that_lists_the_asks_again_asks_nothing_new() -> None:
    query = (
        "Predict the price of a house of 2000 square feet. Then the probability of winning a"
        " lottery with 1000 possible outcomes. Can you give me the price of the house of 2000"
        " square feet and the odds?"
    )
    calls = read(query, [HOUSES, ODDS])
    assert calls == (
        Call("house_price", {"area": 2000}),
        Call("lottery_odds", {"outcomes": 1000}),
    )


PRICES = _tool(
    "stock_price",
    "Get stock price data of a company.",
    {
        "company": {"type": "string", "description": "The company name."},
        "days": {"type": "integer", "description": "The number of previous days."},
        "data_type": {
            "type": "string",
            "description": "The type of price data (e.g., 'Open', 'Close'). Default is 'Close'.",
        },
    },
    ["company", "days"],
)


def _rows(query: str, tool: dict) -> list[tuple]:
    return [tuple(c.arguments.values()) for c in read(query, [tool])]


def test_options_said_as_one_list_are_asked_for_every_other_value() -> None:
    query = (
        "What were the 'Open' and 'Close' stock prices for Tesla and Ford over the past 10 days?"
    )
    assert sorted(_rows(query, PRICES)) == [
        ("Ford", 10, "Close"),
        ("Ford", 10, "Open"),
        ("Tesla", 10, "Close"),
        ("Tesla", 10, "Open"),
    ]


def test_options_that_go_respectively_or_one_by_one_line_up_instead() -> None:
    listed = (
        "What were the 'Open' and 'Close' stock prices for Tesla and Ford respectively, 10 days?"
    )
    apart = (
        "What were the 'Open' stock price for Tesla and the 'Close' stock price for Ford"
        " over the past 10 days?"
    )
    expected = [("Tesla", 10, "Open"), ("Ford", 10, "Close")]
    assert _rows(apart, PRICES) == expected
    assert sorted(_rows(listed, PRICES)) == sorted(expected)


ROUTES = _tool(
    "drive_distance",
    "Driving distance between two places.",
    {
        "origin": {"type": "string", "description": "Where the drive starts."},
        "destination": {"type": "string", "description": "Where the drive ends."},
        "route": {"type": "string", "enum": ["Fastest", "Scenic"], "description": "The route."},
    },
    ["origin", "destination", "route"],
)


def test_enum_options_listed_once_cross_legs_said_earlier() -> None:
    query = (
        "How far is the drive from Oslo to Bergen, and from Bergen to Trondheim, for both"
        " the fastest and scenic routes?"
    )
    assert sorted(_rows(query, ROUTES)) == [
        ("Bergen", "Trondheim", "Fastest"),
        ("Bergen", "Trondheim", "Scenic"),
        ("Oslo", "Bergen", "Fastest"),
        ("Oslo", "Bergen", "Scenic"),
    ]


RANDINT = {
    "type": "function",
    "function": {
        "name": "random_integer",
        "description": "Draw a random integer between two bounds.",
        "parameters": {
            "type": "object",
            "properties": {
                "low": {"type": "integer", "description": "The lowest value."},
                "high": {"type": "integer", "description": "The highest value."},
            },
            "required": ["low", "high"],
        },
    },
}


def test_a_count_before_each_calls_values_asks_it_that_many_times() -> None:
    calls = read(
        "I need five random integers: two from a range with a low of 1 and a high of 6, "
        "and three from a range with a low of 10 and a high of 20.",
        [RANDINT],
    )
    assert [(c.arguments["low"], c.arguments["high"]) for c in calls] == [
        (1, 6), (1, 6), (10, 20), (10, 20), (10, 20),
    ]  # fmt: skip


IMPACT = _tool(
    "impact_analyze",
    "Analyzes the impact of a species on an ecosystem.",
    {
        "species": {"type": "string", "description": "The species."},
        "ecosystem": {"type": "string", "description": "The ecosystem being affected."},
        "location": {"type": "string", "description": "The area where it is analyzed."},
    },
    ["species", "ecosystem", "location"],
)


def test_a_required_place_left_empty_takes_the_name_said_after_in() -> None:
    calls = read("Analyze the impact of the Grey Wolf in the Yellowstone ecosystem.", [IMPACT])
    assert calls == (
        Call(
            "impact_analyze",
            {"species": "Grey Wolf", "ecosystem": "Yellowstone", "location": "Yellowstone"},
        ),
    )


TREATY = _tool(
    "treaty_info",
    "Retrieve information about a signed treaty.",
    {
        "treaty_name": {"type": "string", "description": "The name of the treaty."},
        "info_requested": {
            "type": "array",
            "items": {"type": "string", "enum": ["signatories", "clauses", "overview"]},
            "description": "Aspects of the treaty.",
        },
    },
    ["treaty_name", "info_requested"],
)


BATTLE = _tool(
    "battle_details",
    "Retrieve detailed information about a historical battle.",
    {
        "battle_name": {"type": "string", "description": "The name of the battle."},
        "specific_info": {
            "type": "array",
            "items": {"type": "string", "enum": ["overview", "casualties", "date"]},
            "description": "The types of information to return.",
        },
    },
    ["battle_name", "specific_info"],
)


def test_a_required_option_an_ask_lacks_is_the_one_the_ask_before_picked() -> None:
    calls = read(
        "Find the overview about the Battle of Hastings and the signing of the Treaty of Paris.",
        [TREATY, BATTLE],
    )
    assert [c.arguments for c in calls] == [
        {"battle_name": "Battle of Hastings", "specific_info": ["overview"]},
        {"treaty_name": "Treaty of Paris", "info_requested": ["overview"]},
    ]


RANDOM_FOREST = _tool(
    "random_forest_train",
    "Train a Random Forest Model on given data",
    {
        "n_estimators": {"type": "integer", "description": "The number of trees."},
        "data": {"type": "string", "description": "The training data for the model."},
    },
    ["n_estimators", "data"],
)


def test_a_name_the_tools_description_says_names_what_it_does_and_is_no_value() -> None:
    calls = read("Train a Random Forest Model on `sales_df` with 50 trees.", [RANDOM_FOREST])
    assert calls == (Call("random_forest_train", {"n_estimators": 50, "data": "sales_df"}),)


AREA = _tool(
    "triangle_area",
    "Calculate the area of a triangle.",
    {
        "base": {"type": "integer", "description": "The base."},
        "height": {"type": "integer", "description": "The height."},
        "unit": {"type": "string", "description": "The unit (defaults to 'units' if not given)"},
    },
    ["base", "height"],
)


def test_an_offered_value_said_only_right_after_numbers_is_what_they_count() -> None:
    calls = read(
        "The area of a triangle with a base of 10 units and a height of 5 units. The unit of "
        "measure is 'square meters'.",
        [AREA],
    )
    assert calls == (Call("triangle_area", {"base": 10, "height": 5, "unit": "square meters"}),)


CRIME = _tool(
    "get_crime_rate",
    "Retrieve the crime rate of a city.",
    {
        "city": {"type": "string", "description": "The name of the city."},
        "state": {"type": "string", "description": "The state where the city is located."},
    },
    ["city", "state"],
)


def test_a_citys_name_is_no_states() -> None:
    calls = read("Provide me the crime rate in Sacramento.", [CRIME])
    assert calls == (Call("get_crime_rate", {"city": "Sacramento"}),)


MUTATIONS = _tool(
    "analyze_dna_sequence",
    "Analyze a DNA sequence for mutations.",
    {
        "sequence": {"type": "string", "description": "The DNA sequence to analyze."},
        "mutation_type": {
            "type": "string",
            "enum": ["insertion", "deletion"],
            "description": "Type of the mutation.",
        },
    },
    ["sequence"],
)


def test_the_same_again_varies_every_call_of_the_first_ask() -> None:
    calls = read(
        "Analyze the DNA sequences 'AAT' and 'AGT' for 'insertion' mutations, then repeat the"
        " same analysis for 'deletion' mutations.",
        [MUTATIONS],
    )
    assert sorted((c.arguments["sequence"], c.arguments["mutation_type"]) for c in calls) == [
        ("AAT", "deletion"),
        ("AAT", "insertion"),
        ("AGT", "deletion"),
        ("AGT", "insertion"),
    ]


INTEGRATE = _tool(
    "integrate",
    "Area under a curve between two x values.",
    {
        "function": {"type": "string", "description": "The function, e.g. 'x^3'."},
        "start_x": {"type": "integer", "description": "The starting x-value."},
        "end_x": {"type": "integer", "description": "The ending x-value."},
        "method": {"type": "string", "description": "Either 'trapezoid' or 'simpson'."},
    },
    ["function", "start_x", "end_x"],
)


def test_repeating_these_asks_varies_every_call_before() -> None:
    calls = read(
        "Integrate the function 'x^2' between x values of 1 and 4 using the 'trapezoid' method,"
        " and then do the same calculation but using the 'simpson' method? After that, repeat"
        " these calculations for the function 'x^3' between x values of 0 and 2.",
        [INTEGRATE],
    )
    assert sorted(tuple(c.arguments.values()) for c in calls) == sorted(
        [
            ("x^2", 1, 4, "trapezoid"),
            ("x^2", 1, 4, "simpson"),
            ("x^3", 0, 2, "trapezoid"),
            ("x^3", 0, 2, "simpson"),
        ]
    )


def test_a_variant_takes_no_bare_phrase_for_a_value_the_first_ask_set() -> None:
    calls = read(
        "What is the shortest distance between Lyon and Nice by bus? Then do the same, but"
        " allow transfer between different modes.",
        [TRANSIT],
    )
    assert [c.arguments.get("start_city") for c in calls] == ["Lyon", "Lyon"]
    assert [c.arguments.get("allow_transfer") for c in calls] == [None, True]


def test_a_follow_up_that_asks_again_if_we_change_something_is_a_variant() -> None:
    calls = read(
        "What is the shortest distance between Lyon and Nice by bus, and then what is the"
        " shortest distance if we allow transfer between different modes of transportation?",
        [TRANSIT],
    )
    assert [c.arguments for c in calls] == [
        {"start_city": "Lyon", "end_city": "Nice", "transportation": "bus"},
        {"start_city": "Lyon", "end_city": "Nice", "transportation": "bus", "allow_transfer": True},
    ]
    assert not _SAME.search("Find the route from Lyon to Nice, if you can, or if I may ask.")


STRENGTH = _tool(
    "electric_field_strength",
    "The electric field strength at a distance from a point charge.",
    {
        "charge": {"type": "integer", "description": "The charge in Coulombs."},
        "distance": {"type": "number", "description": "The distance in meters."},
        "medium": {"type": "string", "description": "The medium. Default is 'vacuum'."},
    },
    ["charge", "distance"],
)


def test_a_variant_says_a_new_value_in_the_words_the_first_ask_said_one_in() -> None:
    calls = read(
        "What is the electric field strength at a distance of 0.5 meters from a charge of 2"
        " Coulombs located in a vacuum? Then at a distance of 1 meter from the same charge but"
        " this time located in air?",
        [STRENGTH],
    )
    assert [(c.arguments["distance"], c.arguments.get("medium")) for c in calls] == [
        (0.5, "vacuum"),
        (1.0, "air"),
    ]


FINDER = _tool(
    "restaurant_finder",
    "Search for restaurants by location, cuisine and other preferences.",
    {
        "location": {"type": "string", "description": "City, e.g. New York."},
        "cuisine": {"type": "string", "description": "Type of cuisine, e.g. Italian."},
        "preferences": {
            "type": "array",
            "items": {"type": "string", "enum": ["Vegetarian", "Delivery", "Takeout"]},
            "description": "Extra features.",
        },
    },
    ["location", "cuisine"],
)


def test_options_of_a_list_said_beside_each_calls_values_go_to_that_call() -> None:
    calls = read(
        "Find an Italian restaurant in Boston that has vegetarian food and a Thai restaurant"
        " in Denver that offers delivery.",
        [FINDER],
    )
    assert [c.arguments["preferences"] for c in calls] == [["Vegetarian"], ["Delivery"]]
    calls = read("Find Italian restaurants in Boston and Denver with delivery.", [FINDER])
    assert [c.arguments["preferences"] for c in calls] == [["Delivery"], ["Delivery"]]


COURT = _tool(
    "court_info.get_case_status",
    "The status and trial dates of court cases.",
    {
        "case_number": {"type": "string", "description": "The case number."},
        "court": {"type": "string", "description": "The county court of the case."},
        "details": {
            "type": "string",
            "enum": ["status", "trial_date"],
            "description": "Which details. Defaults to 'status'.",
        },
    },
    ["case_number", "court"],
)


def test_options_listed_with_a_word_between_are_each_asked_the_tools_word_too() -> None:
    calls = read(
        "What is the status and scheduled trial date for case number XY1234 in Kent County"
        " Court, and case number GH5678 in Essex County Court?",
        [COURT],
    )
    assert sorted((c.arguments["case_number"], c.arguments["details"]) for c in calls) == [
        ("GH5678", "status"),
        ("GH5678", "trial_date"),
        ("XY1234", "status"),
        ("XY1234", "trial_date"),
    ]


FOREST_MODEL = _tool(
    "random_forest.train",
    "Train a Random Forest Model on given data",
    {
        "n_estimators": {"type": "integer", "description": "The number of trees in the forest."},
        "data": {"type": "string", "description": "The training data for the model."},
    },
    ["n_estimators", "data"],
)


def test_a_name_made_only_of_the_tools_own_words_is_no_value() -> None:
    (call,) = read(
        'You are given a dataset "sales_data" and want to train a Random Forest Model on this'
        " data with 50 trees.",
        [FOREST_MODEL],
    )
    assert call.arguments == {"n_estimators": 50, "data": "sales_data"}


def test_a_variant_call_varies_the_call_that_shares_a_value_with_it() -> None:
    calls = read(
        "What is the projected population growth of Japan and India in the next 10 and 20"
        " years respectively, and how would these projections change if we consider a growth"
        " rate of 1.5% for Japan and 2.1% for India?",
        [PROJECTION],
    )
    assert sorted(tuple(c.arguments.values()) for c in calls) == [
        ("India", 20),
        ("India", 20, 0.021),
        ("Japan", 10),
        ("Japan", 10, 0.015),
    ]


FACTORS = _tool(
    "vehicle_emission",
    "Annual carbon emissions of a type of vehicle.",
    {
        "vehicle_type": {
            "type": "string",
            "description": "'gas' refers to a gasoline vehicle, 'diesel' refers to a diesel"
            " vehicle, and 'EV' refers to an electric vehicle.",
        },
        "miles": {"type": "integer", "description": "The miles driven per year."},
        "factor": {"type": "number", "description": "Optional emission factor."},
    },
    ["vehicle_type", "miles"],
)


def test_values_said_for_one_calls_option_go_to_that_call_only() -> None:
    calls = read(
        "The emissions of a gasoline vehicle, a diesel vehicle and an electric vehicle driving"
        " 9,000 miles, with the default factor for the gasoline vehicle, a factor of 2.5 for the"
        " diesel vehicle and a factor of 0 for the electric vehicle?",
        [FACTORS],
    )
    assert [(c.arguments["vehicle_type"], c.arguments.get("factor")) for c in calls] == [
        ("gas", None),
        ("diesel", 2.5),
        ("EV", 0.0),
    ]


STATE_GDP = _tool(
    "gdp_by_state_year",
    "Retrieve historical GDP data for a U.S. state and year.",
    {
        "state": {"type": "string", "description": "The U.S. state."},
        "year": {"type": "integer", "description": "The year."},
        "adjustment": {"type": "string", "enum": ["Real", "Nominal"], "description": "Which."},
    },
    ["state", "year"],
)


def test_a_name_after_the_tools_own_words_and_of_is_the_name() -> None:
    (call,) = read("What was the Real GDP of California in 1990?", [STATE_GDP])
    assert call.arguments == {"state": "California", "year": 1990, "adjustment": "Real"}


def test_a_head_a_parameters_name_says_stays_part_of_the_name_before_of() -> None:
    (call,) = read("Give me an overview of the Battle of Hastings.", [BATTLE])
    assert call.arguments == {"battle_name": "Battle of Hastings", "specific_info": ["overview"]}


def test_an_offered_value_said_is_taken_out_as_a_word_not_inside_others() -> None:
    slope = _tool(
        "calculus.slope",
        "Compute the slope of a function at a point.",
        {
            "function": {"type": "string", "description": "The function."},
            "point": {"type": "integer", "description": "Where the slope is wanted."},
            "variable": {"type": "string", "description": "The variable, e.g. x or y."},
        },
        ["function", "point"],
    )
    (call,) = read("Compute the slope of the function 3x^2 at x = 4.", [slope])
    assert call.arguments == {"variable": "x", "function": "3x**2", "point": 4}
