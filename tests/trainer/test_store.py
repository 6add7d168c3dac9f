"""The trainer's tables: idempotent pages with provenance, cursors, tasks, models."""

from __future__ import annotations

from sqlalchemy.engine import Engine

from services.common.db import create_tables
from services.trainer.store import DatasetRow, ModelRow, Store


def _store(engine: Engine) -> Store:
    create_tables(engine)
    return Store(engine)


def test_pages_are_idempotent_and_the_cursor_only_moves_forward(engine: Engine) -> None:
    store = _store(engine)
    rows = [(str(i), i, {"record_id": i}) for i in (1, 2, 3)]
    assert store.save_page("planner http://p", "planner", "http://p", rows, 3) == 3
    assert store.save_page("planner http://p", "planner", "http://p", rows[1:], 2) == 0
    state = store.cursor("planner http://p")
    assert state is not None and state.cursor == 3 and state.records == 3
    stored = store.records("planner http://p")
    assert [r.payload["record_id"] for r in stored] == [1, 2, 3]
    provenance = stored[0].provenance()
    assert provenance["service"] == "planner" and provenance["cursor"] == 1
    assert provenance["fetched_at"].endswith("+00:00")
    assert store.records("synth http://s") == []


def test_tasks_are_kept_per_source_by_plan(engine: Engine) -> None:
    store = _store(engine)
    store.save_tasks("planner http://p", [("plan-1", {"id": "t-1", "fps": 30})])
    store.save_tasks("planner http://p", [("plan-1", {"id": "t-1", "fps": 25})])  # ignored
    assert store.known_plans("planner http://p") == {"plan-1"}
    assert store.tasks("planner http://p") == {"t-1": {"id": "t-1", "fps": 30}}
    assert store.tasks("planner http://other") == {}


def test_datasets_and_models_round_trip_and_publishing_is_recorded(engine: Engine) -> None:
    store = _store(engine)
    store.add(DatasetRow(id="ds-1", kind="evo_pairs", rows=2, path="/x", stats={"pairs": 2}))
    store.add(
        ModelRow(id="m-1", kind="dpo", base="tiny", dataset_id="ds-1", job_id="j1", path="/m")
    )
    assert store.dataset("ds-1").stats == {"pairs": 2}
    assert [d.id for d in store.datasets()] == ["ds-1"]
    assert store.model_for_job("j1").id == "m-1"
    published = store.mark_published("m-1", "hf:m-1")
    assert published.published_as == "hf:m-1" and published.published_at is not None
    assert store.model("m-1").published_as == "hf:m-1"
