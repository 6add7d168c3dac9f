"""``python -m benchmarks synth``: the ToolLoop with the template generator on the built-in catalog.

``n`` ground truths come from the stage-1 sampler (default mix, one seed) and each goes
through :func:`~services.synth.pipeline.synthesize` twice: with feedback (generate → verify →
refine, up to 3 rounds) and as the one-shot baseline (each stage once, then filter). Same
generator, same truths, same run. Figures:

- ``examples_per_s``: accepted examples per second of the feedback run, sampling included,
  one process (one core).
- ``acceptance_rate`` / ``baseline_acceptance_rate``: share of ground truths whose stage 3
  reproduces stage 1; ``acceptance_by_category`` per category (feedback run).
- ``mean_refine_rounds``: refinement rounds per ground truth (feedback run, all truths).
- ``function_usage_entropy`` / ``baseline_function_usage_entropy``: normalised entropy
  (0..1) of function use over the accepted examples' calls, against the catalog's size.
- ``category_shares``: categories among accepted examples.
- ``duplicate_query_rate``: share of accepted examples whose query repeats an earlier one.
- ``label_leak_rate`` / ``baseline_label_leak_rate``: share of accepted queries that say a
  parameter name their calls set, raw or split at ``_`` (:mod:`services.synth.naturalness`);
  ``distinct_2`` / ``baseline_distinct_2``: distinct word bigrams over all bigrams of the
  accepted queries; ``mean_query_words`` / ``baseline_mean_query_words``.
- ``stage1_refined_rate``: share of ground truths stage 1's plausibility check refined.
- ``bfcl_solver_accuracy``: the stage-3 reader alone on BFCL's own questions (bfcl-eval's
  data, judged by its ``ast_checker``), per category, on the held-out half (odd positions in
  each data file; the even half is the one it was tuned on, ``bfcl_solver_accuracy_tuned``);
  ``bfcl_solver_seconds_per_question``: its seconds per held-out question, judging included.
- With ``--model-solver MODEL`` (off by default: the real base took about 3.5 s a question on
  one core), the same held-out questions read by that model under constrained decoding
  (:func:`~services.synth.bfcl.model_eval.evaluate_model`, a call required in these AST
  categories) beside the rule reader: ``bfcl_model_solver_accuracy`` per category (and
  ``overall``), ``model_solver_seconds_per_question`` (judging included; loading not),
  ``model_solver_load_s``, ``model_solver_dtype``, ``model_solver_threads``;
  ``--model-solver-n`` takes the first N held-out questions of each category instead of
  all, and ``bfcl_solver_accuracy_same_questions`` is then the rule reader on exactly those.
- ``naturalness_by_catalog`` (``--natural-n``, 400 truths a catalog; 0 turns it off): per
  catalog (the built-in one; BFCL's held-out functions as a user's catalog) the questions'
  ``query_nll_gap`` against BFCL's human questions under ``--judge`` (``smollm2-135m``;
  ``none``: no NLLs), ``label_leak_rate``, ``distinct_2`` beside BFCL's, acceptance and
  speed (:mod:`benchmarks.synth_natural`).
- ``sample_us``: microseconds per stage-1 ground truth (:meth:`Sampler.sample`, built-in
  catalog, 2000 draws); ``simple_check_us``: microseconds per call check
  (:func:`~services.synth.checker.check_calls`) of a correct one-call ``simple`` answer
  (2000 checks). Both single-threaded, best of 3 repeats.
- ``catalogs``: per catalog (``builtin``, ``bfcl_held_out``, ``library``; ``--catalogs``),
  ``--per-function`` ground truths a function (at most ``--catalog-max-n``):
  ``function_usage_entropy``, ``functions_never_used``, ``unrealisable``, ``value_fit_rate``,
  ``acceptance_rate``, ``examples_per_s`` (:mod:`benchmarks.synth_catalogs`).
- ``python_calibration_us``: how fast this machine ran plain Python at the start (see
  :func:`benchmarks.verifier_bench.calibration_us`).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from benchmarks.synth_catalogs import CATALOGS
from benchmarks.synth_catalogs import run as catalog_run
from benchmarks.synth_natural import question_naturalness
from benchmarks.verifier_bench import calibration_us
from services.synth.calls import CATEGORIES, GroundTruth
from services.synth.catalog import builtin_catalog
from services.synth.checker import check_calls
from services.synth.generators.template import TemplateGenerator
from services.synth.naturalness import distinct_2, leaks_label, mean_words
from services.synth.outcome import Outcome
from services.synth.pipeline import synthesize
from services.synth.sampling import Sampler, normalised_entropy


def _entropy(outcomes: Sequence[Outcome], k: int) -> float:
    counts = Counter(c.name for o in outcomes if o.accepted for c in o.truth.calls)
    return round(normalised_entropy(counts, k), 4)


def _duplicate_rate(outcomes: Sequence[Outcome]) -> float:
    queries = [o.query for o in outcomes if o.accepted]
    return round(1 - len(set(queries)) / len(queries), 4) if queries else 0.0


def _shares(outcomes: Sequence[Outcome]) -> dict[str, float]:
    accepted = Counter(o.truth.category for o in outcomes if o.accepted)
    total = sum(accepted.values()) or 1
    return {c: round(accepted[c] / total, 4) for c in CATEGORIES}


def _by_category(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    seen = Counter(o.truth.category for o in outcomes)
    kept = Counter(o.truth.category for o in outcomes if o.accepted)
    return {c: round(kept[c] / seen[c], 4) if seen[c] else None for c in CATEGORIES}


def _naturalness(outcomes: Sequence[Outcome], prefix: str = "") -> dict[str, float]:
    kept = [o for o in outcomes if o.accepted]
    queries = [o.query for o in kept]
    leaks = sum(leaks_label(o.query, o.truth) for o in kept)
    return {
        f"{prefix}label_leak_rate": round(leaks / len(kept), 4) if kept else 0.0,
        f"{prefix}distinct_2": round(distinct_2(queries), 4),
        f"{prefix}mean_query_words": round(mean_words(queries), 2),
    }


def _refined_rate(outcomes: Sequence[Outcome]) -> float:
    refined = sum(sum(t["stage"] == "truth" for t in o.trace) > 1 for o in outcomes)
    return round(refined / len(outcomes), 4) if outcomes else 0.0


def bfcl_solver() -> dict[str, Any]:
    """The reader's accuracy on BFCL per category: held-out half, and the tuned half; its
    seconds per held-out question (the data loaded first, judging included)."""
    from services.synth.bfcl.data import AST_CATEGORIES
    from services.synth.bfcl.model_eval import half_cases
    from services.synth.bfcl.solver_eval import cases_accuracy, solver_accuracy

    cases = {category: half_cases(category, "held_out") for category in AST_CATEGORIES}
    started = time.perf_counter()
    held = {category: cases_accuracy(chosen) for category, chosen in cases.items()}
    seconds = time.perf_counter() - started
    tuned = solver_accuracy("tuned")
    total = sum(len(chosen) for chosen in cases.values())
    return {
        "bfcl_solver_accuracy": {c: r["accuracy"] for c, r in held.items()},
        "bfcl_solver_accuracy_tuned": {c: r["accuracy"] for c, r in tuned.items()},
        "bfcl_solver_split": "held out: odd positions in each bfcl-eval data file (tuned: even)",
        "bfcl_solver_seconds_per_question": round(seconds / max(total, 1), 5),
    }


def bfcl_model_solver(
    model: str, *, n: int | None = None, threads: int = 1, batch_size: int = 8
) -> dict[str, Any]:
    """``model`` (a base name or checkpoint folder) on the held-out half, beside the rule
    reader on the same questions (see the module doc)."""
    from benchmarks.bfcl_bench import measure
    from benchmarks.cpu_threads import torch_threads
    from services.synth.bfcl.data import AST_CATEGORIES
    from services.synth.bfcl.model_eval import half_cases
    from services.synth.bfcl.solver_eval import cases_accuracy

    with torch_threads(threads) as used:
        figures = measure(
            model, AST_CATEGORIES, half="held_out", n=n, batch_size=batch_size, progress=False
        )
    rules = {c: cases_accuracy(half_cases(c, "held_out", n)) for c in AST_CATEGORIES}
    correct, total = (sum(r[key] for r in rules.values()) for key in ("correct", "total"))
    same = {c: r["accuracy"] for c, r in rules.items()}
    same["overall"] = round(correct / total, 4) if total else 0.0
    return {
        "bfcl_model_solver": model,
        "bfcl_model_solver_accuracy": figures["accuracy"],
        "bfcl_model_solver_questions": figures["total"],
        "bfcl_solver_accuracy_same_questions": same,
        "model_solver_seconds_per_question": figures["seconds_per_question"],
        "model_solver_load_s": figures["load_s"],
        "model_solver_dtype": figures["dtype"],
        "model_solver_threads": used,
    }


def _best_us(action: Any, rounds: int = 2000, repeats: int = 3) -> float:
    """Microseconds per call of ``action`` (best of ``repeats`` runs of ``rounds`` calls)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(rounds):
            action()
        best = min(best, time.perf_counter() - start)
    return round(best / rounds * 1e6, 2)


