"""Durable synth jobs: ``POST /v1/synthesize`` queues one, worker threads run the pipeline.

A job's payload is self-contained (the resolved tools, the seed, the options), so any
worker, in any process, replays the same deterministic sampler. The handler walks the
sequence numbers ``0, 1, 2, …``: it draws every ground truth (to keep the sampler's stream
in step) but skips the ``seq`` already stored, synthesizes the rest, and writes them in
small batches keyed unique ``(job_id, seq)``. Each row carries its per-stage counts, so a
resumed attempt rebuilds the progress from the table and an interrupted batch is simply
written again: nothing lost, nothing duplicated. A batch whose commit hits a dropped database
connection is retried whole (the keyed insert skips what did land), and a job failed for
any reason resumes the same way after ``POST /v1/jobs/{id}:retry``. It stops at ``n``
accepted examples or after ``max_samples`` draws.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine

from services.common.jobs import JobQueue
from services.common.metrics import SYNTH_CANDIDATES
from services.common.worker import Handler, JobContext, Worker
from services.synth import store
from services.synth.calls import Tool
from services.synth.config import SynthSettings
from services.synth.generators.base import Generator
from services.synth.generators.ranked import RankedWriter, Scorer
from services.synth.generators.staged import CallReader, StagedGenerator
from services.synth.outcome import Outcome
from services.synth.pipeline import synthesize
from services.synth.sampling import Sampler, normalised_entropy

__all__ = [
    "SYNTH_KIND",
    "GeneratorFactory",
    "JobSpec",
    "RankerFactory",
    "ReaderFactory",
    "SynthWorker",
    "Tally",
    "example_seed",
    "function_report",
    "job_generator",
    "stage_counts",
    "synth_handler",
]

SYNTH_KIND = "synth.generate"

GeneratorFactory = Callable[[str], Generator]
"""Builds the named generator for one job (closed afterwards when it has ``close``)."""
ReaderFactory = Callable[[str], CallReader]
"""Builds the stage-3 reader a job names (its ``reader``), for one job."""
RankerFactory = Callable[[], Scorer]
"""Builds the model that ranks stage-2 drafts (a job's ``rank_queries`` above 1)."""


@dataclass(frozen=True)
class JobSpec:
    """What a synth job's payload holds, typed."""

    tools: tuple[Tool, ...]
    n: int
    max_samples: int
    seed: int
    generator: str
    max_refine_rounds: int
    mix: dict[str, float] | None = None
    feedback: bool = True
    reader: str | None = None

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> JobSpec:
        request = payload["request"]
        return cls(
            tools=tuple(payload["tools"]),
            n=request["n"],
            max_samples=payload["max_samples"],
            seed=request["seed"],
            generator=request["generator"],
            max_refine_rounds=request["max_refine_rounds"],
            mix=request.get("mix"),
            feedback=request.get("feedback", True),
            reader=request.get("reader"),
        )


def max_samples(n: int, factor: float) -> int:
    """How many ground truths a job may draw while collecting ``n`` accepted examples."""
    return max(n, math.ceil(n * factor))


def example_seed(job_seed: int, seq: int) -> int:
    """The pipeline's seed for example ``seq``: independent of which worker computes it."""
    return random.Random(f"{job_seed}:{seq}").getrandbits(31)


def stage_counts(outcome: Outcome) -> dict[str, int]:
    """One example's counts, from its trace. Refines: rounds of a stage beyond its first.
    Stage 2 passes when the query stage 3 worked from was verified, fails when the example
    ended on a rejected query; stage 3 passes when the example was accepted, fails when it
    ended on calls that did not reproduce the ground truth. Stage 1 passes when the ground
    truth was (or was refined into) a plausible one, fails when it stayed implausible."""
    queries = [s for s in outcome.trace if s.get("stage") == "query"]
    answers = [s for s in outcome.trace if s.get("stage") == "calls"]
    truths = [s for s in outcome.trace if s.get("stage") == "truth"]
    last = outcome.trace[-1] if outcome.trace else {}
    ended_ok = bool(last.get("verdict", {}).get("ok"))
    ended_on_query = last.get("stage") == "query"
    ended_on_truth = last.get("stage") == "truth"
    return {
        "s1_passes": int(bool(truths) and not ended_on_truth),
        "s1_refines": max(0, len(truths) - 1),
        "s1_failures": int(ended_on_truth and not ended_ok),
        "s2_passes": int(bool(queries) and not ended_on_query),
        "s2_refines": max(0, len(queries) - 1),
        "s2_failures": int(ended_on_query and not ended_ok),
        "s3_passes": int(outcome.accepted),
        "s3_refines": max(0, len(answers) - 1),
        "s3_failures": int(bool(answers) and not ended_on_query and not outcome.accepted),
    }


@dataclass
class Tally:
    """A job's running totals, rebuilt from stored rows when an attempt resumes."""

    sampled: int = 0
    accepted: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, rows: Iterable[tuple[bool, Mapping[str, Any]]]) -> Tally:
        tally = cls()
        for accepted, stats in rows:
            tally.add(accepted, stats)
        return tally

    def add(self, accepted: bool, stats: Mapping[str, Any]) -> None:
        self.sampled += 1
        self.accepted += int(accepted)
        for key, value in stats.items():
            if isinstance(value, int):
                self.counts[key] = self.counts.get(key, 0) + value

    def progress(self, spec: JobSpec) -> dict[str, Any]:
        def stage(s: int) -> dict[str, int]:
            return {k: self.counts.get(f"s{s}_{k}", 0) for k in ("passes", "refines", "failures")}

        rate = self.accepted / self.sampled if self.sampled else 0.0
        return {
            "target": spec.n,
            "max_samples": spec.max_samples,
            "stage1": {"sampled": self.sampled, **stage(1)},
            "stage2": stage(2),
            "stage3": stage(3),
            "accepted": self.accepted,
            "acceptance_rate": round(rate, 4),
            "fraction": round(min(1.0, self.accepted / spec.n), 4),
        }


