"""generate → verify → refine: acceptance only when stage 3 reproduces stage 1."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import date, timedelta

from services.synth.calls import Call, GroundTruth, Issue, Tool
from services.synth.generators.base import Generator
from services.synth.generators.template import TemplateGenerator
from services.synth.pipeline import misread, synthesize
from services.synth.plausibility import REFERENCE_DATE
from tests.synth.test_realiser import CALL as HOTEL_CALL
from tests.synth.test_realiser import TRUTH as HOTEL_TRUTH

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather.",
        "parameters": {
            "type": "object",
            "required": ["city"],
            "properties": {
                "city": {"type": "string", "description": "City to report on"},
                "days": {"type": "integer", "description": "How many days ahead to forecast"},
            },
        },
    },
}
TRUTH = GroundTruth("simple", (WEATHER,), (Call("get_weather", {"city": "Oslo", "days": 3}),))


class Scripted:
    """A generator that forgets the days at first and misreads the city once."""

    name = "scripted"

    def __init__(self, *, query_fixes: bool = True) -> None:
        self.seen: list[tuple[str, tuple[Issue, ...]]] = []
        self.query_fixes = query_fixes

    def query(
        self,
        truth: GroundTruth,
        *,
        previous: str | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
    ) -> str:
        self.seen.append(("query", tuple(issues)))
        if previous is None or not self.query_fixes:
            return "Weather in Oslo please."
        return "Weather in Oslo for 3 days" + "!" * len(self.seen)

    def calls(
        self,
        query: str,
        tools: Sequence[Tool],
        *,
        previous: tuple[Call, ...] | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
        reference: date | None = None,
    ) -> tuple[Call, ...]:
        self.seen.append(("calls", tuple(issues)))
        city = "Oslo" if sum(s == "calls" for s, _ in self.seen) > 1 else "Bergen"
        return (Call("get_weather", {"city": city, "days": 3}),)


def test_the_scripted_generator_meets_the_protocol() -> None:
    assert isinstance(Scripted(), Generator) and isinstance(TemplateGenerator(), Generator)


def test_feedback_refines_both_stages_and_records_every_round() -> None:
    generator = Scripted()
    outcome = synthesize(TRUTH, generator, seed=1)
    assert outcome.accepted and outcome.calls == TRUTH.calls
    assert [(t["stage"], t["round"], t["verdict"]["ok"]) for t in outcome.trace] == [
        ("truth", 0, True),
        ("query", 0, False),
        ("query", 1, True),
        ("calls", 1, False),
        ("query", 2, True),
        ("calls", 2, True),
    ]
    assert outcome.refine_rounds == 2
    # stage 2's second refinement was told which call and parameter stage 3 misread
    issues = generator.seen[3][1]
    assert issues and issues[0].code == "misread" and issues[0].call == 0
    assert issues[0].param == "city"
    assert outcome.trace[1]["verdict"]["issues"][0]["param"] == "days"


def test_without_feedback_one_shot_then_filter() -> None:
    outcome = synthesize(TRUTH, Scripted(), seed=1, feedback=False)
    assert not outcome.accepted and outcome.refine_rounds == 0 and len(outcome.trace) == 2


def test_rounds_are_bounded() -> None:
    outcome = synthesize(TRUTH, Scripted(query_fixes=False), seed=1, max_refine_rounds=2)
    assert not outcome.accepted and outcome.refine_rounds == 2 and len(outcome.trace) == 4


def test_misread_maps_answer_calls_to_ground_truth_calls() -> None:
    truth = GroundTruth(
        "parallel",
        (WEATHER,),
        (Call("get_weather", {"city": "Oslo"}), Call("get_weather", {"city": "Rome", "days": 2})),
    )
    answer = (
        Call("get_weather", {"city": "Rome", "days": 5}),
        Call("get_weather", {"city": "Oslo"}),
    )
    issues = misread(
        [Issue("wrong_value", "days", 0, "days"), Issue("missing_call", "x")], answer, truth
    )
    assert [(i.call, i.param) for i in issues] == [(1, "days"), (None, None)]


def test_the_template_generator_end_to_end() -> None:
    outcome = synthesize(TRUTH, TemplateGenerator(), seed=3)
    assert outcome.accepted and outcome.calls == TRUTH.calls
    row = outcome.example()
    assert row["messages"][0]["content"] == outcome.query


def test_a_relative_date_round_trips_and_the_row_pins_its_reference_date() -> None:
    args = {k: v for k, v in HOTEL_CALL.arguments.items() if k != "breakfast"}
    day = (REFERENCE_DATE + timedelta(days=4)).isoformat()
    truth = replace(HOTEL_TRUTH, calls=(Call("book_hotel", {**args, "check_in": day}),))
    outcome = synthesize(truth, TemplateGenerator(), seed=4)
    assert outcome.accepted and outcome.refine_rounds == 0
    assert "in 4 days" in outcome.query and outcome.calls[0].arguments["check_in"] == day
    meta = outcome.example()["meta"]
    assert json.loads(meta["features"])["reference_date"] == REFERENCE_DATE.isoformat()
