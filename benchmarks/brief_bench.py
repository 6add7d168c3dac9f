"""``python -m benchmarks briefs``: the brief compiler against hand-written briefs.

The briefs (``benchmarks/data/briefs.jsonl``) were written over the pools of
:mod:`benchmarks.brief_pools` before the compiler existed; each carries the constraints its
words state (``gold``: a kind, the parameters the words fix, and the words). Each brief goes
through the product path: ``POST /v1/tasks:compile`` (``rules`` unless ``--compiler``), then
``POST /v1/plan`` with the compiled task, on an in-process planner whose verdicts come from
a verifier served by uvicorn on localhost. Figures:

- ``recall``: share of gold constraints some compiled constraint matches (below).
- ``precision``: share of compiled *hard* constraints that match a gold constraint or are a
  harmless default (``source: "default"``, or ``music`` naming the pool's only track).
- ``unparsed_rate``: share of the briefs' word characters (letters and digits) inside the
  ``unparsed`` spans; ``unparsed_clause_rate``: share of clauses with an unparsed span.
- ``provenance_rate``: share of matched gold constraints whose compiled provenance overlaps
  the gold words.
- ``feasible_rate``: share of compiled tasks whose plan ends feasible.

A compiled constraint matches a gold one when the kinds agree and every parameter the gold
states agrees: selectors by the clips they pick (the compiled clips must be a non-empty
subset of the gold tags' clips), ``min_count`` (1 when unstated), lengths within 0.05 s, a
gold ``target_s`` by the compiled target, ``allowed`` as a set, coverage topics by the clips
each covers, ``max_consecutive_tag`` by its tag's clips and run.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
from pathlib import Path
from typing import Any

import typer
from fastapi.testclient import TestClient

from benchmarks.brief_pools import pool
from benchmarks.verifier_bench import calibration_us, serve
from clients.verifier import VerifierClient
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.verifier.text import terms

DATA = Path(__file__).parent / "data" / "briefs.jsonl"
_CONTENT = re.compile(r"[A-Za-z0-9\u00C0-\u024F]")


def load(path: Path = DATA, n: int | None = None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows[:n] if n else rows


def compile_body(row: dict[str, Any], compiler: str = "rules") -> dict[str, Any]:
    clips, music = pool(row["pool"])
    brief: dict[str, Any] = {"text": row["text"]}
    if row.get("aspect"):
        brief["aspect"] = row["aspect"]
    return {"brief": brief, "clips": clips, "music": music, "compiler": compiler, "id": row["id"]}


# --------------------------------------------------------------------------- matching


def _tag_clips(tags: list[str], clips: list[dict[str, Any]]) -> frozenset[str]:
    wanted = {t.lower() for t in tags}
    return frozenset(c["id"] for c in clips if wanted & {t.lower() for t in c["tags"]})


def _selected(selector: dict[str, Any] | None, clips: list[dict[str, Any]]) -> frozenset[str]:
    if not selector:
        return frozenset()
    ids = set(selector.get("clip_ids") or ())
    return frozenset(ids) | _tag_clips(selector.get("tags") or [], clips)


def _within(gold: dict[str, Any], entry: dict[str, Any], clips: list[dict[str, Any]]) -> bool:
    got = _selected(entry, clips)
    return bool(got) and got <= _selected(gold, clips)


def _close(a: Any, b: Any) -> bool:
    return a is not None and b is not None and abs(float(a) - float(b)) <= 0.05


def _topic_clips(topic: str, clips: list[dict[str, Any]]) -> frozenset[str]:
    words = terms(topic)
    return frozenset(c["id"] for c in clips if words <= terms(" ".join([c["caption"], *c["tags"]])))


def matches(gold: dict[str, Any], entry: dict[str, Any], clips: list[dict[str, Any]]) -> bool:
    """Whether compiled ``entry`` states what ``gold`` says (see the module docstring)."""
    kind = gold["kind"]
    if entry["kind"] != kind:
        return False
    if kind in ("must_include", "must_exclude"):
        same_count = gold.get("min_count", 1) == entry.get("min_count", 1)
        return _within(gold, entry, clips) and (kind == "must_exclude" or same_count)
    if kind == "order":
        keys = [k for k in ("first", "last", "before", "after") if k in gold]
        if sorted(keys) != sorted(k for k in ("first", "last", "before", "after") if entry.get(k)):
            return False
        return all(_within(gold[k], entry[k], clips) for k in keys)
    if kind == "duration" and "target_s" in gold:
        target = entry.get("target_s")
        if target is None or not _close(target, gold["target_s"]):
            return False
    if kind == "coverage":
        want = sorted(_topic_clips(t, clips) for t in gold["topics"])
        got = sorted(_topic_clips(t, clips) for t in entry["topics"])
        return want == got
    if kind == "max_consecutive_tag":
        same = _tag_clips([entry["tag"]], clips) == _tag_clips([gold["tag"]], clips)
        return same and entry["max_run"] == gold["max_run"]
    for key, value in gold.items():
        if key in ("kind", "words", "source", "target_s"):
            continue
        if key == "allowed":
            if sorted(entry.get("allowed") or []) != sorted(value):
                return False
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if not _close(entry.get(key), value):
                return False
        elif entry.get(key) != value:
            return False
    return True


def score(row: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """One brief's figures from its ``/v1/tasks:compile`` answer."""
    clips, music = pool(row["pool"])
    ledger = answer["task"]["ledger"]
    provenance = answer["provenance"]
    text = row["text"]
    matched_gold, spans_ok, misses = 0, 0, []
    used: set[str] = set()
    for gold in row["gold"]:
        hits = [e for e in ledger if matches(gold, e, clips)]
        if not hits:
            misses.append(gold)
            continue
        matched_gold += 1
        used.update(e["id"] for e in hits)
        if gold.get("words") is None:
            spans_ok += 1
            continue
        start = text.index(gold["words"])
        end = start + len(gold["words"])
        ids = {e["id"] for e in hits}
        spans_ok += any(
            p["constraint_id"] in ids
            and p["start"] is not None
            and p["start"] < end
            and start < p["end"]
            for p in provenance
        )
    defaults = {p["constraint_id"] for p in provenance if p.get("source") == "default"}
    only_track = music[0]["id"] if len(music) == 1 else None
    hard = [e for e in ledger if e["hard"]]
    good = [
        e
        for e in hard
        if e["id"] in used
        or e["id"] in defaults
        or (e["kind"] == "music" and e["track_id"] == only_track)
    ]
    extras = [e for e in hard if e not in good]
    content = len(_CONTENT.findall(text))
    unparsed = sum(len(_CONTENT.findall(u["text"])) for u in answer["unparsed"])
    return {
        "id": row["id"],
        "gold": len(row["gold"]),
        "recovered": matched_gold,
        "spans_ok": spans_ok,
        "hard": len(hard),
        "hard_ok": len(good),
        "content_chars": content,
        "unparsed_chars": unparsed,
        "unparsed": [u["text"] for u in answer["unparsed"]],
        "misses": misses,
        "extras": extras,
        "conflicts": [c["message"] for c in answer["conflicts"]],
    }


