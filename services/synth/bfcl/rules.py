"""BFCL's value-matching rules, ported from bfcl-eval's ``ast_checker``. Pure.

:func:`equivalent` is ``simple_function_checker``'s per-parameter decision after the type
check: an int stands for a float; a value whose type differs from the schema's but matches
the possible answer's ("a variable") is compared as is; strings are compared after
:func:`standardize_string`; dicts key by key (``dict_checker``: keys whose options hold
``""`` may be left out); lists of dicts position by position (``list_dict_checker``); other
lists element by element, strings standardised (``list_checker``; an option ``""`` matches
``[]``); anything else by equality. The agreement tests hold this port to the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["Options", "equivalent", "first_type", "standardize_string"]

Options = list[Any]
"""Acceptable values of one parameter; ``""`` among them means "may be left out"."""

_PUNCT = re.compile(r"[ ,./\-_*^]")
_MATCH_TYPE: dict[str, type] = {
    "string": str,
    "any": str,
    "integer": int,
    "number": float,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "object": dict,
    "dict": dict,
}


def standardize_string(text: str) -> str:
    """BFCL's normalisation: drop spaces and ``,./-_*^``, lowercase, ``'`` → ``"``."""
    return _PUNCT.sub("", text).lower().replace("'", '"')


def first_type(schema: Mapping[str, Any]) -> str | None:
    """The schema's type name (the first non-null one of a list)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return next((k for k in kind if k != "null"), None)
    return kind


def equivalent(value: Any, options: Options, schema: Mapping[str, Any]) -> bool:
    """Whether ``value`` matches one of ``options`` for a parameter typed by ``schema``."""
    kind = first_type(schema) if not isinstance(schema.get("type"), list) else None
    expected = _MATCH_TYPE.get(kind) if kind else None
    if expected is float and type(value) is int:
        value = float(value)
    answer_type = next((type(o) for o in options if o != ""), None)
    if expected is None:
        return value in options
    if type(value) is not expected:
        return type(value) is answer_type and value in options
    if answer_type is not None and answer_type is not expected:
        return value in options
    if expected is str:
        wanted = standardize_string(value)
        return any(type(o) is str and standardize_string(o) == wanted for o in options)
    if expected is dict:
        return _dict_match(value, options)
    if expected is list:
        items = schema.get("items") or {}
        if _MATCH_TYPE.get(first_type(items) or "") is dict:
            return _list_dict_match(value, options)
        return _list_match(value, options)
    return value in options


def _standard(values: Iterable[Any]) -> list[Any]:
    return [standardize_string(v) if type(v) is str else v for v in values]


def _list_match(value: list, options: Options) -> bool:
    wanted = _standard(value)
    return any(_standard(o) == wanted for o in options if isinstance(o, (list, str)))


def _dict_match(value: dict, options: Options) -> bool:
    for option in options:
        if type(option) is not dict:
            continue
        fits = True
        for key, item in value.items():
            accepted = option.get(key)
            if accepted is None:
                fits = False
                break
            wanted = standardize_string(item) if type(item) is str else item
            if wanted not in _standard(accepted):
                fits = False
                break
        if fits and all(key in value or "" in v for key, v in option.items()):
            return True
    return False


def _list_dict_match(value: list, options: Options) -> bool:
    for option in options:
        if not isinstance(option, (list, str)) or len(option) != len(value):
            continue
        if all(type(v) is dict and _dict_match(v, [o]) for v, o in zip(value, option, strict=True)):
            return True
    return False