def micro(tools: Sequence[Any], *, seed: int = 0) -> dict[str, float]:
    """``sample_us`` and ``simple_check_us`` (see the module doc)."""
    sampler = Sampler(tools, seed=seed)
    sample_us = _best_us(sampler.sample)
    truth = next(t for t in iter(sampler.sample, None) if t.category == "simple")
    calls = list(truth.calls)
    if not check_calls(calls, truth).ok:  # the measured path is the accepting one
        raise RuntimeError(f"the ground truth's own calls fail the checker: {truth}")
    return {"sample_us": sample_us, "simple_check_us": _best_us(lambda: check_calls(calls, truth))}


def run(
    *,
    n: int,
    seed: int = 0,
    max_refine_rounds: int = 3,
    model_solver: str | None = None,
    model_solver_n: int | None = None,
    threads: int = 1,
    catalogs: Sequence[str] = (),
    per_function: int = 20,
    catalog_max_n: int = 4000,
    natural_n: int = 0,
    judge: str | None = None,
    rank_queries: int = 1,
) -> dict[str, Any]:
    """Sample ``n`` ground truths and synthesise each with and without feedback (``n`` 0:
    skipped); with ``model_solver``, that model on BFCL's held-out half too; with
    ``catalogs``, :func:`benchmarks.synth_catalogs.run` on those catalogs; with
    ``natural_n``, the questions' naturalness per catalog."""
    per_catalog = (
        {"catalogs": catalog_run(catalogs, per_function=per_function, max_n=catalog_max_n)}
        if catalogs
        else {}
    )
    if natural_n:
        per_catalog |= question_naturalness(
            judge, n=natural_n, seed=seed, threads=threads, rank_queries=rank_queries
        )
    if n <= 0:
        return {"seed": seed, **per_catalog}
    return (
        _loop_figures(
            n=n,
            seed=seed,
            max_refine_rounds=max_refine_rounds,
            model_solver=model_solver,
            model_solver_n=model_solver_n,
            threads=threads,
        )
        | per_catalog
    )


