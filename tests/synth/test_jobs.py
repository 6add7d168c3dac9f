"""Durable synth jobs: progress, exhaustion, cancellation, and resuming a killed worker."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from protocol.synth import SynthesizeRequest
from services.common.db import create_tables
from services.common.jobs import JobQueue
from services.common.metrics import DOMAIN
from services.common.worker import Worker
from services.synth import store
from services.synth.calls import Call, GroundTruth, Issue, Tool
from services.synth.catalog import builtin_catalog
from services.synth.config import SynthSettings
from services.synth.generators.template import TemplateGenerator
from services.synth.jobs import SYNTH_KIND, Tally, stage_counts, synth_handler
from services.synth.outcome import Outcome
from services.synth.service import InvalidRequest, submit

BATCH = 4


class Killed(BaseException):
    """A worker dying mid-job: not an ``Exception``, so no failure gets recorded."""


class Faulty(TemplateGenerator):
    """The template generator, with a hook run before every stage-3 answer."""

    def __init__(self, hook: Callable[[int], None] | None = None, *, no_calls: bool = False):
        self.answers = 0
        self.hook = hook
        self.no_calls = no_calls

    def calls(
        self,
        query: str,
        tools: Sequence[Tool],
        *,
        previous: tuple[Call, ...] | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
        reference: date | None = None,
    ) -> tuple[Call, ...]:
        self.answers += 1
        if self.hook is not None:
            self.hook(self.answers)
        if self.no_calls:
            return ()
        return super().calls(
            query, tools, previous=previous, issues=issues, seed=seed, reference=reference
        )


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def queue(engine: Engine) -> JobQueue:
    create_tables(engine)
    return JobQueue(engine, clock=Clock())


def _submit(queue: JobQueue, **body: Any) -> str:
    request = SynthesizeRequest.model_validate({"n": 10, "seed": 5, **body})
    settings = SynthSettings(synth_sample_factor=2.0)
    return submit(request, settings=settings, engine=queue.engine, queue=queue).id


def _worker(queue: JobQueue, generator: TemplateGenerator, name: str = "w1") -> Worker:
    handler = synth_handler(queue.engine, lambda _name: generator, batch_size=BATCH)
    return Worker(queue, {SYNTH_KIND: handler}, worker_id=name, lease_s=30)


def _stored(queue: JobQueue, job_id: str) -> int:
    return len(store.stored_stats(queue.engine, job_id))


def _examples(engine: Engine, job_id: str) -> dict[int, dict[str, Any]]:
    return {row.seq: row.example or {} for row in store.iter_examples(engine, job_id)}


def _candidates(outcome: str) -> float:
    sample = DOMAIN.get_sample_value("refinery_synth_candidates_total", {"outcome": outcome})
    return sample or 0.0


def test_job_collects_n_accepted_examples_with_stage_progress(queue: JobQueue) -> None:
    job_id = _submit(queue)
    accepted, rejected = _candidates("accepted"), _candidates("rejected")
    assert _worker(queue, TemplateGenerator()).run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "succeeded", job.error
    result = job.result or {}
    assert result["accepted"] == 10 and result["complete"] and result["resumed_from"] == 0
    stored = store.stored_stats(queue.engine, job_id)
    assert result["stage1"]["sampled"] == len(stored) >= 10
    assert result["stage3"]["passes"] == 10
    assert sum(accepted for accepted, _ in stored.values()) == 10
    assert _candidates("accepted") - accepted == 10
    assert _candidates("rejected") - rejected == len(stored) - 10
    s2, s3 = result["stage2"], result["stage3"]
    assert s2["failures"] + s3["passes"] + s3["failures"] == len(stored)
    assert result["acceptance_rate"] == round(10 / len(stored), 4)
    assert job.progress["accepted"] == 10 and job.progress["fraction"] == 1.0
    examples = _examples(queue.engine, job_id)
    assert len(examples) == 10
    for example in examples.values():
        assert example["messages"][0]["role"] == "user" and example["tools"]


def test_same_seed_same_examples(queue: JobQueue) -> None:
    first, second = _submit(queue), _submit(queue)
    worker = _worker(queue, TemplateGenerator())
    assert worker.run_once() and worker.run_once()
    assert _examples(queue.engine, first) == _examples(queue.engine, second)


def test_killed_worker_resumes_without_losing_or_duplicating(queue: JobQueue) -> None:
    reference = _submit(queue)
    assert _worker(queue, TemplateGenerator(), "ref").run_once()
    job_id = _submit(queue)

    def die(answers: int) -> None:
        if _stored(queue, job_id) >= BATCH:  # mid second batch: the first one is stored
            raise Killed

    with pytest.raises(Killed):
        _worker(queue, Faulty(die), "w1").run_once()
    stalled = queue.get(job_id)
    assert stalled is not None and stalled.status == "running" and stalled.attempts == 1
    partial = store.stored_stats(queue.engine, job_id)
    assert len(partial) == BATCH and stalled.progress["stage1"]["sampled"] == BATCH

    second = _worker(queue, TemplateGenerator(), "w2")
    assert not second.run_once()  # the dead worker's lease still holds
    queue.clock.now += timedelta(seconds=31)  # type: ignore[attr-defined]
    assert second.run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "succeeded" and job.attempts == 2
    assert job.result is not None and job.result["resumed_from"] == BATCH
    assert _examples(queue.engine, job_id) == _examples(queue.engine, reference)
    ref_stats = store.stored_stats(queue.engine, reference)
    assert store.stored_stats(queue.engine, job_id) == ref_stats
    ref = queue.get(reference)
    assert ref is not None and ref.result is not None
    assert {k: job.result[k] for k in ("stage1", "stage2", "stage3", "accepted")} == {
        k: ref.result[k] for k in ("stage1", "stage2", "stage3", "accepted")
    }


def test_cancelled_job_keeps_its_examples(queue: JobQueue) -> None:
    job_id = _submit(queue, n=40)

    def cancel(answers: int) -> None:
        if _stored(queue, job_id) >= BATCH:
            queue.cancel(job_id)  # as DELETE /v1/jobs/{id} does

    assert _worker(queue, Faulty(cancel)).run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "cancelled"
    kept = _examples(queue.engine, job_id)
    assert 0 < len(kept) < 40
    assert len(store.stored_stats(queue.engine, job_id)) >= BATCH


def test_failed_job_keeps_its_examples(queue: JobQueue) -> None:
    job_id = _submit(queue, n=40)

    def boom(answers: int) -> None:
        if _stored(queue, job_id) >= 2 * BATCH:
            raise RuntimeError("generator fell over")

    assert _worker(queue, Faulty(boom)).run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "failed"
    assert job.error == {"code": "handler_error", "message": "RuntimeError: generator fell over"}
    assert len(store.stored_stats(queue.engine, job_id)) == 2 * BATCH
    assert len(_examples(queue.engine, job_id)) > 0


def test_job_gives_up_after_max_samples(queue: JobQueue) -> None:
    job_id = _submit(queue, n=3, max_refine_rounds=0, mix={"simple": 1, "parallel": 1})
    assert _worker(queue, Faulty(no_calls=True)).run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "succeeded" and job.result is not None
    assert job.result["complete"] is False and job.result["accepted"] == 0
    assert job.result["stage1"]["sampled"] == job.result["max_samples"] == 6
    names = [t["function"]["name"] for t in builtin_catalog()]
    assert job.result["functions_never_used"] == names  # none accepted: each one named
    assert job.result["function_usage_entropy"] == 0.0


LIBRARY = json.loads(
    (Path(__file__).parents[2] / "examples" / "catalogs" / "library.json").read_text()
)
PAINT = {  # three distinct colours from an enum of two: valid JSON Schema, no valid value
    "type": "function",
    "function": {
        "name": "paint_wall",
        "description": "Paint a wall of the reading room.",
        "parameters": {
            "type": "object",
            "properties": {
                "colours": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["red", "blue"]},
                    "minItems": 3,
                    "uniqueItems": True,
                }
            },
            "required": ["colours"],
        },
    },
}


def test_a_catalog_never_seen_gets_every_function_evenly(queue: JobQueue) -> None:
    job_id = _submit(queue, catalog=LIBRARY, n=60, seed=0)
    assert _worker(queue, TemplateGenerator()).run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "succeeded" and job.result is not None
    result = job.result
    assert set(result["function_usage"]) == {t["function"]["name"] for t in LIBRARY}
    assert result["functions_never_used"] == [] and result["unrealisable"] == []
    assert min(result["function_usage"].values()) > 0
    assert result["function_usage_entropy"] >= 0.95
    nested = [
        call["function"]["arguments"]
        for example in _examples(queue.engine, job_id).values()
        for message in example["messages"]
        for call in message.get("tool_calls") or ()
        if call["function"]["name"] == "register_member"
    ]
    assert nested and all("address" in a["member"] for a in nested)


def test_an_unrealisable_function_is_reported_in_the_result(queue: JobQueue) -> None:
    job_id = _submit(queue, catalog=[*LIBRARY, PAINT], n=12, seed=0)
    assert _worker(queue, TemplateGenerator()).run_once()
    job = queue.get(job_id)
    assert job is not None and job.status == "succeeded" and job.result is not None
    (entry,) = job.result["unrealisable"]
    assert entry["name"] == "paint_wall" and "distinct items" in entry["reason"]
    assert "paint_wall" not in job.result["function_usage"]
    assert "paint_wall" not in job.result["functions_never_used"]


def test_a_catalog_with_nothing_realisable_is_a_422_naming_the_catalog(queue: JobQueue) -> None:
    with pytest.raises(InvalidRequest) as caught:
        _submit(queue, catalog=[PAINT], mix={"simple": 1})
    assert caught.value.code == "catalog_unrealisable" and caught.value.param == "catalog"
    assert "paint_wall" in caught.value.message


def _outcome(trace: list[tuple[str, bool]], accepted: bool) -> Outcome:
    truth = GroundTruth("simple", (), ())
    steps = [{"stage": s, "round": 0, "verdict": {"ok": ok, "issues": []}} for s, ok in trace]
    return Outcome(accepted, truth, "q", (), 0, steps)


def test_stage_counts_and_tally() -> None:
    trace = [("truth", False), ("truth", True), ("query", False), ("query", True), ("calls", True)]
    accepted = stage_counts(_outcome(trace, True))
    assert accepted == {
        "s1_passes": 1, "s1_refines": 1, "s1_failures": 0,
        "s2_passes": 1, "s2_refines": 1, "s2_failures": 0,
        "s3_passes": 1, "s3_refines": 0, "s3_failures": 0,
    }  # fmt: skip
    bad_query = stage_counts(_outcome([("query", False)], False))
    assert bad_query["s2_failures"] == 1 and bad_query["s3_failures"] == 0
    bad_calls = stage_counts(_outcome([("query", True), ("calls", False), ("calls", False)], False))
    assert bad_calls["s3_failures"] == 1 and bad_calls["s3_refines"] == 1
    assert bad_calls["s2_passes"] == 1
    implausible = stage_counts(_outcome([("truth", False)], False))
    assert implausible["s1_failures"] == 1 and implausible["s2_failures"] == 0
    tally = Tally.of([(True, accepted), (False, bad_query), (False, bad_calls)])
    request = SynthesizeRequest(n=2)
    from services.synth.jobs import JobSpec

    spec = JobSpec((), request.n, 6, 0, "template", 3)
    progress = tally.progress(spec)
    assert progress["stage1"] == {"sampled": 3, "passes": 1, "refines": 1, "failures": 0}
    assert progress["accepted"] == 1
    assert progress["stage2"] == {"passes": 2, "refines": 1, "failures": 1}
    assert progress["stage3"] == {"passes": 1, "refines": 1, "failures": 1}
    assert progress["acceptance_rate"] == 0.3333 and progress["fraction"] == 0.5
