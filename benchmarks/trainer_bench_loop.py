"""The trainer benchmark's planner side: the teachers' registry and the closed loop.

:class:`BenchRegistry` is the trainer's :class:`~services.trainer.teachers.TeacherRegistry`
(named search strategies, endpoints from ``REFINERY_TEACHERS``, everything the planner
resolves) plus one **negative control**, ``noisy``: never a teacher, it is only run when a
benchmark asks for a control, and the SFT builder then scores its trajectories without ever
keeping one. ``noisy`` wraps the built-in search proposer and corrupts a share of its
proposals (times jittered, clip ids swapped, ops dropped), so the teacher records hold good,
bad and broken patches side by side and the verifier, not the teacher, decides which ones
are worth learning. It exists only here: :class:`BenchRegistry` subclasses the planner's
registry and is swapped into a real planner app, whose every verdict comes from a verifier
served over HTTP, exactly as :mod:`benchmarks.planner_bench` runs it.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any, Literal

from fastapi.testclient import TestClient

from benchmarks.verifier_bench import serve
from clients.verifier import VerifierClient
from protocol.verifier import TaskIn
from protocol.verifier.timeline import timeline_payload
from services.planner.app import build_app
from services.planner.config import PlannerSettings
from services.planner.proposers.base import Proposal, Proposer, ProposerStats
from services.planner.proposers.search import SearchProposer
from services.planner.proposers.simple_draft import simple_draft
from services.trainer.teachers import TeacherEndpoint, TeacherRegistry
from services.verifier import patches as P
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import FrameRange, Timeline

__all__ = [
    "BenchRegistry",
    "LoopBudget",
    "LoopRunner",
    "NoisyProposer",
    "corrupt",
    "planner_session",
]

NOISY = "noisy"
CORRUPT_SHARE = 0.5
"""Share of the search proposer's proposals the noisy teacher corrupts."""

RELEVANCE = "tfidf"
"""The teachers rank clips by TF-IDF whatever extras are installed, so the figures repeat."""
EXACT_WORK_LIMIT = 12.0
EXACT_TIME_LIMIT_S = 120.0
"""The ``exact`` teacher stops on CP-SAT's deterministic work (12 units: about the planner's
10 s on an idle core here), not on the wall clock, so a loaded machine teaches the same
trajectories; the wall-clock limit is only a safety net."""


def _jitter(op: P.Op, task: Task, rng: Random) -> P.Op:
    """``op`` with its source range (or its time field) moved by 0.2–1.0 s either way."""
    shift = round(rng.uniform(0.2, 1.0) * task.fps) * rng.choice((-1, 1))
    source = getattr(op, "source", None)
    if isinstance(source, FrameRange):
        start = max(0, source.start + shift)
        return dataclasses.replace(op, source=FrameRange(start, start + source.duration))
    if isinstance(op, P.SetMusic):
        return dataclasses.replace(op, offset=max(0, op.offset + shift))
    if isinstance(op, P.FitDuration):
        return dataclasses.replace(op, target=max(task.fps, op.target + shift))
    return op


def _swap_clip(op: P.Op, task: Task, rng: Random) -> P.Op:
    """``op`` placing another clip of the pool (same source range)."""
    others = sorted(c for c in task.clips if c != getattr(op, "clip_id", None))
    return dataclasses.replace(op, clip_id=rng.choice(others)) if others else op


def corrupt(ops: Sequence[P.Op], task: Task, rng: Random) -> tuple[P.Op, ...]:
    """One corruption of a patch: drop an op (multi-op patches), swap a placed clip, or
    jitter times; a patch none of these change gets a random shot removed in front."""
    ops = list(ops)
    kinds = ["jitter"]
    if len(ops) > 1:
        kinds.append("drop")
    if any(hasattr(op, "clip_id") and hasattr(op, "source") for op in ops):
        kinds.append("swap")
    kind = rng.choice(kinds)
    if kind == "drop":
        del ops[rng.randrange(len(ops))]
        return tuple(ops)
    if kind == "swap":
        index = rng.choice([i for i, op in enumerate(ops) if hasattr(op, "clip_id")])
        ops[index] = _swap_clip(ops[index], task, rng)
        return tuple(ops)
    jittered = [_jitter(op, task, rng) for op in ops]
    if jittered == ops:
        return (P.Remove(shot=rng.randrange(8)), *ops)
    return tuple(jittered)