def _loop_figures(
    *,
    n: int,
    seed: int,
    max_refine_rounds: int,
    model_solver: str | None,
    model_solver_n: int | None,
    threads: int,
) -> dict[str, Any]:
    calibration = calibration_us()
    tools = builtin_catalog()
    generator = TemplateGenerator()
    start = time.perf_counter()
    sampler = Sampler(tools, seed=seed)
    truths: list[GroundTruth] = [sampler.sample() for _ in range(n)]
    sampled = time.perf_counter()
    outcomes = [
        synthesize(t, generator, max_refine_rounds=max_refine_rounds, seed=seed * 1_000_003 + i)
        for i, t in enumerate(truths)
    ]
    elapsed = time.perf_counter() - start
    baseline = [
        synthesize(t, generator, seed=seed * 1_000_003 + i, feedback=False)
        for i, t in enumerate(truths)
    ]
    accepted = sum(o.accepted for o in outcomes)
    model = (
        bfcl_model_solver(model_solver, n=model_solver_n, threads=threads) if model_solver else {}
    )
    return {
        "n": n,
        "seed": seed,
        "generator": generator.name,
        "max_refine_rounds": max_refine_rounds,
        "examples_per_s": round(accepted / elapsed, 1),
        "sampling_s": round(sampled - start, 4),
        "synthesis_s": round(elapsed - (sampled - start), 4),
        "acceptance_rate": round(accepted / n, 4),
        "acceptance_by_category": _by_category(outcomes),
        "mean_refine_rounds": round(statistics.fmean(o.refine_rounds for o in outcomes), 4),
        "function_usage_entropy": _entropy(outcomes, len(tools)),
        "category_shares": _shares(outcomes),
        "duplicate_query_rate": _duplicate_rate(outcomes),
        **_naturalness(outcomes),
        "stage1_refined_rate": _refined_rate(outcomes),
        "baseline_acceptance_rate": round(sum(o.accepted for o in baseline) / n, 4),
        "baseline_function_usage_entropy": _entropy(baseline, len(tools)),
        **_naturalness(baseline, "baseline_"),
        **bfcl_solver(),
        **model,
        **micro(tools, seed=seed),
        "python_calibration_us": calibration,
    }


