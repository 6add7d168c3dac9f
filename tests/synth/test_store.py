"""Stored catalogs and examples: immutability, idempotent batches, the records cursor."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from services.common.db import create_tables
from services.common.errors import ConflictError
from services.synth import store
from services.synth.calls import Call, GroundTruth

TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Ping a host.",
        "parameters": {"type": "object", "properties": {"host": {"type": "string"}}},
    },
}
TRUTH = GroundTruth("simple", (TOOL,), (Call("ping", {"host": "a.example"}),), {"size": 1})


@pytest.fixture
def db(engine: Engine) -> Engine:
    create_tables(engine)
    return engine


def _row(job_id: str, seq: int, *, accepted: bool = True) -> dict[str, Any]:
    example = {"messages": [{"role": "user", "content": f"q{seq}"}], "tools": [TOOL], "meta": {}}
    return {
        "job_id": job_id,
        "seq": seq,
        "accepted": accepted,
        "category": "simple",
        "query": f"q{seq}",
        "example": example if accepted else None,
        "truth": store.truth_to_json(TRUTH),
        "stats": {"s2_pass": 1},
    }


def test_catalogs_are_immutable_by_name(db: Engine) -> None:
    row, created = store.save_catalog(db, "net", [TOOL])
    assert created and row.tools == [TOOL]
    again, created = store.save_catalog(db, "net", [TOOL])
    assert not created and again.tools == [TOOL]
    other = {"type": "function", "function": {"name": "pong", "parameters": {}}}
    with pytest.raises(ConflictError) as caught:
        store.save_catalog(db, "net", [other])
    assert caught.value.code == "catalog_exists"
    store.save_catalog(db, "alpha", [other])
    assert [c.name for c in store.list_catalogs(db)] == ["alpha", "net"]
    assert store.get_catalog(db, "missing") is None


def test_batches_are_idempotent_by_job_and_seq(db: Engine) -> None:
    assert store.write_examples(db, [_row("j1", 0), _row("j1", 1, accepted=False)]) == 2
    assert store.write_examples(db, [_row("j1", 1), _row("j1", 2)]) == 1
    stored = store.stored_stats(db, "j1")
    assert sorted(stored) == [0, 1, 2]
    assert stored[1] == (False, {"s2_pass": 1})  # the first write of seq 1 stands
    assert store.stored_stats(db, "j2") == {}


def test_examples_and_records_serve_accepted_rows_in_cursor_order(db: Engine) -> None:
    store.write_examples(db, [_row("a", s, accepted=s != 1) for s in range(4)])
    store.write_examples(db, [_row("b", s) for s in range(2)])
    page = store.read_examples(db, "a", after=0, limit=2)
    assert [r.seq for r in page] == [0, 2]
    rest = store.read_examples(db, "a", after=page[-1].record_id or 0, limit=10)
    assert [r.seq for r in rest] == [3]
    assert [r.seq for r in store.iter_examples(db, "a", page=1)] == [0, 2, 3]
    records = store.read_records(db, after=0, limit=100)
    assert [(r.job_id, r.seq) for r in records] == [
        ("a", 0),
        ("a", 2),
        ("a", 3),
        ("b", 0),
        ("b", 1),
    ]
    ids = [r.record_id for r in records]
    assert ids == sorted(ids)
    tail = store.read_records(db, after=ids[2], limit=100)
    assert [r.record_id for r in tail] == ids[3:]
    wire = records[0].wire()
    assert wire["record_id"] == ids[0] and wire["job_id"] == "a" and wire["seq"] == 0
    assert wire["messages"][0]["content"] == "q0" and json.loads(wire["tools"]) == [TOOL]


def test_truth_round_trips() -> None:
    assert store.truth_from_json(store.truth_to_json(TRUTH)) == TRUTH
