"""Pulling sources: resumable from the stored cursor, tasks fetched once, JSONL files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from services.common.db import create_tables
from services.trainer.sources import Page, ServiceFeed, SourceError, pull, read_jsonl
from services.trainer.store import Store


class FakeRecords:
    """A records endpoint over a list; ``fail_after`` pages, it raises (a dropped link)."""

    def __init__(self, n: int, fail_after: int | None = None) -> None:
        self.rows = [{"record_id": i, "plan_id": f"plan-{i % 2}"} for i in range(1, n + 1)]
        self.fail_after = fail_after
        self.pages = 0
        self.tasks_asked: list[str] = []

    def fetch(self, after: int, limit: int) -> Page:
        if self.fail_after is not None and self.pages >= self.fail_after:
            raise ConnectionError("link dropped")
        self.pages += 1
        page = [r for r in self.rows if r["record_id"] > after][:limit]
        return Page(page, page[-1]["record_id"] if page else after)

    def task(self, plan_id: str) -> dict:
        self.tasks_asked.append(plan_id)
        return {"schema": "Task.1", "id": f"task-of-{plan_id}"}

    def feed(self) -> ServiceFeed:
        return ServiceFeed("planner", "http://p", self.fetch, "record_id", self.task)


def test_a_pull_that_dies_resumes_from_its_cursor(engine: Engine) -> None:
    create_tables(engine)
    store = Store(engine)
    broken = FakeRecords(7, fail_after=2)
    with pytest.raises(ConnectionError):
        pull(store, broken.feed(), page_size=2)
    assert store.cursor("planner http://p").cursor == 4
    resumed = FakeRecords(7)
    result = pull(store, resumed.feed(), page_size=2)
    assert result.new == 3 and result.fetched == 3 and result.cursor == 7
    ids = [r.payload["record_id"] for r in store.records("planner http://p")]
    assert ids == list(range(1, 8))
    assert broken.tasks_asked == ["plan-1", "plan-0"] and resumed.tasks_asked == []
    assert set(store.tasks("planner http://p")) == {"task-of-plan-0", "task-of-plan-1"}


def test_max_records_stops_a_pull_and_the_next_one_continues(engine: Engine) -> None:
    create_tables(engine)
    store = Store(engine)
    first = pull(store, FakeRecords(5).feed(), page_size=2, max_records=2)
    assert first.truncated and first.cursor == 2
    second = pull(store, FakeRecords(5).feed(), page_size=2)
    assert second.new == 3 and not second.truncated


def test_jsonl_files_are_read_only_inside_the_allowed_roots(tmp_path: Path) -> None:
    good = tmp_path / "rows.jsonl"
    good.write_text(json.dumps({"a": 1}) + "\n\n" + json.dumps({"b": 2}) + "\n")
    found = read_jsonl(good, [tmp_path])
    assert found.rows == [{"a": 1}, {"b": 2}] and len(found.sha256) == 64
    assert found.provenance()["service"] == "file"
    with pytest.raises(SourceError) as outside:
        read_jsonl(good, [tmp_path / "elsewhere"], param="sources[0].path")
    assert outside.value.param == "sources[0].path" and outside.value.status_code == 422
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(SourceError, match="line 2"):
        read_jsonl(bad, [tmp_path])
    with pytest.raises(SourceError, match="cannot read"):
        read_jsonl(tmp_path / "missing.jsonl", [tmp_path])