def cli(
    n: int = typer.Option(
        2000, help="How many ground truths to sample and synthesise (0: the catalogs only)."
    ),
    seed: int = typer.Option(0, help="Sampler and generator seed."),
    max_refine_rounds: int = typer.Option(3, help="Refinement rounds with feedback."),
    json_path: Path = typer.Option(Path("synth-bench.json"), "--json", help="Output file."),
    model_solver: str | None = typer.Option(
        None,
        help="Also judge this model (smollm2-135m, a checkpoint folder) on BFCL's held-out "
        "half beside the rule reader (the real base: about 3.5 s a question on one core).",
        show_default=False,
    ),
    model_solver_n: int = typer.Option(
        0, min=0, help="The model's questions per category: the half's first N (0: all)."
    ),
    threads: int = typer.Option(1, min=0, help="torch threads of the model (0: torch's own)."),
    catalogs: str = typer.Option(
        ",".join(CATALOGS),
        help="Catalogs to run whole (comma-separated; empty: none): usage, value fit, speed.",
    ),
    per_function: int = typer.Option(20, min=1, help="Ground truths per catalog function."),
    catalog_max_n: int = typer.Option(4000, min=1, help="At most this many per catalog."),
    natural_n: int = typer.Option(
        400, min=0, help="Truths per catalog whose questions are judged (0: none)."
    ),
    judge: str = typer.Option(
        "smollm2-135m",
        help="The named base that scores questions' NLL: smollm2-135m, gemma3-270m ('none': "
        "no NLL).",
    ),
    rank_queries: int = typer.Option(
        1,
        min=1,
        max=16,
        help="Also judge stage 2 ranked: this many drafts a query, the most natural to "
        "smollm2-135m kept (then judge with gemma3-270m).",
    ),
) -> None:
    """Run the ToolLoop with and without feedback and write the figures as JSON."""
    results = run(
        n=n,
        seed=seed,
        max_refine_rounds=max_refine_rounds,
        model_solver=model_solver,
        model_solver_n=model_solver_n or None,
        threads=threads,
        catalogs=[c.strip() for c in catalogs.split(",") if c.strip()],
        per_function=per_function,
        catalog_max_n=catalog_max_n,
        natural_n=natural_n,
        judge=None if judge == "none" else judge,
        rank_queries=rank_queries,
    )
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(json.dumps(results, indent=2))
