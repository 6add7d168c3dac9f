"""The ToolLoop's stages around any generator: generate → verify → refine.

Stage 1's ground truth is first checked for plausibility and refined with the check's
issues (:mod:`services.synth.plausibility`; trace stage ``truth``).

Stage 2 writes the query from the ground truth and :func:`check_query` verifies it; stage 3
answers the query from the candidate tools alone and :func:`check_calls` compares the answer
with stage 1. An example is accepted only when stage 3 reproduces stage 1. A stage-3
mismatch goes back to where it most likely came from: schema slips (a wrong type, an unknown
parameter) to stage 3 with the issues; misread values, functions or counts to stage 2, whose
next query restates the misread parts. ``feedback=False`` is the one-shot baseline: each
stage runs once and the example is kept or filtered.

A generator whose stage 3 is another reader's (:class:`~services.synth.generators.staged.
StagedGenerator`, its ``reader`` attribute) has that reader's name recorded in each
stage-3 trace entry (``reader``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.synth.calls import Call, GroundTruth, Issue, Verdict
from services.synth.checker import check_calls
from services.synth.generators.base import Generator
from services.synth.outcome import Outcome
from services.synth.plausibility import refine_truth
from services.synth.query_check import check_query, reference_date, truth_calls

__all__ = ["synthesize"]

SCHEMA_CODES = frozenset(
    {"wrong_type", "unknown_parameter", "bad_enum", "out_of_range", "unknown_function"}
)
"""Stage-3 issues about the answer's form, not about how the query was read."""


def _record(
    trace: list[dict],
    stage: str,
    round_: int,
    output: Any,
    verdict: Verdict,
    reader: str | None = None,
) -> None:
    issues = [issue._asdict() for issue in verdict.issues]
    entry = {
        "stage": stage,
        "round": round_,
        "output": output,
        "verdict": {"ok": verdict.ok, "issues": issues},
    }
    if reader is not None:
        entry["reader"] = reader
    trace.append(entry)


def synthesize(
    truth: GroundTruth,
    generator: Generator,
    *,
    max_refine_rounds: int = 3,
    seed: int,
    feedback: bool = True,
) -> Outcome:
    """Check stage 1's ``truth`` for plausibility (refining it, its own rounds), then run
    stages 2 and 3; at most ``max_refine_rounds`` refinements for those two in all."""
    trace: list[dict[str, Any]] = []
    budget = max_refine_rounds if feedback else 0
    truth, plausible, _ = refine_truth(truth, rounds=budget, seed=seed, trace=trace)
    if not plausible:
        return Outcome(False, truth, "", (), 0, trace)
    rounds, reference = 0, reference_date(truth)
    reader = getattr(generator, "reader", None)
    reader = reader if isinstance(reader, str) else None
    query: str | None = None
    query_issues: Sequence[Issue] = ()
    while True:
        query = generator.query(truth, previous=query, issues=query_issues, seed=seed)
        verdict = check_query(query, truth)
        _record(trace, "query", rounds, query, verdict)
        if not verdict.ok:
            if rounds >= budget:
                return Outcome(False, truth, query, (), rounds, trace)
            rounds, query_issues = rounds + 1, verdict.issues
            continue
        previous: tuple[Call, ...] | None = None
        call_issues: Sequence[Issue] = ()
        while True:
            answer = generator.calls(
                query,
                truth.tools,
                previous=previous,
                issues=call_issues,
                seed=seed,
                reference=reference,
            )
            verdict = check_calls(answer, truth)
            _record(trace, "calls", rounds, [c.wire() for c in answer], verdict, reader)
            if verdict.ok:
                return Outcome(True, truth, query, answer, rounds, trace)
            if rounds >= budget:
                return Outcome(False, truth, query, answer, rounds, trace)
            rounds += 1
            retry = all(i.code in SCHEMA_CODES for i in verdict.issues)
            if retry and answer != previous:
                previous, call_issues = answer, verdict.issues
                continue
            query_issues = misread(verdict.issues, answer, truth)
            break


def misread(issues: Sequence[Issue], answer: Sequence[Call], truth: GroundTruth) -> list[Issue]:
    """Stage-3 issues as stage-2 feedback: which ground-truth call was misread, and where.

    The checker numbers the *answer's* calls; the query is written per ground-truth call, so
    each answer call is matched to the ground-truth call of the same name it agrees with most.
    An issue that names no call (a missing call, a wrong count) names none here either.
    """
    wanted, _ = truth_calls(truth)
    matched: dict[int, int | None] = {}
    free = set(range(len(wanted)))
    for i, call in enumerate(answer):
        same = [j for j in free if wanted[j].name == call.name]
        if not same:
            matched[i] = None
            continue
        j = max(same, key=lambda j: _agreement(call, wanted[j]))
        matched[i] = j
        free.discard(j)
    out = []
    for issue in issues:
        target = matched.get(issue.call) if issue.call is not None else None
        param = issue.param.split(".")[0].split("[")[0] if issue.param else None
        text = f"the request was read wrongly ({issue.code}): {issue.message}"
        out.append(Issue("misread", text, target, param))
    return out


def _agreement(call: Call, truth: Call) -> int:
    return sum(truth.arguments.get(k) == v for k, v in call.arguments.items())
