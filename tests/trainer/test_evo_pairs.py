"""Evo pairs: same-state candidates ranked by VES, a rejected patch scoring 0."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.trainer.datasets.evo_pairs import REJECTED_SCORE, build_evo_pairs, pairs
from services.trainer.datasets.records import DatasetError
from tests.trainer.planner_records import example, next_state, record

TASK, FULL = example()
TASKS = {TASK["id"]: TASK}
STATE = next_state(TASK, record(TASK, FULL, [{"op": "remove", "shot": 7}], record_id=0))
BEST = [{"op": "insert", "at": 7, "clip_id": "c10", "in_s": 6.0, "out_s": 8.0}]
MID = [{"op": "insert", "at": 7, "clip_id": "c11", "in_s": 0.0, "out_s": 2.0}]
LOW = [{"op": "insert", "at": 7, "clip_id": "c12", "in_s": 0.0, "out_s": 2.0}]
REJECTED = [{"op": "remove", "shot": 40}]


def candidates() -> list[dict]:
    return [
        record(TASK, STATE, ops, record_id=i, proposer=p, branch_id=i % 2)
        for i, (ops, p) in enumerate(
            [(BEST, "a"), (MID, "b"), (LOW, "a"), (REJECTED, "b"), (BEST, "b")], start=1
        )
    ]


def test_pairs_at_the_default_margin() -> None:
    records = candidates()
    scores = {r["record_id"]: r["ves_after"] for r in records}
    assert scores[4] is None and scores[1] > scores[2] > scores[3]
    rows, stats = build_evo_pairs(records, TASKS)
    # BEST, MID, LOW each beat the rejected patch by ≥ 0.1; their mutual gaps are < 0.1.
    assert len(rows) == 3 and stats["pairs"] == 3
    assert all('"remove","shot":40' in r["rejected"][0]["content"] for r in rows)
    assert [r["margin"] for r in rows] == sorted((r["margin"] for r in rows), reverse=True)
    assert rows[0]["margin"] == pytest.approx(scores[1] - REJECTED_SCORE)
    assert rows[0]["prompt"][0]["role"] == "system" and set(rows[0]) >= {
        "prompt",
        "chosen",
        "rejected",
        "margin",
    }
    assert sum(b["count"] for b in stats["margin_histogram"]) == 3
    assert len(stats["margin_histogram"]) == 10
    assert stats["records"]["skipped"] == {"duplicate_patch": 1}  # BEST twice, paired once


def test_small_margin_pairs_applied_candidates_too() -> None:
    rows, _ = build_evo_pairs(candidates(), TASKS, margin=0.001)
    assert len(rows) == 6  # every ordered pair of 4 distinct scores
    capped, _ = build_evo_pairs(candidates(), TASKS, margin=0.001, max_pairs_per_state=2)
    assert [r["margin"] for r in capped] == [r["margin"] for r in rows[:2]]


def test_a_margin_that_leaves_no_pairs_says_so() -> None:
    rows, stats = build_evo_pairs(candidates(), TASKS, margin=0.99)
    assert rows == []
    assert stats["states"]["skipped"] == {"no_pair_at_margin": 1}
    assert "0.99" in stats["empty_reason"]
    lonely, stats = build_evo_pairs(candidates()[:1], TASKS)
    assert lonely == [] and stats["states"]["skipped"] == {"single_candidate": 1}


def test_bad_options_are_typed_errors() -> None:
    for options, param in (
        ({"margin": 1.5}, "margin"),
        ({"max_pairs_per_state": 0}, "max_pairs_per_state"),
    ):
        with pytest.raises(DatasetError) as caught:
            build_evo_pairs(candidates(), TASKS, **options)
        assert caught.value.param == param


scores = st.lists(st.floats(0, 1, allow_nan=False), min_size=0, max_size=8)


@given(values=scores, margin=st.floats(0, 1, allow_nan=False))
def test_every_pair_reaches_the_margin_and_orders_by_score(
    values: list[float], margin: float
) -> None:
    scored = [(v, f"p{i}") for i, v in enumerate(values)]
    found = pairs(scored, margin)
    for i, j, gap in found:
        assert scored[i][0] > scored[j][0] and gap >= margin and gap > 0
    expected = sum(
        1 for a in values for b in values if round(a - b, 4) >= margin and round(a - b, 4) > 0
    )
    assert len(found) == expected
