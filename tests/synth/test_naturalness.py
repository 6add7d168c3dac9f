"""Label leaks and variety of synthetic queries."""

from __future__ import annotations

from services.synth.calls import Call, GroundTruth
from services.synth.naturalness import distinct_2, leaked_labels, mean_words

TOOL = {
    "type": "function",
    "function": {
        "name": "book_hotel",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "check_in": {"type": "string"}},
        },
    },
}
TRUTH = GroundTruth(
    "simple", (TOOL,), (Call("book_hotel", {"city": "Mexico City", "check_in": "2026-03-14"}),)
)


def test_a_label_leaks_raw_or_split_but_not_inside_a_value() -> None:
    assert leaked_labels("Book a hotel in Mexico City from 2026-03-14", TRUTH) == []
    assert leaked_labels("Book the city Mexico City, check in 2026-03-14", TRUTH) == [
        "check_in",
        "city",
    ]
    assert leaked_labels("check_in: 2026-03-14 in Mexico City", TRUTH) == ["check_in"]


def test_distinct_bigrams_and_words() -> None:
    assert distinct_2(["a b c", "a b c"]) == 0.5
    assert distinct_2([]) == 0.0
    assert mean_words(["one two", "three four five six"]) == 3.0
