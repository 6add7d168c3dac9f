"""Loading bfcl-eval's real ``ast_checker`` without its vendor SDKs."""

from __future__ import annotations

import sys

import pytest

from services.synth.bfcl.loader import MODEL_NAME, ast_checker, judge

FUNCTIONS = [
    {
        "name": "math.gcd",
        "description": "Greatest common divisor.",
        "parameters": {
            "type": "dict",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    }
]
ANSWER = [{"math.gcd": {"a": [12], "b": [18]}}]


def test_the_checker_is_bfcl_evals_own() -> None:
    checker = ast_checker()
    assert checker.__module__ == "bfcl_eval.eval_checker.ast_eval.ast_checker"
    config = sys.modules["bfcl_eval.constants.model_config"].MODEL_CONFIG_MAPPING
    assert any(not c.underscore_to_dot for c in config.values())
    assert "_" not in MODEL_NAME


def test_judge_keeps_dotted_names_and_reports_errors() -> None:
    assert judge(FUNCTIONS, [{"math.gcd": {"a": 12, "b": 18}}], ANSWER, "simple_python")["valid"]
    wrong = judge(FUNCTIONS, [{"math.gcd": {"a": 12, "b": 19}}], ANSWER, "simple_python")
    assert not wrong["valid"]
    assert wrong["error_type"] == "value_error:others"
    underscored = judge(FUNCTIONS, [{"math_gcd": {"a": 12, "b": 18}}], ANSWER, "simple_python")
    assert not underscored["valid"]


def test_checker_crashes_are_invalid_verdicts() -> None:
    verdict = judge(FUNCTIONS, [{"other": {}}], [{"missing.fn": {}}], "multiple")
    assert verdict == {
        "valid": False,
        "error": [verdict["error"][0]],
        "error_type": "checker_crash",
    }


def test_missing_bfcl_eval_is_a_503_naming_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.synth.bfcl.data import data_dir
    from services.synth.bfcl.loader import BfclUnavailableError

    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    with pytest.raises(BfclUnavailableError) as raised:
        data_dir()
    assert raised.value.status_code == 503 and raised.value.code == "bfcl_unavailable"
    assert "pip install --no-deps bfcl-eval" in raised.value.message