class NoisyProposer:
    """Search proposals, of which ``share`` are corrupted (seeded per task, state and round)."""

    name = NOISY

    def __init__(self, *, share: float = CORRUPT_SHARE, inner: Proposer | None = None) -> None:
        self.inner = inner or SearchProposer(relevance_backend=RELEVANCE)
        self.share = share
        self.stats = ProposerStats()

    def draft(self, task: Task, *, seed: int) -> Timeline:
        return self.inner.draft(task, seed=seed)

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        self.stats.requests += 1
        rng = Random(f"noisy:{task.id}:{seed}:{len(timeline.shots)}")
        out = []
        for proposal in self.inner.propose(task, timeline, report, n=n, seed=seed):
            ops, note = proposal.ops, proposal.note
            if rng.random() < self.share:
                ops, note = corrupt(ops, task, rng), f"{note}|corrupted"
            out.append(Proposal(ops, self.name, note))
        self.stats.candidates += len(out)
        return out


class BenchRegistry(TeacherRegistry):
    """The teachers' registry plus the benchmark-only ``noisy`` negative control."""

    def resolve(self, name: str, *, param: str = "options.proposer") -> Proposer:
        if name == NOISY:
            return NoisyProposer()
        return super().resolve(name, param=param)


def naive_cut(task_json: Mapping[str, Any]) -> dict[str, Any]:
    """The naive one-shot cut the loop repairs (Timeline.1)."""
    task = TaskIn.model_validate(task_json).to_task()
    return timeline_payload(simple_draft(task, seed=0))


def parse_counts(stats: Mapping[str, Any]) -> tuple[int, int]:
    """(answers, answers that did not parse) of one branch's proposer stats: the planner's
    own parse counters when it reports them (``answers`` / ``parsed``), else every answer a
    model proposer wrote (``candidates``) and those it dropped as unusable (``dropped``)."""
    if "answers" in stats and "parsed" in stats:
        return int(stats["answers"]), int(stats["answers"]) - int(stats["parsed"])
    return int(stats.get("candidates", 0)), int(stats.get("dropped", 0))


GENERATION = tuple(
    f"{kind}{key}"
    for kind in ("", "draft_")
    for key in ("generate_calls", "prompt_tokens", "new_tokens", "generate_s")
)
"""A model proposer's generation counts: its repairs', then its first cuts'."""


def _add_counts(counts: dict[str, float], stats: Mapping[str, Any]) -> None:
    """Add one plan's parse and generation counts to ``counts``."""
    answers, unparsed = parse_counts(stats)
    drafts = int(stats.get("draft_answers", 0))
    added = {"candidates": answers, "dropped": unparsed, "draft_answers": drafts}
    added["draft_unparsed"] = drafts - int(stats.get("draft_parsed", 0))
    added.update({key: stats[key] for key in GENERATION if key in stats})
    for key, value in added.items():
        counts[key] = counts.get(key, 0) + value


def _rates(counts: Mapping[str, float]) -> dict[str, Any]:
    """Parse rates (and tokens per second) from summed counts."""
    candidates, drafts = counts.get("candidates", 0), counts.get("draft_answers", 0)
    out: dict[str, Any] = {
        "candidates": int(candidates),
        "parse_rate": round(1 - counts.get("dropped", 0) / candidates, 4) if candidates else 0.0,
    }
    if drafts:
        out["draft_parse_rate"] = round(1 - counts["draft_unparsed"] / drafts, 4)
    out.update({k: round(counts[k], 2) for k in GENERATION if k in counts})
    for kind in ("", "draft_"):
        if counts.get(f"{kind}generate_s"):
            seconds = counts[f"{kind}generate_s"]
            out[f"{kind}new_tokens_per_s"] = round(counts[f"{kind}new_tokens"] / seconds, 2)
            out[f"{kind}s_per_call"] = round(seconds / counts[f"{kind}generate_calls"], 2)
    return out


@dataclass(frozen=True)
class LoopBudget:
    """Rounds and candidates per round of one closed-loop run, and the rounds in a row
    without an accepted patch before it stops (the planner's ``options.patience``)."""

    max_rounds: int
    candidates: int
    patience: int = 1


DraftMode = Literal["model", "heuristic"]
"""Where a plan's first cut comes from: the proposer's model (``options.draft: "model"``, no
timeline given) or the naive heuristic cut, given as the timeline to repair."""


