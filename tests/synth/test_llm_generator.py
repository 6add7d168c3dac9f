"""The ``llm`` generator against an in-process fake of the chat-completions API."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from services.synth.calls import Call, GroundTruth, Issue
from services.synth.generators.llm import (
    LLMError,
    LLMGenerator,
    LLMUnavailableError,
    calls_messages,
    decode_tool_calls,
    query_messages,
)
from tests.synth.fake_openai_tools import (
    AUTO_REFUSED,
    IRRELEVANT_QUERY,
    FakeToolsOpenAI,
    closed_port_url,
    serve,
)

MODEL = "fake-synth"

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
TRUTH = GroundTruth(
    category="parallel",
    tools=(WEATHER,),
    calls=(Call("get_weather", {"city": "Lyon", "days": 3}), Call("get_weather", {"city": "Oslo"})),
)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[FakeToolsOpenAI, str]]:
    fake = FakeToolsOpenAI(models=(MODEL,))
    with serve(fake.app) as url:
        yield fake, url


@pytest.fixture
def fake(served: tuple[FakeToolsOpenAI, str]) -> FakeToolsOpenAI:
    served[0].reset()
    return served[0]


@pytest.fixture
def generator(served: tuple[FakeToolsOpenAI, str]) -> Iterator[LLMGenerator]:
    with LLMGenerator(served[1], MODEL, api_key="k1", backoff_s=0.0, max_retries=2) as gen:
        yield gen


def test_query_then_calls_round_trip(fake: FakeToolsOpenAI, generator: LLMGenerator) -> None:
    query = generator.query(TRUTH, seed=7)
    assert "Lyon" in query and "Oslo" in query and "3" in query
    calls = generator.calls(query, TRUTH.tools, seed=7)
    assert calls == TRUTH.calls
    stage2, stage3 = fake.requests
    assert "tools" not in stage2 and stage2["seed"] == 7 and stage2["model"] == MODEL
    assert "get_weather" in stage2["messages"][1]["content"]
    assert stage3["tools"] == [WEATHER] and stage3["messages"][-1]["content"] == query
    assert fake.authorization == ["Bearer k1", "Bearer k1"]
    assert generator.stats.requests == 2 and generator.stats.malformed == 0


def test_refinement_sends_previous_answer_and_issues(
    fake: FakeToolsOpenAI, generator: LLMGenerator
) -> None:
    fake.reset("wrong_first")
    query = generator.query(TRUTH)
    first = generator.calls(query, TRUTH.tools)
    assert first != TRUTH.calls and first[0].arguments["city"] == "Lyonx"
    issue = Issue("wrong_value", "city should be Lyon", call=0, param="city")
    second = generator.calls(query, TRUTH.tools, previous=first, issues=[issue])
    assert second == TRUTH.calls
    system = fake.requests[-1]["messages"][0]["content"]
    assert "Lyonx" in system and "wrong_value: city should be Lyon (call 0, city)" in system


def test_stage_three_is_told_the_reference_date() -> None:
    system = calls_messages("Weather in Lyon tomorrow?", reference=date(2026, 3, 13))[0]
    assert "Today is 2026-03-13." in system["content"]
    assert "Today is" not in calls_messages("Weather in Lyon?")[0]["content"]


def test_query_refinement_appends_feedback() -> None:
    issue = Issue("missing_value", "the query never states days=3", param="days")
    messages = query_messages(TRUTH, previous="weather in Lyon?", issues=[issue])
    text = messages[-1]["content"]
    assert "weather in Lyon?" in text and "missing_value: the query never states" in text
    irrelevant = GroundTruth(category="irrelevance", tools=(WEATHER,), calls=())
    text = query_messages(irrelevant)[-1]["content"]
    assert "Calls that must answer" not in text and "get_weather" in text


def test_irrelevance_gets_no_calls(fake: FakeToolsOpenAI, generator: LLMGenerator) -> None:
    truth = GroundTruth(category="irrelevance", tools=(WEATHER,), calls=())
    query = generator.query(truth)
    assert query == IRRELEVANT_QUERY.strip('"')
    assert generator.calls(query, truth.tools) == ()
    assert generator.stats.malformed == 0


def test_malformed_arguments_mean_no_calls_and_are_counted(
    fake: FakeToolsOpenAI, generator: LLMGenerator
) -> None:
    query = generator.query(TRUTH)
    fake.reset("malformed")
    assert generator.calls(query, TRUTH.tools) == ()
    assert generator.stats.malformed == 1
    fake.reset("no_choices")
    assert generator.calls(query, TRUTH.tools) == ()
    assert generator.query(TRUTH) == ""
    assert generator.stats.malformed == 2 and generator.stats.empty == 1


def test_flaky_endpoint_is_retried(fake: FakeToolsOpenAI, generator: LLMGenerator) -> None:
    fake.reset("flaky")
    fake.fail_first = 2
    assert "Lyon" in generator.query(TRUTH)
    assert len(fake.requests) == 3 and generator.stats.retries == 2


def test_failing_endpoint_raises_unavailable(
    fake: FakeToolsOpenAI, generator: LLMGenerator
) -> None:
    fake.reset("error")
    with pytest.raises(LLMUnavailableError) as caught:
        generator.query(TRUTH)
    assert caught.value.status_code == 503 and "HTTP 500 after 3 attempt" in caught.value.message
    assert len(fake.requests) == 3


def test_unknown_model_is_refused(served: tuple[FakeToolsOpenAI, str]) -> None:
    with LLMGenerator(served[1], "nope", backoff_s=0.0) as gen:
        with pytest.raises(LLMError) as caught:
            gen.check()
        assert caught.value.code == "unknown_model"
        with pytest.raises(LLMError) as refused:
            gen.query(TRUTH)
        assert refused.value.code == "llm_error" and "404" in refused.value.message


def test_check_passes_when_served_and_fails_when_down(generator: LLMGenerator) -> None:
    generator.check()
    with LLMGenerator(closed_port_url(), MODEL, backoff_s=0.0, max_retries=1) as down:
        with pytest.raises(LLMUnavailableError, match="unreachable"):
            down.check()
        with pytest.raises(LLMUnavailableError, match="after 2 attempt"):
            down.calls("hi", TRUTH.tools)


def test_decode_tool_calls() -> None:
    item = {"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    assert decode_tool_calls([item]) == (Call("f", {"a": 1}),)
    as_dict = {"function": {"name": "f", "arguments": {"a": 2}}}
    assert decode_tool_calls([as_dict]) == (Call("f", {"a": 2}),)
    assert decode_tool_calls([{"function": {"name": "f", "arguments": ""}}]) is None
    assert decode_tool_calls([{"function": {"name": "f", "arguments": "[1]"}}]) is None
    assert decode_tool_calls([{"function": {"arguments": "{}"}}]) is None
    assert decode_tool_calls("nope") is None
    assert decode_tool_calls(None) == ()


def test_requests_turn_thinking_off_and_thoughts_are_stripped(
    fake: FakeToolsOpenAI, generator: LLMGenerator
) -> None:
    fake.thinking = "always"
    query = generator.query(TRUTH, seed=3)
    assert query.startswith("Please ") and "<think>" not in query and "Lyon" in query
    assert generator.calls(query, TRUTH.tools, seed=3) == TRUTH.calls
    for body in fake.requests:
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
    fake.reset()
    fake.thinking = "default"
    assert generator.query(TRUTH, seed=3) == query


def test_auto_tool_choice_refused_by_the_server_is_an_llm_error(
    fake: FakeToolsOpenAI, generator: LLMGenerator
) -> None:
    fake.auto_tool_choice = False  # vLLM without --enable-auto-tool-choice
    with pytest.raises(LLMError) as caught:
        generator.calls("Weather in Lyon", TRUTH.tools)
    assert "HTTP 400" in caught.value.message
    assert "--enable-auto-tool-choice" in caught.value.message and AUTO_REFUSED.startswith('"auto"')
    assert len(fake.requests) == 1