# --------------------------------------------------------------------------- the run


def run(
    path: Path = DATA,
    *,
    n: int | None = None,
    compiler: str = "rules",
    plan: bool = True,
    seed: int = 0,
) -> dict[str, Any]:
    rows = load(path, n)
    per_brief: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        settings = PlannerSettings(
            data_dir=Path(scratch),
            media_root=Path(scratch),
            log_level="WARNING",
            relevance="tfidf",
        )
        if plan:
            with (
                serve("services.verifier.app:app", workers=1) as url,
                VerifierClient(url) as verifier,
                TestClient(build_app(settings, verifier=verifier)) as planner,
            ):
                per_brief = [_one(planner, row, compiler, seed, plan) for row in rows]
        else:
            with TestClient(build_app(settings)) as planner:
                per_brief = [_one(planner, row, compiler, seed, plan) for row in rows]
    return _figures(per_brief, compiler, plan)


def _one(
    planner: TestClient, row: dict[str, Any], compiler: str, seed: int, plan: bool
) -> dict[str, Any]:
    answer = planner.post("/v1/tasks:compile", json=compile_body(row, compiler))
    answer.raise_for_status()
    compiled = answer.json()
    figures = score(row, compiled)
    clauses = _clauses(row["text"])
    figures["clauses"] = len(clauses)
    figures["clauses_unparsed"] = sum(
        any(a <= u["start"] < b for u in compiled["unparsed"]) for a, b in clauses
    )
    if plan:
        body = {"task": compiled["task"], "options": {"proposer": "search", "seed": seed}}
        result = planner.post("/v1/plan", json=body)
        result.raise_for_status()
        figures["feasible"] = result.json()["feasible"]
        figures["unmet"] = [
            c["message"]
            for c in result.json()["report"]["constraints"]
            if c["hard"] and not c["satisfied"]
        ]
    return figures


