"""Strings from a parameter's regex pattern: they match, and a seed fixes them."""

from __future__ import annotations

import random
import re

import pytest

from services.synth.catalog import builtin_catalog
from services.synth.catalog.patterns import from_pattern


def _catalog_patterns() -> list[str]:
    found = set()
    for tool in builtin_catalog():
        for schema in tool["function"]["parameters"].get("properties", {}).values():
            if "pattern" in schema:
                found.add(schema["pattern"])
    return sorted(found)


def test_every_catalog_pattern_is_matched_and_seeded() -> None:
    patterns = _catalog_patterns()
    assert len(patterns) >= 8
    for pattern in patterns:
        values = [from_pattern(pattern, random.Random(seed)) for seed in range(20)]
        assert all(re.search(pattern, value) for value in values), pattern
        assert len(set(values)) > 1, pattern  # the seed varies the string
        assert values == [from_pattern(pattern, random.Random(s)) for s in range(20)]


def test_groups_alternatives_and_classes() -> None:
    rng = random.Random(0)
    for pattern in (r"^(red|green|blue)-[0-9]{2}$", r"^[^x]{2}\.[a-f0-9]+$", r"^\+[1-9]\d{7,14}$"):
        assert re.search(pattern, from_pattern(pattern, rng))


@pytest.mark.parametrize(
    ("pattern", "message"),
    [("^[a-z", "not a valid regular expression"), ("^(?=x)y$", "cannot generate")],
)
def test_bad_patterns_are_clear_errors(pattern: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        from_pattern(pattern, random.Random(0))