@dataclass
class LoopRunner:
    """POST /v1/plan (fixed seed) from the model's own first cut or in repair mode from the
    naive cut, and the records written."""

    client: TestClient
    seed: int
    cursor: int = 0

    def plan(
        self,
        task: Mapping[str, Any],
        proposer: str,
        budget: LoopBudget,
        teachers: Sequence[str] = (),
        draft: DraftMode = "heuristic",
    ) -> dict[str, Any]:
        options: dict[str, Any] = {
            "proposer": proposer,
            "teachers": list(teachers),
            "max_rounds": budget.max_rounds,
            "candidates": budget.candidates,
            "patience": budget.patience,
            "seed": self.seed,
            "relax": False,  # every cut is judged under the ledger as written
        }
        body: dict[str, Any] = {"task": task, "options": options}
        if draft == "model":
            options["draft"] = "model"
        else:
            body["timeline"] = naive_cut(task)
        answer = self.client.post("/v1/plan", json=body)
        if answer.is_error:
            raise RuntimeError(f"POST /v1/plan answered {answer.status_code}: {answer.text}")
        return answer.json()

    def evaluate(
        self,
        tasks: Sequence[Mapping[str, Any]],
        proposer: str,
        budget: LoopBudget,
        tick: Callable[[], None],
        draft: DraftMode = "heuristic",
    ) -> dict[str, Any]:
        """Mean final and first-cut VES of ``proposer`` over ``tasks`` (``naive_mean_ves``:
        the first cut's, the model's own under ``draft="model"``), plus how it proposed:
        ``improving_share`` is the share of its scored candidates that raised VES; parse
        rates of its repairs and, under ``draft="model"``, of its drafts; its generation
        figures when it reports them."""
        finals, drafts, accepted = [], [], 0
        counts: dict[str, float] = {}
        self.new_records()  # only this proposer's candidates are counted below
        for task in tasks:
            plan = self.plan(task, proposer, budget, draft=draft)
            finals.append(plan["ves"])
            drafts.append(plan["draft_ves"])
            accepted += sum(r["accepted"] for r in plan["rounds"])
            _add_counts(counts, plan["branches"][0].get("stats") or {})
            tick()
        scored = self.new_records()
        improving = sum((r["ves_after"] or 0.0) > r["ves_before"] for r in scored)
        return {
            "mean_ves": round(sum(finals) / len(finals), 4),
            "improving_share": round(improving / len(scored), 4) if scored else 0.0,
            "naive_mean_ves": round(sum(drafts) / len(drafts), 4),
            "accepted_rounds": accepted,
            **_rates(counts),
        }

    def resolvable(self, names: Sequence[str]) -> tuple[list[str], dict[str, str]]:
        """(the names this planner resolves, {name: why not} for the others)."""
        from services.trainer.teachers import resolvable

        return resolvable(self.client.app.state.registry, list(names))

    def new_records(self) -> list[dict[str, Any]]:
        """Every record written since the last call (GET /v1/records, NDJSON, by cursor)."""
        out: list[dict[str, Any]] = []
        while True:
            answer = self.client.get("/v1/records", params={"after": self.cursor, "limit": 5000})
            answer.raise_for_status()
            rows = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
            self.cursor = int(answer.headers["X-Next-Cursor"])
            out.extend(rows)
            if not rows:
                return out


@contextmanager
def planner_session(
    *, seed: int, endpoints: Sequence[TeacherEndpoint] = ()
) -> Iterator[LoopRunner]:
    """A real planner app (scratch SQLite, :class:`BenchRegistry` with ``endpoints``) whose
    verifier is served by uvicorn on localhost."""
    with (
        serve("services.verifier.app:app", workers=1) as url,
        tempfile.TemporaryDirectory() as scratch,
        VerifierClient(url) as verifier,
    ):
        settings = PlannerSettings(
            data_dir=Path(scratch),
            media_root=Path(scratch),
            relevance=RELEVANCE,
            exact_time_limit_s=EXACT_TIME_LIMIT_S,
            exact_work_limit=EXACT_WORK_LIMIT,
        )
        app = build_app(settings, verifier=verifier)
        app.state.registry = BenchRegistry(settings, app.state.engine, list(endpoints))
        with TestClient(app) as client:
            logging.getLogger("refinery.access").setLevel(logging.WARNING)
            yield LoopRunner(client, seed)