def _row(job_id: str, seq: int, outcome: Outcome) -> dict[str, Any]:
    truth = outcome.truth
    return {
        "job_id": job_id,
        "seq": seq,
        "accepted": outcome.accepted,
        "category": truth.category,
        "query": outcome.query,
        "example": outcome.example() if outcome.accepted else None,
        "truth": store.truth_to_json(truth),
        "stats": stage_counts(outcome),
    }


class _Run:
    """One attempt at one job: replay, synthesize the missing, write, heartbeat."""

    def __init__(self, ctx: JobContext, engine: Engine, generator: Generator, batch: int) -> None:
        self.ctx = ctx
        self.engine = engine
        self.generator = generator
        self.batch_size = max(1, batch)
        self.spec = JobSpec.from_payload(ctx.payload)
        self.stored = store.stored_stats(engine, ctx.job.id)
        self.tally = Tally.of(self.stored.values())
        self.resumed_from = len(self.stored)
        self._beat = time.monotonic()

    def run(self) -> dict[str, Any]:
        spec, tally = self.spec, self.tally
        self.ctx.heartbeat(progress=tally.progress(spec))
        sampler = Sampler(list(spec.tools), seed=spec.seed, mix=spec.mix)
        self.sampler = sampler
        batch: list[dict[str, Any]] = []
        for seq in range(spec.max_samples):
            if tally.accepted >= spec.n:
                break
            truth = sampler.sample()
            if seq in self.stored:
                continue
            outcome = synthesize(
                truth,
                self.generator,
                max_refine_rounds=spec.max_refine_rounds,
                seed=example_seed(spec.seed, seq),
                feedback=spec.feedback,
            )
            row = _row(self.ctx.job.id, seq, outcome)
            SYNTH_CANDIDATES.labels("accepted" if outcome.accepted else "rejected").inc()
            batch.append(row)
            tally.add(row["accepted"], row["stats"])
            if len(batch) >= self.batch_size:
                self._flush(batch)
            elif time.monotonic() - self._beat > self.ctx.lease_s / 4:
                self._heartbeat()  # a slow generator must not lose the lease mid-batch
        self._flush(batch)
        return self._result()

    def _flush(self, batch: list[dict[str, Any]]) -> None:
        if batch:  # a retried batch is re-inserted whole; rows already stored are skipped
            self.ctx.retry_db(lambda: store.write_examples(self.engine, batch))
            batch.clear()
        self._heartbeat()

    def _heartbeat(self) -> None:
        self.ctx.heartbeat(progress=self.tally.progress(self.spec))  # LeaseLost if cancelled
        self._beat = time.monotonic()

    def _result(self) -> dict[str, Any]:
        result = self.tally.progress(self.spec)
        result["complete"] = self.tally.accepted >= self.spec.n
        result["resumed_from"] = self.resumed_from
        job_id = self.ctx.job.id  # read like the writes: a dropped connection is retried
        result.update(self.ctx.retry_db(lambda: function_report(self.engine, job_id, self.sampler)))
        stats = getattr(self.generator, "stats", None)
        if stats is not None and hasattr(stats, "wire"):
            result["generator_stats"] = stats.wire()
        return result


