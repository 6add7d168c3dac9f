"""Do synth's questions read like people's? Per catalog, under a pretrained LM judge.

Two catalogs the template generator was not written against:

- ``bfcl_held_out``: every function of BFCL's held-out half (odd positions of each AST data
  file, :func:`~services.synth.bfcl.solver_eval.half_cases`) used as a user's catalog, only
  as a catalog; the people's questions are those same cases' questions.
- ``builtin``: the built-in catalog; no person wrote questions for it, so the people's
  questions are BFCL's held-out questions of the same categories.

For each, ``n`` ground truths from the stage-1 sampler (default mix, one seed) go through the
ToolLoop with feedback. Figures, over the accepted examples:

- ``synth_nll`` / ``bfcl_nll``: mean per-token NLL (nats) of the questions under the judge
  (:mod:`services.synth.judge`); ``bfcl_nll`` weighs BFCL's per-category means by the
  categories' shares among synth's accepted examples, so both sides ask for the same mix.
  ``query_nll_gap`` = ``synth_nll`` − ``bfcl_nll``; ``synth_nll_by_category`` beside it.
- ``distinct_2`` / ``bfcl_distinct_2``: distinct word bigrams over all bigrams, each side on
  the same number of questions (bigram variety falls as a set grows), BFCL's a seeded draw.
- ``label_leak_rate``, ``acceptance_rate``, ``examples_per_s`` (accepted per second, the
  loop only) and ``questions_per_s`` (stage 2 alone: first-try questions per second).
- ``examples``: a few accepted questions, to read.

With ``rank_queries`` K above 1 each catalog is also run with stage 2 ranked
(:class:`~services.synth.generators.ranked.RankedWriter`: K template drafts, the real base
``smollm2-135m`` keeps the one it reads best) on the same truths, under
``naturalness_ranked_by_catalog``, with the ranking's counts. The judge must then be another
model (``gemma3-270m``): one that also chose would grade its own taste.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Any

from services.synth.bfcl.convert import from_bfcl_function
from services.synth.bfcl.data import AST_CATEGORIES
from services.synth.bfcl.model_eval import case_query
from services.synth.bfcl.solver_eval import half_cases
from services.synth.calls import CATEGORIES, Tool
from services.synth.catalog import builtin_catalog
from services.synth.generators.base import Generator
from services.synth.generators.ranked import RankedWriter
from services.synth.generators.template import TemplateGenerator
from services.synth.judge import NllJudge
from services.synth.naturalness import distinct_2, leaks_label
from services.synth.outcome import Outcome
from services.synth.pipeline import synthesize
from services.synth.sampling import Sampler
from services.synth.service import RANKER

__all__ = [
    "MemoJudge",
    "bfcl_questions",
    "catalog_figures",
    "held_out_catalog",
    "question_naturalness",
]


def held_out_catalog() -> list[Tool]:
    """BFCL's held-out half's functions (AST categories), distinct by name, as OpenAI tools."""
    seen: dict[str, dict[str, Any]] = {}
    for category in AST_CATEGORIES:
        for case in half_cases(category, "held_out"):
            for function in case.functions:
                seen.setdefault(function["name"], function)
    return [from_bfcl_function(f) for f in seen.values()]


@cache
def bfcl_questions() -> dict[str, tuple[str, ...]]:
    """BFCL's held-out questions by our category (irrelevance included)."""
    return {c: tuple(case_query(k) for k in half_cases(c, "held_out")) for c in CATEGORIES}


class MemoJudge:
    """The judge with a memo: BFCL's questions are scored once for both catalogs."""

    def __init__(self, judge: Any) -> None:
        self.judge, self.memo = judge, {}

    def mean(self, texts: Sequence[str]) -> float:
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        self.memo.update(zip(todo, self.judge.scores(todo), strict=True))
        return statistics.fmean(self.memo[t] for t in texts)