def _clauses(text: str) -> list[tuple[int, int]]:
    from services.planner.ingest.brief.sheet import clauses

    return [(c.start, c.end) for c in clauses(text)]


def _figures(per_brief: list[dict[str, Any]], compiler: str, plan: bool) -> dict[str, Any]:
    def total(key: str) -> int:
        return sum(b[key] for b in per_brief)

    figures: dict[str, Any] = {
        "briefs": len(per_brief),
        "compiler": compiler,
        "gold_constraints": total("gold"),
        "recall": round(total("recovered") / total("gold"), 4),
        "precision": round(total("hard_ok") / max(1, total("hard")), 4),
        "unparsed_rate": round(total("unparsed_chars") / total("content_chars"), 4),
        "unparsed_clause_rate": round(total("clauses_unparsed") / total("clauses"), 4),
        "provenance_rate": round(total("spans_ok") / max(1, total("recovered")), 4),
        "mean_conflicts": round(statistics.fmean(len(b["conflicts"]) for b in per_brief), 3),
    }
    if plan:
        figures["feasible_rate"] = round(sum(b["feasible"] for b in per_brief) / len(per_brief), 4)
    figures["python_calibration_us"] = calibration_us()
    figures["misses"] = [
        {"brief": b["id"], "kind": m["kind"], "words": m.get("words")}
        for b in per_brief
        for m in b["misses"]
    ]
    figures["extras"] = [
        {"brief": b["id"], **{k: v for k, v in e.items() if v is not None and k != "hard"}}
        for b in per_brief
        for e in b["extras"]
    ]
    figures["infeasible"] = [
        {"id": b["id"], "unmet": b["unmet"]} for b in per_brief if plan and not b["feasible"]
    ]
    figures["unparsed"] = {b["id"]: b["unparsed"] for b in per_brief if b["unparsed"]}
    return figures


def cli(
    json_path: Path = typer.Option(Path("briefs-bench.json"), "--json", help="Output file."),
    data: Path = typer.Option(DATA, help="Briefs JSONL with gold constraints."),
    n: int = typer.Option(0, help="How many briefs from the top (0: all)."),
    compiler: str = typer.Option("rules", help="rules or llm (needs REFINERY_LLM_BASE_URL)."),
    plan: bool = typer.Option(True, help="Plan each compiled task (feasible_rate)."),
    seed: int = typer.Option(0, help="Planning seed."),
) -> None:
    """Compile hand-written briefs, score them against their gold ledgers, plan them."""
    results = run(data, n=n or None, compiler=compiler, plan=plan, seed=seed)
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    summary = {k: v for k, v in results.items() if not isinstance(v, list | dict)}
    typer.echo(json.dumps(summary, indent=2))