def function_report(engine: Engine, job_id: str, sampler: Sampler) -> dict[str, Any]:
    """How evenly the job's accepted examples use the catalog: calls per function,
    ``function_usage_entropy`` (1.0 = even), ``functions_never_used`` (realisable functions
    no accepted example calls) and ``unrealisable`` (``{name, reason}`` the sampler left out)."""
    usage = dict.fromkeys(sampler.functions, 0)
    for row in store.iter_examples(engine, job_id):
        for message in (row.example or {}).get("messages", ()):
            for call in message.get("tool_calls") or ():
                name = call["function"]["name"]
                usage[name] = usage.get(name, 0) + 1
    return {
        "function_usage": usage,
        "function_usage_entropy": round(normalised_entropy(usage, len(usage)), 4),
        "functions_never_used": [name for name, count in usage.items() if not count],
        "unrealisable": sampler.unrealisable,
    }


def _no_readers(name: str) -> CallReader:
    raise ValueError(f"this worker builds no stage-3 reader (asked for {name!r})")


def _no_ranker() -> Scorer:
    raise ValueError("this worker builds no stage-2 ranker")


def job_generator(
    request: Mapping[str, Any],
    generators: GeneratorFactory,
    readers: ReaderFactory,
    rankers: RankerFactory = _no_ranker,
) -> Generator:
    """The job's generator; with ``rank_queries`` above 1 its queries are the most natural of
    that many drafts (:class:`RankedWriter`); when the job names a ``reader``, that reader
    answers stage 3."""
    generator = generators(request["generator"])
    reader, drafts = request.get("reader"), request.get("rank_queries", 1)
    try:
        if drafts > 1:
            generator = RankedWriter(generator, rankers(), candidates=drafts)
        if reader is None:
            return generator
        return StagedGenerator(generator, readers(reader), reader_name=reader)
    except Exception:
        close = getattr(generator, "close", None)
        if callable(close):
            close()
        raise


def synth_handler(
    engine: Engine,
    generators: GeneratorFactory,
    *,
    batch_size: int = 8,
    readers: ReaderFactory = _no_readers,
    rankers: RankerFactory = _no_ranker,
) -> Handler:
    """The handler of :data:`SYNTH_KIND` jobs."""

    def handle(ctx: JobContext) -> dict[str, Any]:
        generator = job_generator(ctx.payload["request"], generators, readers, rankers)
        try:
            return _Run(ctx, engine, generator, batch_size).run()
        finally:
            close = getattr(generator, "close", None)
            if callable(close):
                close()

    return handle


class SynthWorker:
    """``settings.synth_workers`` background threads serving synth jobs for this process."""

    def __init__(
        self,
        settings: SynthSettings,
        engine: Engine,
        generators: GeneratorFactory,
        readers: ReaderFactory = _no_readers,
        rankers: RankerFactory = _no_ranker,
    ) -> None:
        self.queue = JobQueue(engine)
        handler = synth_handler(
            engine,
            generators,
            batch_size=settings.synth_batch_size,
            readers=readers,
            rankers=rankers,
        )
        self._workers = [
            Worker(
                self.queue,
                {SYNTH_KIND: handler},
                lease_s=settings.synth_lease_s,
                poll_s=0.2,
                db_retry_s=settings.db_retry_s,
            )
            for _ in range(max(0, settings.synth_workers))
        ]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start serving (again after :meth:`stop`: an app's lifespan may run twice)."""
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(
                target=w.run_forever, args=(self._stop,), name=f"synth-worker-{i}", daemon=True
            )
            for i, w in enumerate(self._workers)
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
