"""The ``llm`` brief compiler on a fake endpoint: structured output asked for, the answer
validated as Task.1 and its provenance checked against the brief's own words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.common.openai_chat import ChatEndpoint, EndpointUnavailable
from services.planner.ingest.brief.llm import LLMBriefCompiler, answer_schema
from tests.planner.fake_brief_llm import FakeBriefLLM
from tests.planner.fake_openai import closed_port_url, serve
from tests.planner.ingest.pools import ONE_TRACK, WEDDING

BRIEF = "30 seconds, end on the kiss"
MODEL = "fake-compiler"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[tuple[FakeBriefLLM, str]]:
    fake = FakeBriefLLM(models=(MODEL,))
    with serve(fake.app) as url:
        yield fake, url


def _compile(url: str, text: str = BRIEF):
    with LLMBriefCompiler(ChatEndpoint(url, MODEL, max_retries=0)) as compiler:
        return compiler.compile(text, WEDDING, ONE_TRACK)


GOOD = {
    "ledger": [
        {"id": "L1", "kind": "duration", "hard": True, "min_s": 28, "max_s": 32},
        {"id": "L2", "kind": "order", "hard": True, "last": {"tags": ["kiss"]}},
    ],
    "provenance": [
        {"constraint_id": "L1", "start": 0, "end": 10, "text": "30 seconds"},
        {"constraint_id": "L2", "start": 12, "end": 27, "text": "end on the kiss"},
    ],
    "unparsed": [],
}


def test_a_valid_answer_becomes_the_ledger(endpoint) -> None:
    fake, url = endpoint
    fake.reset()
    fake.answer = GOOD
    result = _compile(url)
    assert [e["kind"] for e in result.ledger] == ["duration", "order"]
    assert result.ledger[1]["last"]["tags"] == ["kiss"]
    assert [p["text"] for p in result.provenance] == ["30 seconds", "end on the kiss"]
    assert result.rejected == []
    (request,) = fake.requests
    schema = request["response_format"]["json_schema"]["schema"]
    assert request["response_format"]["type"] == "json_schema" and schema == answer_schema()
    assert BRIEF in request["messages"][-1]["content"]
    assert "w5 | first kiss" in request["messages"][-1]["content"]


def test_a_span_that_misquotes_the_brief_is_dropped_with_its_entry(endpoint) -> None:
    fake, url = endpoint
    fake.reset()
    answer = {**GOOD, "provenance": [GOOD["provenance"][0], {**GOOD["provenance"][1], "start": 11}]}
    answer["unparsed"] = [{"start": 0, "end": 3, "text": "thirty"}]
    fake.answer = answer
    result = _compile(url)
    assert [e["id"] for e in result.ledger] == ["L1"]
    reasons = [r["reason"] for r in result.rejected]
    assert any("not 'end on the kiss'" in r for r in reasons)
    assert any("no provenance" in r for r in reasons)
    assert any("not 'thirty'" in r for r in reasons)
    assert result.unparsed == []


def test_an_entry_that_is_no_task1_constraint_is_dropped(endpoint) -> None:
    fake, url = endpoint
    fake.reset()
    bad = {"id": "L3", "kind": "duration", "hard": True, "min_s": 40, "max_s": 20}
    unknown = {"id": "L4", "kind": "sparkle", "hard": True}
    fake.answer = {**GOOD, "ledger": [*GOOD["ledger"], bad, unknown]}
    result = _compile(url)
    assert [e["id"] for e in result.ledger] == ["L1", "L2"]
    assert len(result.rejected) == 2
    assert all("not a Task.1 constraint" in r["reason"] for r in result.rejected)


def test_an_unreadable_answer_is_an_empty_ledger_with_the_reason(endpoint) -> None:
    fake, url = endpoint
    fake.reset()
    fake.answer = "the kiss, obviously"
    result = _compile(url)
    assert result.ledger == [] and "unreadable answer" in result.rejected[0]["reason"]


def test_a_failing_endpoint_raises_its_error(endpoint) -> None:
    fake, url = endpoint
    fake.reset()
    fake.status = 500
    try:
        with pytest.raises(EndpointUnavailable):
            _compile(url)
    finally:
        fake.status = 200
    with pytest.raises(EndpointUnavailable):
        _compile(closed_port_url())
