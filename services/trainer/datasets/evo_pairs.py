"""Evo preference pairs: candidates of the same state, ranked by the verifier's VES.

Every candidate proposed at one (task, state) — any plan, branch or proposer — is scored
by the VES of the timeline it produced. A patch the verifier rejected produced no timeline;
it scores **0**, the VES of a non-executable timeline (E = 0), not the unchanged state's
VES: an inapplicable edit must rank below every applicable one, including one that made
the timeline slightly worse. Each pair of distinct patch texts whose scores differ by at
least ``margin`` (δ, default 0.1) is a row, higher score chosen::

    {"prompt": [system, user], "chosen": [assistant], "rejected": [assistant],
     "margin": <score gap>, "meta": {"task_id", "state_key"}}

Prompt and completions are the planner's prompt and patch text (see ``repair_sft``). When
no pair reaches the margin the builder returns no rows and its stats say why.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from services.trainer.datasets.records import (
    DatasetError,
    RepairRecord,
    TaskBook,
    parse_records,
    state_digest,
)
from services.trainer.datasets.repair_sft import group_by_state
from services.trainer.datasets.stats import MARGIN_EDGES, Tally, histogram

__all__ = ["DEFAULT_MARGIN", "REJECTED_SCORE", "build_evo_pairs", "candidate_score", "pairs"]

DEFAULT_MARGIN = 0.1
REJECTED_SCORE = 0.0
"""Score of a patch the verifier could not apply (see the module docstring)."""


def candidate_score(record: RepairRecord) -> float:
    """The VES a candidate reached; :data:`REJECTED_SCORE` when it was rejected."""
    return record.ves_after if record.applied and record.ves_after is not None else REJECTED_SCORE


def pairs(
    scored: list[tuple[float, str]], margin: float, limit: int | None = None
) -> list[tuple[int, int, float]]:
    """``(chosen, rejected, gap)`` index pairs of ``scored`` (score, text) whose gap is ≥
    ``margin`` and > 0, largest gaps first (stable); at most ``limit`` of them."""
    found = []
    for i, (high, _) in enumerate(scored):
        for j, (low, _) in enumerate(scored):
            gap = round(high - low, 4)
            if gap > 0 and gap >= margin:
                found.append((i, j, gap))
    found.sort(key=lambda p: -p[2])
    return found if limit is None else found[:limit]


def build_evo_pairs(
    records: Iterable[Mapping[str, Any]],
    tasks: Mapping[str, Mapping[str, Any]],
    *,
    margin: float = DEFAULT_MARGIN,
    max_pairs_per_state: int | None = None,
    proposers: Collection[str] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Planner records + their tasks → (DPO rows, stats); see the module docstring."""
    if not 0 <= margin <= 1:
        raise DatasetError(f"margin must lie in [0, 1], got {margin}", param="margin")
    if max_pairs_per_state is not None and max_pairs_per_state < 1:
        raise DatasetError("max_pairs_per_state must be ≥ 1", param="max_pairs_per_state")
    book = TaskBook(tasks)
    record_tally, state_tally = Tally(), Tally()
    groups = group_by_state(parse_records(records, proposers=proposers), book, record_tally)
    rows: list[dict[str, Any]] = []
    for (task_id, key), group in groups.items():
        state_tally.seen += 1
        replayed = book.replay(group[0])
        if replayed is None:
            state_tally.skip("bad_state")
            continue
        scored = _distinct(group, book, replayed.task, record_tally)
        if len(scored) < 2:
            state_tally.skip("single_candidate")
            continue
        found = pairs(scored, margin, max_pairs_per_state)
        if not found:
            state_tally.skip("no_pair_at_margin")
            continue
        state_tally.kept += 1
        meta = {"task_id": task_id, "state_key": state_digest(key)}
        for i, j, gap in found:
            rows.append(
                {
                    "prompt": [dict(m) for m in replayed.messages],
                    "chosen": [{"role": "assistant", "content": scored[i][1]}],
                    "rejected": [{"role": "assistant", "content": scored[j][1]}],
                    "margin": gap,
                    "meta": dict(meta),
                }
            )
    return rows, _stats(rows, margin, record_tally, state_tally)


def _distinct(
    group: list[RepairRecord], book: TaskBook, task: Any, tally: Tally
) -> list[tuple[float, str]]:
    """(score, patch text) per distinct patch text, first occurrence wins."""
    scored: dict[str, float] = {}
    for record in group:
        text = book.completion(task, record.patch)
        if text is None or text in scored:
            tally.kept -= 1
            tally.skip("bad_patch" if text is None else "duplicate_patch")
        else:
            scored[text] = candidate_score(record)
    return [(score, text) for text, score in scored.items()]


def _stats(
    rows: list[dict[str, Any]], margin: float, records: Tally, states: Tally
) -> dict[str, Any]:
    stats: dict[str, Any] = {
        "builder": "evo_pairs",
        "rows": len(rows),
        "pairs": len(rows),
        "margin": margin,
        "rejected_score": REJECTED_SCORE,
        "margin_histogram": histogram((r["margin"] for r in rows), MARGIN_EDGES),
        "records": records.as_dict(),
        "states": states.as_dict(),
    }
    if not rows:
        stats["empty_reason"] = (
            f"no two candidates of one state differ by at least margin {margin}"
            if states.skipped.get("no_pair_at_margin")
            else "no state has two distinct candidates"
        )
    return stats
