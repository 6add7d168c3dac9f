"""The briefs harness scores what it claims, on three briefs, and its matching can fail."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import brief_bench
from benchmarks.brief_pools import POOLS, pool


def test_every_brief_is_well_formed_and_every_kind_is_covered() -> None:
    rows = brief_bench.load()
    assert len(rows) >= 40
    kinds = {g["kind"] for row in rows for g in row["gold"]}
    assert len(kinds) == 13
    for row in rows:
        assert row["pool"] in POOLS
        for gold in row["gold"]:
            assert gold["words"] is None or gold["words"] in row["text"]
    for name in POOLS:
        clips, music = pool(name)
        assert 10 <= len(clips) <= 30 and 1 <= len(music) <= 2


def test_matching_compares_clips_counts_and_parameters() -> None:
    clips, _ = pool("wedding")
    gold = {"kind": "must_include", "tags": ["dance"], "min_count": 2}
    assert brief_bench.matches(
        gold, {"kind": "must_include", "tags": ["slowmo"], "min_count": 2}, clips
    )
    assert not brief_bench.matches(gold, {"kind": "must_include", "tags": ["dance"]}, clips)
    assert not brief_bench.matches(
        gold, {"kind": "must_include", "tags": ["cake"], "min_count": 2}, clips
    )
    duration = {"kind": "duration", "target_s": 30}
    assert brief_bench.matches(
        duration, {"kind": "duration", "min_s": 28, "max_s": 32, "target_s": 30}, clips
    )
    assert not brief_bench.matches(duration, {"kind": "duration", "min_s": 28, "max_s": 32}, clips)
    allowed = {"kind": "transitions", "allowed": ["cut", "dissolve"]}
    assert not brief_bench.matches(allowed, {"kind": "transitions", "allowed": ["cut"]}, clips)


def test_the_harness_reports_every_figure_on_three_briefs(tmp_path: Path) -> None:
    rows = brief_bench.load()[:3]
    data = tmp_path / "briefs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    figures = brief_bench.run(data)
    assert figures["briefs"] == 3
    for key in ("recall", "precision", "unparsed_rate", "feasible_rate", "provenance_rate"):
        assert 0.0 <= figures[key] <= 1.0, key
    assert figures["gold_constraints"] == sum(len(row["gold"]) for row in rows)
    assert figures["recall"] > 0.5 and figures["feasible_rate"] > 0
