"""The stage-3 reader on BFCL's own human-written questions, judged by bfcl-eval."""

from __future__ import annotations

from services.synth.bfcl.data import load_cases
from services.synth.bfcl.loader import judge
from services.synth.bfcl.solver_eval import cases_accuracy, solve_case, solver_accuracy


def test_reads_a_bfcl_question_bfcl_eval_accepts() -> None:
    case = load_cases("simple")[0]  # the triangle: base 10, height 5
    output = solve_case(case)
    assert judge(list(case.functions), output, list(case.answer), case.bfcl_category)["valid"]


def test_accuracy_per_category_on_the_held_out_half() -> None:
    report = solver_accuracy("held_out", ["simple"])
    simple = report["simple"]
    assert simple["total"] == len(load_cases("simple")) // 2
    assert 0.25 <= simple["accuracy"] <= 1.0  # measured, not assumed: see docs/benchmarks.md
    assert simple["correct"] == round(simple["accuracy"] * simple["total"])


def test_accuracy_on_chosen_cases_counts_each_verdict() -> None:
    first = load_cases("simple")[:3]
    report = cases_accuracy(first)
    verdicts = [
        judge(list(c.functions), solve_case(c), list(c.answer), c.bfcl_category)["valid"]
        for c in first
    ]
    assert report == {
        "accuracy": round(sum(verdicts) / 3, 4),
        "correct": sum(verdicts),
        "total": 3,
    }
    assert cases_accuracy([]) == {"accuracy": 0.0, "correct": 0, "total": 0}
