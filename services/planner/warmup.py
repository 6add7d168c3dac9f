"""Start-up warm-up: what a first plan would load lazily, loaded before ``/readyz`` says ready.

A planner that has just started would otherwise make its first user wait for: the MiniLM
relevance model (when that backend is in use) and its first embedding, OR-Tools' CP-SAT
(the ``exact`` proposer's imports and native library), the Patch/Timeline JSON schemas that
constrain model output, the brief compiler's lexicon, the verifier domain's first use, and
the media-analysis pool's server process (which imports the analysis). :func:`warm_up` does
each on a tiny built-in task, timing each step; a step that fails is logged and skipped,
since the lazy path still works. The app runs it in a thread at start-up and ``/readyz``
answers 503 ``warming_up`` until it is done (``REFINERY_WARM_UP=false`` skips it).
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from protocol.verifier import TaskIn
from services.planner.config import PlannerSettings

__all__ = ["WARM_TASK", "start_warm_up", "warm_up"]

log = logging.getLogger(__name__)

_CLIPS = [
    ("w1", "waves roll onto the beach at sunrise", ["beach", "ocean"]),
    ("w2", "a surfer rides a green wave", ["surf", "ocean"]),
    ("w3", "the harbour lights at dusk", ["harbour", "sunset"]),
]
WARM_TASK: dict[str, Any] = {
    "schema": "Task.1", "id": "warm-up", "fps": 30,
    "brief": {"text": "A 6 second reel of the coast, open on the beach and end on the sunset"},
    "clips": [{"id": i, "uri": f"{i}.mp4", "duration_s": 4.0, "caption": c, "tags": t,
               "orientation": "landscape"} for i, c, t in _CLIPS],
    "music": [{"id": "m1", "uri": "m1.wav", "duration_s": 20.0, "bpm": 120,
               "beats_s": [0.5 * k for k in range(40)],
               "downbeats_s": [2.0 * k for k in range(10)]}],
    "ledger": [{"id": "L1", "kind": "duration", "hard": True, "min_s": 5, "max_s": 7},
               {"id": "L2", "kind": "order", "hard": True, "first": {"tags": ["beach"]}}],
}  # fmt: skip
"""A pool small enough that every step below takes milliseconds once loaded."""


def _relevance(settings: PlannerSettings) -> None:
    from services.planner.relevance import relevance_scores

    task = TaskIn.model_validate(WARM_TASK).to_task()
    relevance_scores(task.brief.text, task.clips.values(), backend=settings.relevance)


def _verifier_domain(settings: PlannerSettings) -> None:
    from services.planner.proposers.simple_draft import simple_draft
    from services.verifier.bound import upper_bound
    from services.verifier.score import Verifier

    task = TaskIn.model_validate(WARM_TASK).to_task()
    Verifier(task).verify(simple_draft(task, seed=0))
    upper_bound(task)


def _exact(settings: PlannerSettings) -> None:
    if importlib.util.find_spec("ortools") is None:
        return
    from services.planner.exact.solver import solve
    from services.planner.proposers import exact  # noqa: F401 - the proposer's imports

    solve(TaskIn.model_validate(WARM_TASK).to_task(), time_limit_s=5.0)


def _grammars(settings: PlannerSettings) -> None:
    from services.planner.proposers.schemas import patch_schema, timeline_schema

    patch_schema()
    timeline_schema()


def _brief_compiler(settings: PlannerSettings) -> None:
    from services.planner.ingest.brief.compiler import compile_rules

    compile_rules(WARM_TASK["brief"]["text"], WARM_TASK["clips"], WARM_TASK["music"])


def _analysis_pool(settings: PlannerSettings) -> None:
    from services.planner.ingesting import ingest_available

    if not ingest_available():
        return
    from services.planner.ingest import parallel

    if (settings.analyze_workers or parallel.cores_given()) > 1:
        parallel.warm_up()


STEPS: dict[str, Callable[[PlannerSettings], None]] = {
    "relevance": _relevance,
    "verifier_domain": _verifier_domain,
    "exact": _exact,
    "grammars": _grammars,
    "brief_compiler": _brief_compiler,
    "analysis_pool": _analysis_pool,
}


def warm_up(settings: PlannerSettings) -> dict[str, float | None]:
    """Run every step; seconds each took (None: it failed, and was logged)."""
    spent: dict[str, float | None] = {}
    for name, step in STEPS.items():
        started = time.perf_counter()
        try:
            step(settings)
            spent[name] = round(time.perf_counter() - started, 3)
        except Exception as error:  # the lazy path still works; say why this one did not
            log.warning("warm-up step %s failed: %s", name, error)
            spent[name] = None
    return spent


def start_warm_up(settings: PlannerSettings, state: Any) -> threading.Thread:
    """Warm up in a thread; ``state.warm`` (an event) is set when done, and
    ``state.warm_up_s`` holds the steps' seconds."""
    state.warm = threading.Event()

    def run() -> None:
        try:
            state.warm_up_s = warm_up(settings)
            log.info("warmed up: %s", state.warm_up_s)
        finally:
            state.warm.set()

    thread = threading.Thread(target=run, name="planner-warm-up", daemon=True)
    thread.start()
    return thread
