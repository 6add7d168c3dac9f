"""``check_bfcl`` agrees with bfcl-eval's own ``ast_checker`` on BFCL's AST categories.

Every case is checked four times unperturbed (its possible answer's first and last
alternatives, each in answer order and reversed) and once per perturbation (wrong value,
wrong type, missing required parameter, extra parameter, wrong function, wrong call count),
the parameter or call to perturb chosen by the case's index.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from services.synth.bfcl.data import AST_CATEGORIES, Case, load_cases
from services.synth.bfcl.loader import judge
from services.synth.checker import check_bfcl
from tests.synth.bfcl.bfcl_fake import answer_output

Output = list[dict[str, dict[str, Any]]]

EXCLUDED: dict[str, str] = {
    "simple_python_307": "venue is a string, but the answer's alternative is the boolean True",
    "parallel_multiple_21": "x and y are arrays of floats, but the answer passes variable "
    "names (\"data['sales']\") as strings",
    "parallel_multiple_94": "sort_list.elements is an array of integers, but the answer sorts "
    "fruit names",
    "parallel_multiple_173": "time_frame's enum is six_months/year/five_years; the answer's "
    "alternatives '12 months' and '5 years' are outside it",
    "parallel_multiple_194": "unit's enum is meter/feet; the answer's alternative 'ft' is "
    "outside it",
}
"""Cases whose possible answer contradicts their own schema: bfcl-eval accepts values the
schema forbids (it checks neither enums nor array item types), our checker does not."""


def _other(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7919
    if isinstance(value, str):
        return "qqq " + value
    if isinstance(value, list):
        return [*value, value[0]] if value else ["qqq"]
    if isinstance(value, dict):
        return {**value, **{k: _other(v) for k, v in list(value.items())[:1]}} or {"q": 1}
    return "qqq"


def _retype(value: Any) -> Any:
    if isinstance(value, str):
        return 4242
    if isinstance(value, list):
        return "qqq"
    return str(value)


def _params(output: Output, index: int) -> tuple[dict[str, Any], str] | None:
    """The (arguments, name) of the parameter to perturb, chosen by ``index``."""
    slots = [(args, key) for call in output for args in call.values() for key in args]
    return slots[index % len(slots)] if slots else None


def wrong_value(case: Case, output: Output, index: int) -> Output | None:
    slot = _params(output, index)
    if slot is None:
        return None
    args, key = slot
    args[key] = _other(args[key])
    return output


def wrong_type(case: Case, output: Output, index: int) -> Output | None:
    slot = _params(output, index)
    if slot is None:
        return None
    args, key = slot
    args[key] = _retype(args[key])
    return output


def missing_required(case: Case, output: Output, index: int) -> Output | None:
    required = {f["name"]: f["parameters"].get("required", []) for f in case.functions}
    slots = [(a, k) for c in output for n, a in c.items() for k in a if k in required[n]]
    if not slots:
        return None
    args, key = slots[index % len(slots)]
    del args[key]
    return output


def extra_parameter(case: Case, output: Output, index: int) -> Output | None:
    args = next(iter(output[index % len(output)].values()))
    args["qqq_extra"] = 1
    return output


def wrong_function(case: Case, output: Output, index: int) -> Output | None:
    call = output[index % len(output)]
    name, args = next(iter(call.items()))
    others = [f["name"] for f in case.functions if f["name"] != name]
    call.clear()
    call[others[index % len(others)] if others else name + "_v2"] = args
    return output


def wrong_count(case: Case, output: Output, index: int) -> Output | None:
    if len(output) > 1:
        del output[index % len(output)]
    else:
        output.append(copy.deepcopy(output[0]))
    return output


PERTURBATIONS: tuple[Callable[[Case, Output, int], Output | None], ...] = (
    wrong_value,
    wrong_type,
    missing_required,
    extra_parameter,
    wrong_function,
    wrong_count,
)


def _cases(category: str) -> list[Case]:
    return [case for case in load_cases(category) if case.id not in EXCLUDED]


def _disagreements(case: Case, output: Output) -> str | None:
    functions, answer = list(case.functions), list(case.answer)
    theirs = judge(functions, output, answer, case.bfcl_category)
    ours = check_bfcl(functions, output, answer, case.bfcl_category)
    if theirs["valid"] == ours.ok:
        return None
    return f"{case.id}: bfcl={theirs['valid']} ours={ours.ok} {output} {ours.issues[:2]}"


@pytest.mark.parametrize("category", AST_CATEGORIES)
def test_ground_truth_is_valid_for_both(category: str) -> None:
    cases = _cases(category)
    assert len(cases) >= 190
    rejected, problems = [], []
    for case in cases:
        for last in (False, True):
            output = answer_output(case, last=last)
            # reversed: bfcl matches parallel calls greedily; we must reject what it rejects
            for variant in (output, output[::-1]) if "parallel" in category else (output,):
                problems.append(_disagreements(case, variant))
                functions, answer = list(case.functions), list(case.answer)
                valid = judge(functions, variant, answer, case.bfcl_category)["valid"]
                if variant is output and not valid:
                    rejected.append(case.id)
    assert [p for p in problems if p] == []
    # bfcl-eval rejects a few of its own answers (an answer parameter the schema lacks, a
    # required parameter the answer marks optional); the outputs themselves are sound.
    assert len(set(rejected)) <= len(cases) // 50, rejected


@pytest.mark.parametrize("category", AST_CATEGORIES)
def test_perturbed_predictions_agree(category: str) -> None:
    problems, judged = [], 0
    for index, case in enumerate(_cases(category)):
        for perturb in PERTURBATIONS:
            output = perturb(case, answer_output(case), index)
            if output is None:
                continue
            judged += 1
            problem = _disagreements(case, output)
            if problem:
                problems.append(f"{perturb.__name__} {problem}")
    assert problems == []
    assert judged >= 4 * len(_cases(category))


def test_exclusions_are_real_contradictions() -> None:
    """Each excluded case is one bfcl-eval accepts and our schema layer rejects."""
    by_id = {case.id: case for category in AST_CATEGORIES for case in load_cases(category)}
    for case_id in EXCLUDED:
        case = by_id[case_id]
        outputs = [answer_output(case), answer_output(case, last=True)]
        verdicts = [
            check_bfcl(list(case.functions), o, list(case.answer), "parallel") for o in outputs
        ]
        assert any(not v.ok for v in verdicts), case_id
        codes = {i.code for v in verdicts for i in v.issues}
        assert codes <= {"wrong_type", "bad_enum"}, case_id
