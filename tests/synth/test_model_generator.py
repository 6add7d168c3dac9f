"""Stage 3 by a model: the chat it is asked, the feedback a refinement round adds, and the
pipeline's trace with a tiny checkpoint and with the real base."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from services.synth.calls import Call, Issue
from services.synth.generators.model import ModelCalls
from services.synth.generators.staged import StagedGenerator
from services.synth.generators.template import TemplateGenerator
from services.synth.model_reader import (
    ModelReader,
    calls_schema,
    prompt_messages,
    retry_messages,
)
from services.synth.pipeline import synthesize
from services.synth.sampling import Sampler
from tests.synth.test_pipeline import WEATHER

PING = {
    "type": "function",
    "function": {
        "name": "ping_host",
        "description": "Check that a host answers.",
        "parameters": {
            "type": "object",
            "properties": {"host": {"type": "string", "description": "Host name to ping"}},
            "required": ["host"],
        },
    },
}


class _Stub:
    """A model reader that answers from a script and keeps each chat it was asked."""

    def __init__(self, *answers: tuple[Call, ...]) -> None:
        self.answers = list(answers)
        self.chats: list[list[dict[str, str]]] = []

    def answer(self, messages: list[dict[str, str]], tools: Any) -> tuple[Call, ...]:
        self.chats.append(messages)
        return self.answers.pop(0)


def test_a_first_round_reads_the_query_and_a_refinement_sees_the_feedback() -> None:
    wrong = (Call("get_weather", {"city": "Oslo", "days": "3"}),)
    right = (Call("get_weather", {"city": "Oslo", "days": 3}),)
    stub = _Stub(wrong, right, ())
    reader = ModelCalls(stub)  # type: ignore[arg-type]
    day = date(2025, 5, 1)
    assert reader.calls("Oslo weather, 3 days", [WEATHER], reference=day) == wrong
    assert stub.chats[0] == prompt_messages("Oslo weather, 3 days", [WEATHER], reference=day)
    issue = Issue("wrong_type", "call 0 (get_weather): 'days' must be an integer", 0, "days")
    again = reader.calls("Oslo weather, 3 days", [WEATHER], previous=wrong, issues=[issue])
    assert again == right
    assert stub.chats[1] == retry_messages("Oslo weather, 3 days", [WEATHER], wrong, [issue])
    assert "'days' must be an integer" in stub.chats[1][-1]["content"]
    assert reader.calls("Rain?", [WEATHER], previous=right) == ()  # no issues: a fresh read
    assert stub.chats[2] == prompt_messages("Rain?", [WEATHER])
    assert reader.stats.wire() == {"answers": 3, "retries": 1, "no_call": 1}


def test_a_schema_slip_goes_back_to_the_model_with_its_issues() -> None:
    truth_sampler = Sampler([WEATHER], seed=0, mix={"simple": 1})
    truth = truth_sampler.sample()
    (wanted,) = truth.calls
    slip = (Call(wanted.name, {**wanted.arguments, "city": 7}),)  # a wrong type
    stub = _Stub(slip, (wanted,))
    model = ModelCalls(stub)  # type: ignore[arg-type]
    staged = StagedGenerator(TemplateGenerator(), model, reader_name="stub")
    outcome = synthesize(truth, staged, max_refine_rounds=2, seed=1)
    answers = [entry for entry in outcome.trace if entry["stage"] == "calls"]
    assert outcome.accepted and len(answers) == 2 and outcome.calls == (wanted,)
    assert not answers[0]["verdict"]["ok"] and answers[1]["verdict"]["ok"]
    assert answers[0]["verdict"]["issues"][0]["code"] == "wrong_type"
    assert stub.chats[1][-2]["role"] == "assistant" and '"city": 7' in stub.chats[1][-2]["content"]
    assert staged.stats.wire() == {"reader": {"answers": 2, "retries": 1, "no_call": 0}}


def test_a_tiny_checkpoint_answers_every_round_under_the_candidates_schema(
    tiny_checkpoint: Path,
) -> None:
    from services.planner.proposers.hf import load

    model = ModelCalls(ModelReader(load(str(tiny_checkpoint), "cpu"), max_new_tokens=48))
    staged = StagedGenerator(TemplateGenerator(), model, reader_name="tiny")
    sampler = Sampler([WEATHER, PING], seed=3, mix={"simple": 1, "multiple": 1})
    rounds = 0
    for i in range(3):
        truth = sampler.sample()
        outcome = synthesize(truth, staged, max_refine_rounds=1, seed=i)
        schema = calls_schema(truth.tools)
        for entry in (e for e in outcome.trace if e["stage"] == "calls"):
            assert entry["reader"] == "tiny"
            written = [c["function"] for c in entry["output"]]
            jsonschema.validate(written, schema)
            rounds += 1
    assert rounds == model.stats.answers > 0


@pytest.mark.real_model
def test_the_real_base_reads_stage_3_under_the_schema_every_round(real_base: Any) -> None:
    from services.planner.proposers.hf import load

    model = ModelCalls(ModelReader(load(str(real_base.path), "cpu")))
    staged = StagedGenerator(TemplateGenerator(), model, reader_name="smollm2-135m")
    sampler = Sampler([PING, WEATHER], seed=0, mix={"simple": 1, "multiple": 1})
    rounds = 0
    for i in range(2):
        truth = sampler.sample()
        outcome = synthesize(truth, staged, max_refine_rounds=1, seed=i)
        answers = [entry for entry in outcome.trace if entry["stage"] == "calls"]
        assert answers and (outcome.accepted or outcome.refine_rounds == 1)  # a miss is refined
        for entry in answers:
            assert entry["reader"] == "smollm2-135m"
            jsonschema.validate([c["function"] for c in entry["output"]], calls_schema(truth.tools))
        rounds += len(answers)
    assert model.stats.answers == rounds >= 2
