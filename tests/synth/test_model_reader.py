"""Stage 3 by a model: the listing it reads, the schema it writes under, the answers it gives."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from services.synth.calls import Call, Issue
from services.synth.model_reader import (
    SPACED,
    ModelReader,
    answer_text,
    calls_schema,
    complete_items,
    parse_calls,
    prompt_messages,
    repeats,
    retry_messages,
    tool_listing,
    training_row,
)

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Lisbon."},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "days": {"type": "array", "items": {"type": "integer"}},
            },
            "required": ["city"],
        },
    },
}
CLOCK = {
    "type": "function",
    "function": {"name": "now", "description": "The time.", "parameters": {"type": "object"}},
}


def test_the_listing_marks_optional_parameters_and_spells_enums():
    listing = tool_listing(WEATHER)
    head, *described = listing.splitlines()
    assert head == (
        '- get_weather(city: string, unit?: "c"|"f", days?: array of integer): '
        "Current weather for a city."
    )
    assert described == ["    city: City name, e.g. Lisbon."]
    assert tool_listing(CLOCK) == "- now(): The time."


def test_the_prompt_lists_every_tool_above_the_query():
    system, user = prompt_messages("Weather in Porto?", [WEATHER, CLOCK])
    assert system["role"] == "system" and "- get_weather(" in system["content"]
    assert "- now()" in system["content"]
    assert user == {"role": "user", "content": "Weather in Porto?"}


def test_the_day_the_request_is_written_on_ends_the_system_turn():
    from datetime import date

    system, _ = prompt_messages("Weather in Porto tomorrow?", [WEATHER], reference=date(2025, 3, 9))
    assert system["content"].endswith("\nToday is 2025-03-09.")
    assert "Today" not in prompt_messages("Weather?", [WEATHER])[0]["content"]


def test_a_retry_shows_the_earlier_answer_and_the_issues():
    issue = Issue("out_of_range", "call 0 (get_weather): 'days' has 9 items; at most 7", 0, "days")
    earlier = (Call("get_weather", {"city": "Porto", "days": [1] * 9}),)
    chat = retry_messages("Weather in Porto?", [WEATHER], earlier, [issue])
    assert chat[:2] == prompt_messages("Weather in Porto?", [WEATHER])
    assert chat[2] == {"role": "assistant", "content": answer_text(earlier, [WEATHER])}
    assert chat[3]["role"] == "user" and chat[3]["content"] == (
        "That answer was wrong: call 0 (get_weather): 'days' has 9 items; at most 7. Answer again."
    )


def test_the_schema_admits_only_offered_calls_with_their_own_arguments():
    schema = calls_schema([WEATHER, CLOCK], min_calls=1)
    good = [{"name": "get_weather", "arguments": {"city": "Porto", "unit": "c"}}]
    jsonschema.validate([*good, {"name": "now", "arguments": {}}], schema)
    bad = [
        [],  # at least one call
        [{"name": "get_time", "arguments": {}}],  # not offered
        [{"name": "get_weather", "arguments": {"city": "Porto", "units": "c"}}],  # no such key
        [{"name": "get_weather", "arguments": {"unit": "c"}}],  # city is required
        [{"name": "get_weather", "arguments": {"city": "Porto", "unit": "k"}}],  # not in enum
    ]
    for answer in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(answer, schema)
    jsonschema.validate([], calls_schema([WEATHER]))  # min_calls 0: no call is an answer


def test_an_answer_cut_short_keeps_its_complete_calls_and_repeats_count_once():
    one = '{"name":"now","arguments":{}}'
    two = '{"name":"get_weather","arguments":{"city":"Porto"}}'
    assert complete_items(f"[{one},{two},{{") == [json.loads(one), json.loads(two)]
    assert parse_calls(f"[{one},{one},{two}]") == (
        Call("now", {}),
        Call("get_weather", {"city": "Porto"}),
    )
    assert parse_calls("") == () and parse_calls("[]") == ()
    assert not repeats(f"[{one},{two}") and repeats(f"[{one},{two},{one}")


@pytest.fixture(scope="module")
def tiny_loaded(tmp_path_factory):
    pytest.importorskip("xgrammar")
    from services.planner.proposers.hf import load
    from services.trainer.models import build_tiny, save_checkpoint

    texts = [json.dumps(WEATHER), json.dumps(CLOCK), "Weather in Porto?", "What time is it?"]
    model, tokenizer = build_tiny(texts * 4, seed=0)
    folder = save_checkpoint(model, tokenizer, tmp_path_factory.mktemp("tiny") / "ckpt")
    return load(str(Path(folder).resolve()), "cpu")


def test_an_untrained_model_still_answers_only_offered_calls(tiny_loaded):
    reader = ModelReader(tiny_loaded, batch_size=2, max_new_tokens=96, min_calls=1)
    queries = ["Weather in Porto?", "What time is it?", "Weather in Rome in f, please"]
    answers = reader.read_many([(q, [WEATHER, CLOCK]) for q in queries])
    assert len(answers) == 3
    schema = calls_schema([WEATHER, CLOCK])
    for calls in answers:
        jsonschema.validate([{"name": c.name, "arguments": c.arguments} for c in calls], schema)
        assert len(set(map(json.dumps, calls))) == len(calls)  # never the same call twice


def test_batches_are_reported_as_they_are_read(tiny_loaded):
    reader = ModelReader(tiny_loaded, batch_size=2, max_new_tokens=24)
    seen: list[int] = []
    reader.read_many([("now?", [CLOCK])] * 3, on_batch=seen.append)
    assert seen == [2, 1]


def test_a_retry_is_answered_under_the_same_schema(tiny_loaded):
    reader = ModelReader(tiny_loaded, max_new_tokens=48)
    issue = Issue("bad_enum", "call 0 (get_weather): 'unit' must be 'c' or 'f'", 0, "unit")
    chat = retry_messages("Weather in Porto?", [WEATHER], (Call("now", {}),), [issue])
    calls = reader.answer(chat, [WEATHER])
    jsonschema.validate(
        [{"name": c.name, "arguments": c.arguments} for c in calls], calls_schema([WEATHER])
    )
    assert all(c.name == "get_weather" for c in calls)


def test_the_training_answer_is_text_the_grammar_lets_the_model_write(tiny_loaded):
    calls = [Call("get_weather", {"unit": "f", "city": "Porto"}), Call("now", {})]
    text = answer_text(calls, [WEATHER, CLOCK])
    assert text == (
        '[{"name": "get_weather", "arguments": {"city": "Porto", "unit": "f"}}, '
        '{"name": "now", "arguments": {}}]'
    )
    schema = calls_schema([WEATHER, CLOCK])
    assert tiny_loaded.grammar.accepts(schema, text, separators=SPACED)
    assert not tiny_loaded.grammar.accepts(schema, text)  # the compact grammar refuses it
    row = training_row("Weather in Porto?", [WEATHER, CLOCK], calls)
    assert row["prompt"] == prompt_messages("Weather in Porto?", [WEATHER, CLOCK])
    assert row["completion"] == [{"role": "assistant", "content": text}]


@pytest.mark.real_model
def test_the_real_base_reads_a_bfcl_question_right(real_base):
    pytest.importorskip("bfcl_eval")
    from services.planner.proposers.hf import load
    from services.synth.bfcl.data import load_cases
    from services.synth.bfcl.model_eval import case_query, case_tools, is_correct

    reader = ModelReader(load(str(real_base.path), "cpu"), min_calls=1)
    case = load_cases("simple")[0]  # the triangle: base 10, height 5 (tuned half)
    (calls,) = reader.read_many([(case_query(case), case_tools(case))])
    assert is_correct(case, calls), calls
