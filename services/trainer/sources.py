"""Where training data comes from: planner and synth records over HTTP, or JSONL files.

A service source is read page by page from its stored cursor through the typed clients
(``PlannerClient.records``, ``SynthClient.records``), kept locally with provenance
(:mod:`services.trainer.store`), and resumed from the last cursor next time: a pull that
dies half-way loses nothing and repeats nothing. For planner records the Task.1 of every
new plan is fetched too, since repair SFT prompts need the task. No FastAPI here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from services.common.db import utcnow
from services.common.errors import RefineryError
from services.trainer.store import Store

__all__ = [
    "FileSource",
    "Page",
    "PullResult",
    "ServiceFeed",
    "SourceError",
    "planner_feed",
    "pull",
    "read_jsonl",
    "source_key",
    "synth_feed",
]


class SourceError(RefineryError):
    status_code = 422
    code = "invalid_source"


@dataclass(frozen=True, slots=True)
class Page:
    records: list[dict[str, Any]]
    next_cursor: int


@dataclass
class ServiceFeed:
    """One service instance to pull from: how to read a page, and what names a record."""

    service: str
    url: str
    fetch: Callable[[int, int], Page]
    """``(after, limit)`` → the next page and its cursor."""
    id_field: str
    fetch_task: Callable[[str], dict[str, Any]] | None = None
    """``plan_id`` → Task.1 (planner only)."""

    @property
    def key(self) -> str:
        return source_key(self.service, self.url)


def source_key(service: str, url: str) -> str:
    return f"{service} {url.rstrip('/')}"


def planner_feed(client: Any) -> ServiceFeed:
    """Scored records of a :class:`clients.planner.PlannerClient`, with each plan's task."""

    def fetch(after: int, limit: int) -> Page:
        page = client.records(after=after, limit=limit)
        return Page(list(page.records), int(page.next_cursor))

    return ServiceFeed("planner", client.base_url, fetch, "record_id", client.get_task)


def synth_feed(client: Any) -> ServiceFeed:
    """Verified tool-use examples of a :class:`clients.synth.SynthClient`."""

    def fetch(after: int, limit: int) -> Page:
        page = client.records(after=after, limit=limit)
        return Page(list(page.records), int(page.next_cursor))

    return ServiceFeed("synth", client.base_url, fetch, "record_id")


@dataclass
class PullResult:
    """What one pull did: new rows stored, where the cursor stands, plans fetched."""

    source: str
    service: str
    url: str
    fetched: int = 0
    new: int = 0
    cursor: int = 0
    tasks_fetched: int = 0
    fetched_at: str = ""
    truncated: bool = False

    def wire(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "service": self.service,
            "url": self.url,
            "fetched": self.fetched,
            "new": self.new,
            "cursor": self.cursor,
            "tasks_fetched": self.tasks_fetched,
            "fetched_at": self.fetched_at,
            "truncated": self.truncated,
        }


def _external_id(row: Mapping[str, Any], id_field: str, fallback: int) -> tuple[str, int]:
    """The record's id and its cursor position; ids are integers on both services."""
    raw = row.get(id_field, row.get("record_id", row.get("id")))
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw), raw
    return (str(raw) if raw is not None else str(fallback)), fallback


def pull(
    store: Store, feed: ServiceFeed, *, page_size: int = 1000, max_records: int = 200_000
) -> PullResult:
    """Read ``feed`` from its stored cursor to the end (or ``max_records``), storing each page."""
    key = feed.key
    state = store.cursor(key)
    after = state.cursor if state is not None else 0
    result = PullResult(key, feed.service, feed.url, cursor=after)
    while result.fetched < max_records:
        page = feed.fetch(after, page_size)
        if not page.records:
            break
        rows = []
        for index, record in enumerate(page.records):
            external_id, cursor = _external_id(record, feed.id_field, page.next_cursor)
            rows.append((external_id, cursor if cursor else after + index + 1, record))
        if feed.fetch_task is not None:
            result.tasks_fetched += _fetch_tasks(store, key, feed.fetch_task, page.records)
        result.new += store.save_page(key, feed.service, feed.url, rows, page.next_cursor)
        result.fetched += len(page.records)
        if page.next_cursor <= after:  # a source that does not advance would loop forever
            break
        after = page.next_cursor
        result.cursor = after
        if len(page.records) < page_size:
            break
    result.truncated = result.fetched >= max_records
    result.fetched_at = utcnow().isoformat()
    return result


def _fetch_tasks(
    store: Store, key: str, fetch_task: Callable[[str], dict[str, Any]], records: Sequence[dict]
) -> int:
    """Fetch the Task.1 of every plan on the page not seen before (before the cursor moves)."""
    known = store.known_plans(key)
    wanted = [p for p in dict.fromkeys(str(r.get("plan_id") or "") for r in records) if p]
    fresh = [(plan_id, fetch_task(plan_id)) for plan_id in wanted if plan_id not in known]
    if fresh:
        store.save_tasks(key, fresh)
    return len(fresh)


@dataclass
class FileSource:
    """Rows of a JSONL file, with the provenance a dataset records."""

    path: Path
    rows: list[dict[str, Any]] = field(default_factory=list)
    sha256: str = ""

    def provenance(self) -> dict[str, Any]:
        return {
            "service": "file",
            "path": str(self.path),
            "sha256": self.sha256,
            "rows": len(self.rows),
            "fetched_at": utcnow().isoformat(),
        }


def read_jsonl(path: Path, roots: Sequence[Path], *, param: str = "path") -> FileSource:
    """Every JSON object line of ``path``, which must lie under one of ``roots``."""
    resolved = path.expanduser().resolve()
    if not any(resolved.is_relative_to(root.resolve()) for root in roots):
        allowed = ", ".join(str(r) for r in roots)
        raise SourceError(f"{path} is outside the allowed source folders ({allowed})", param=param)
    try:
        raw = resolved.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}", param=param) from None
    rows = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise SourceError(f"{path} line {number} is not JSON: {exc}", param=param) from None
        if not isinstance(row, dict):
            raise SourceError(f"{path} line {number} is not a JSON object", param=param)
        rows.append(row)
    return FileSource(resolved, rows, hashlib.sha256(raw).hexdigest())
