"""Per-catalog naturalness figures: both catalogs, in range; the NLL gap weighs categories."""

from __future__ import annotations

import pytest

from benchmarks.synth_natural import (
    MemoJudge,
    bfcl_questions,
    catalog_figures,
    held_out_catalog,
    question_naturalness,
)
from services.synth.catalog import builtin_catalog


class _Words:
    """A judge that scores a text by its number of words (enough to check the arithmetic)."""

    def scores(self, texts: list[str]) -> list[float]:
        return [float(len(t.split())) for t in texts]


def test_both_catalogs_report_leaks_variety_and_speed_without_a_judge() -> None:
    pytest.importorskip("bfcl_eval")
    figures = question_naturalness(None, n=12, seed=2)
    assert set(figures["naturalness_by_catalog"]) == {"builtin", "bfcl_held_out"}
    for per in figures["naturalness_by_catalog"].values():
        assert "query_nll_gap" not in per
        for key in ("acceptance_rate", "distinct_2", "bfcl_distinct_2", "label_leak_rate"):
            assert 0.0 <= per[key] <= 1.0, key
        assert per["examples_per_s"] > 0 and per["questions_per_s"] > 0 and per["examples"]
    assert figures["naturalness_by_catalog"]["bfcl_held_out"]["functions"] > 300


def test_the_people_side_takes_synths_category_mix() -> None:
    pytest.importorskip("bfcl_eval")
    assert len(held_out_catalog()) > 300 and len(bfcl_questions()["simple"]) == 200
    figures = catalog_figures(MemoJudge(_Words()), builtin_catalog(), n=10, seed=1)
    mix = figures["synth_nll_by_category"]
    people = {c: sum(len(q.split()) for q in qs) / len(qs) for c, qs in bfcl_questions().items()}
    assert set(mix) <= set(people) and figures["synth_nll"] > 0
    assert figures["query_nll_gap"] == pytest.approx(
        figures["synth_nll"] - figures["bfcl_nll"], abs=2e-4
    )
    assert (
        min(people[c] for c in mix) - 1e-6
        <= figures["bfcl_nll"]
        <= max(people[c] for c in mix) + 1e-6
    )


def test_ranked_stage_2_is_judged_beside_on_the_same_truths_by_another_model() -> None:
    pytest.importorskip("bfcl_eval")
    with pytest.raises(ValueError, match="cannot judge its own"):
        question_naturalness("smollm2-135m", n=2, rank_queries=4, judge=_Words())
    figures = question_naturalness(
        "words", n=8, seed=1, judge=_Words(), rank_queries=4, ranker=_Words()
    )
    plain, ranked = figures["naturalness_by_catalog"], figures["naturalness_ranked_by_catalog"]
    assert figures["ranker"] == "smollm2-135m" and figures["rank_queries"] == 4
    for name, per in ranked.items():
        counts = per["ranking"]
        assert counts["queries"] >= 8 and counts["passed"] <= counts["drafts"]
        assert counts["drafts"] <= 4 * counts["queries"] and counts["changed"] >= 1
        assert per["n"] == plain[name]["n"] and "query_nll_gap" in per
