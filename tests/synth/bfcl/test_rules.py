"""BFCL's value rules as ported: the quirks the agreement test relies on, spelled out."""

from __future__ import annotations

from services.synth.bfcl.rules import equivalent, first_type, standardize_string

STRING = {"type": "string"}
FLOAT = {"type": "float"}
DICT = {"type": "dict"}
LIST = {"type": "array", "items": {"type": "string"}}
LIST_OF_DICTS = {"type": "array", "items": {"type": "dict"}}


def test_strings_compare_standardised() -> None:
    assert equivalent("New-York City", ["new york city"], STRING)
    assert not equivalent("Boston", ["new york city", ""], STRING)
    assert standardize_string("A_B*C^D") == "abcd"


def test_int_stands_for_float_and_variables_compare_as_is() -> None:
    assert equivalent(3, [3.0], FLOAT)
    assert not equivalent(3.5, [3.0], FLOAT)
    assert equivalent("x_var", ["x_var"], {"type": "integer"})  # the answer names a variable
    assert not equivalent("x_var", [5], {"type": "integer"})


def test_lists_and_the_empty_option() -> None:
    assert equivalent(["Paris", "ROME"], [["paris", "rome"]], LIST)
    assert not equivalent(["rome", "paris"], [["paris", "rome"]], LIST)
    assert equivalent([], [""], LIST)  # bfcl-eval reads "" as an empty list


def test_dicts_allow_optional_keys_only() -> None:
    option = {"city": ["Paris"], "zip": ["", "75001"]}
    assert equivalent({"city": "paris"}, [option], DICT)
    assert equivalent({"city": "Paris", "zip": "75001"}, [option], DICT)
    assert not equivalent({"zip": "75001"}, [option], DICT)
    assert not equivalent({"city": "Paris", "extra": 1}, [option], DICT)
    assert equivalent([{"city": "Paris"}], [[option]], LIST_OF_DICTS)
    assert not equivalent([{"city": "Paris"}, {"city": "Paris"}], [[option]], LIST_OF_DICTS)


def test_first_type() -> None:
    assert first_type({"type": ["null", "integer"]}) == "integer"
    assert first_type({}) is None
