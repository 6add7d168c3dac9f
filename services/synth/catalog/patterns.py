"""Strings matching a JSON Schema ``pattern``, generated from the regular expression itself.

Used when no realistic pool value fits a parameter's pattern (``^SKU-[0-9]{6}$``,
``^evt_[a-z0-9]{8}$``): the pattern's parse tree is walked and every node emits characters
it accepts, so the result matches by construction (and is checked once more).
"""

from __future__ import annotations

import importlib
import random
import re
from functools import lru_cache
from typing import Any

__all__ = ["from_pattern"]

_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")


@lru_cache(maxsize=256)
def _parsed(pattern: str) -> Any:
    return _parser.parse(pattern)


def from_pattern(pattern: str, rng: random.Random) -> str:
    """A string matching a (simple) regular expression, built from its parse tree.

    Raises ValueError for constructs it cannot invert (look-arounds, back-references).
    """
    out: list[str] = []
    try:
        tree = _parsed(pattern)
    except re.error as error:
        raise ValueError(
            f"pattern {pattern!r} is not a valid regular expression: {error}"
        ) from None
    _emit(tree, rng, out)
    value = "".join(out)
    if not re.search(pattern, value):
        raise ValueError(f"cannot generate a string matching {pattern!r}")
    return value


def _emit(tree: Any, rng: random.Random, out: list[str]) -> None:
    for op, arg in tree:
        if op is _c.LITERAL:
            out.append(chr(arg))
        elif op is _c.IN:
            out.append(rng.choice(_charset(tuple(arg))))
        elif op is _c.ANY:
            out.append(rng.choice(_ALNUM))
        elif op is _c.NOT_LITERAL:
            out.append(rng.choice([ch for ch in _ALNUM if ord(ch) != arg]))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            low, high, sub = arg
            for _ in range(rng.randint(low, max(low, min(high, low + 3)))):
                _emit(sub, rng, out)
        elif op is _c.SUBPATTERN:
            _emit(arg[-1], rng, out)
        elif op is _c.BRANCH:
            _emit(rng.choice(arg[1]), rng, out)
        elif op is not _c.AT:
            raise ValueError(f"unsupported regular expression construct {op}")


_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_CATEGORIES = {"CATEGORY_DIGIT": "0123456789", "CATEGORY_WORD": _ALNUM + "_"}
_CATEGORIES["CATEGORY_SPACE"] = " "


@lru_cache(maxsize=256)
def _charset(items: tuple[Any, ...]) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            chars.append(chr(arg))
        elif op is _c.RANGE:
            chars.extend(chr(code) for code in range(arg[0], arg[1] + 1))
        elif op is _c.CATEGORY:
            chars.extend(_CATEGORIES.get(str(arg), _ALNUM))
    pool = "".join(ch for ch in _ALNUM + " -_." if ch not in chars) if negate else "".join(chars)
    if not pool:
        raise ValueError("a character class of the pattern admits no printable character")
    return pool