def _synthesise(
    tools: Sequence[Tool], n: int, seed: int, generator: Generator
) -> tuple[list[Outcome], float, float]:
    sampler = Sampler(tools, seed=seed)
    truths = [sampler.sample() for _ in range(n)]
    started = time.perf_counter()
    for i, truth in enumerate(truths):
        generator.query(truth, seed=seed * 1_000_003 + i)
    questions_s = time.perf_counter() - started
    started = time.perf_counter()
    outcomes = [synthesize(t, generator, seed=seed * 1_000_003 + i) for i, t in enumerate(truths)]
    return outcomes, questions_s, time.perf_counter() - started


def _nll(scored: MemoJudge, kept: Sequence[Outcome]) -> dict[str, Any]:
    shares = Counter(o.truth.category for o in kept)
    people = bfcl_questions()
    synth_nll = scored.mean([o.query for o in kept])
    bfcl_nll = sum(shares[c] * scored.mean(people[c]) for c in shares) / len(kept)
    by_category = {
        c: round(scored.mean([o.query for o in kept if o.truth.category == c]), 4)
        for c in CATEGORIES
        if shares[c]
    }
    return {
        "query_nll_gap": round(synth_nll - bfcl_nll, 4),
        "synth_nll": round(synth_nll, 4),
        "bfcl_nll": round(bfcl_nll, 4),
        "synth_nll_by_category": by_category,
    }


def catalog_figures(
    scored: MemoJudge | None,
    tools: Sequence[Tool],
    *,
    n: int,
    seed: int = 0,
    generator: Generator | None = None,
) -> dict[str, Any]:
    """The figures of the module doc for one catalog (without a judge: all but the NLLs),
    written by ``generator`` (the template generator by default)."""
    generator = generator or TemplateGenerator()
    outcomes, questions_s, loop_s = _synthesise(tools, n, seed, generator)
    kept = [o for o in outcomes if o.accepted]
    if not kept:
        raise RuntimeError("no example was accepted; nothing to judge")
    pooled = [q for c in CATEGORIES for q in bfcl_questions()[c]]
    size = min(len(kept), len(pooled))
    return {
        "n": n,
        "functions": len(tools),
        "acceptance_rate": round(len(kept) / n, 4),
        **(_nll(scored, kept) if scored is not None else {}),
        "distinct_2": round(distinct_2([o.query for o in kept[:size]]), 4),
        "bfcl_distinct_2": round(distinct_2(random.Random(seed).sample(pooled, size)), 4),
        "label_leak_rate": round(sum(leaks_label(o.query, o.truth) for o in kept) / len(kept), 4),
        "examples_per_s": round(len(kept) / loop_s, 1),
        "questions_per_s": round(n / questions_s, 1),
        "examples": [o.query for o in kept[:5]],
        **({"ranking": generator.rank_stats.wire()} if isinstance(generator, RankedWriter) else {}),
    }


def question_naturalness(
    judge_name: str | None,
    *,
    n: int = 400,
    seed: int = 0,
    threads: int = 1,
    judge: Any = None,
    rank_queries: int = 1,
    ranker: Any = None,
) -> dict[str, Any]:
    """Both catalogs' figures under the judge ``judge_name`` (a named base; None: no NLLs);
    with ``rank_queries`` above 1, ranked stage 2 beside (the module doc)."""
    if rank_queries > 1 and judge_name == RANKER:
        raise ValueError(f"the ranker {RANKER} cannot judge its own choices: judge with another")
    if judge is None and judge_name is not None:
        judge = NllJudge(judge_name, threads=threads)
    scored = MemoJudge(judge) if judge is not None else None
    catalogs = {"builtin": builtin_catalog(), "bfcl_held_out": held_out_catalog()}
    per = {name: catalog_figures(scored, tools, n=n, seed=seed) for name, tools in catalogs.items()}
    out = {"judge": judge_name, "natural_n": n, "naturalness_by_catalog": per}
    if rank_queries > 1:
        ranker = ranker or NllJudge(RANKER, threads=threads, dtype="auto", param="rank_queries")
        out["ranker"], out["rank_queries"] = RANKER, rank_queries
        out["naturalness_ranked_by_catalog"] = {
            name: catalog_figures(
                scored,
                tools,
                n=n,
                seed=seed,
                generator=RankedWriter(TemplateGenerator(), ranker, candidates=rank_queries),
            )
            for name, tools in catalogs.items()
        }
    return out
