"""Stage 1 verify → refine: plausibility beyond the schema, fixed with the check's issues."""

from __future__ import annotations

import datetime as dt
from typing import Any

from services.synth.calls import Call, GroundTruth
from services.synth.catalog import builtin_catalog
from services.synth.generators.template import TemplateGenerator
from services.synth.pipeline import synthesize
from services.synth.plausibility import REFERENCE_DATE, check_truth, refine_truth


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    params = {"type": "object", "properties": props, "required": list(props)}
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": params},
    }


HOTEL = _tool(
    "book_hotel",
    {
        "city": {"type": "string"},
        "check_in": {"type": "string", "format": "date"},
        "check_out": {"type": "string", "format": "date"},
    },
)
PAY = _tool("send_payment", {"country": {"type": "string"}, "currency": {"type": "string"}})
COOK = _tool(
    "convert_cooking_units",
    {"quantity": {"type": "number"}, "from_unit": {"type": "string", "enum": ["ounce", "cup"]}},
)
RUN = _tool("log_run", {"distance_km": {"type": "number"}})


def _codes(truth: GroundTruth) -> list[str]:
    return [issue.code for issue in check_truth(truth).issues]


def test_each_plausibility_issue() -> None:
    swapped = Call(
        "book_hotel", {"city": "Oslo", "check_in": "2026-05-09", "check_out": "2026-05-02"}
    )
    past = Call("book_hotel", {"city": "Oslo", "check_in": "2025-05-01", "check_out": "2025-05-03"})
    assert _codes(GroundTruth("simple", (HOTEL,), (swapped,))) == ["start_after_end"]
    assert _codes(GroundTruth("simple", (HOTEL,), (past,))) == ["date_before_reference"] * 2
    wrong = Call("send_payment", {"country": "Japan", "currency": "EUR"})
    assert _codes(GroundTruth("simple", (PAY,), (wrong,))) == ["currency_mismatch"]
    lots = Call("convert_cooking_units", {"quantity": 800, "from_unit": "ounce"})
    assert _codes(GroundTruth("simple", (COOK,), (lots,))) == ["implausible_quantity"]
    far = Call("log_run", {"distance_km": 90000.0})
    assert _codes(GroundTruth("simple", (RUN,), (far,))) == ["implausible_quantity"]
    same = Call("log_run", {"distance_km": 5.0})
    assert _codes(GroundTruth("parallel", (RUN,), (same, same))) == ["duplicate_call"]
    fine = Call("book_hotel", {"city": "Oslo", "check_in": "2026-05-02", "check_out": "2026-05-09"})
    assert check_truth(GroundTruth("simple", (HOTEL,), (fine,))).ok


def test_refinement_fixes_what_the_issues_name_and_records_each_round() -> None:
    calls = (
        Call("book_hotel", {"city": "Oslo", "check_in": "2026-05-09", "check_out": "2026-05-02"}),
        Call("send_payment", {"country": "Japan", "currency": "EUR"}),
        Call("convert_cooking_units", {"quantity": 800, "from_unit": "ounce"}),
        Call("log_run", {"distance_km": 5.0}),
        Call("log_run", {"distance_km": 5.0}),
    )
    truth = GroundTruth("parallel_multiple", (HOTEL, PAY, COOK, RUN), calls)
    trace: list[dict[str, Any]] = []
    refined, ok, rounds = refine_truth(truth, rounds=3, seed=1, trace=trace)
    assert ok and rounds >= 1 and check_truth(refined).ok
    assert refined.calls[0].arguments["check_in"] == "2026-05-02"
    assert refined.calls[1].arguments["currency"] == "JPY"
    assert 0 < refined.calls[2].arguments["quantity"] <= 160
    assert refined.calls[3] != refined.calls[4]
    assert [t["stage"] for t in trace] == ["truth"] * (rounds + 1)
    assert not trace[0]["verdict"]["ok"] and trace[-1]["verdict"]["ok"]
    assert refined.features["reference_date"] == REFERENCE_DATE.isoformat()


def test_without_rounds_an_implausible_truth_is_filtered() -> None:
    past = Call("book_hotel", {"city": "Oslo", "check_in": "2025-05-01", "check_out": "2025-05-03"})
    truth = GroundTruth("simple", (HOTEL,), (past,))
    outcome = synthesize(truth, TemplateGenerator(), seed=0, feedback=False)
    assert not outcome.accepted and outcome.trace[-1]["stage"] == "truth"
    fixed = synthesize(truth, TemplateGenerator(), seed=0)
    assert fixed.trace[0]["stage"] == "truth" and not fixed.trace[0]["verdict"]["ok"]
    assert dt.date.fromisoformat(fixed.truth.calls[0].arguments["check_in"]) > REFERENCE_DATE


def test_the_builtin_sampler_draws_plausible_truths() -> None:
    from services.synth.sampling import Sampler

    sampler = Sampler(builtin_catalog(), seed=3)
    implausible = sum(not check_truth(sampler.sample()).ok for _ in range(300))
    assert implausible <= 30
