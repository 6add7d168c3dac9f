"""Stored catalogs and synthesized examples (SQLite or PostgreSQL).

Every ground truth a job draws becomes one row of ``synth_examples``, accepted or not,
keyed unique ``(job_id, seq)``: a resumed attempt re-writes a batch harmlessly
(:func:`services.common.db.insert_ignore`), and the per-stage counts stored with each row
let it rebuild the job's progress exactly. ``record_id`` increases monotonically across
jobs: it is the stable cursor of ``GET /v1/records?after=``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Column, Index, Integer, Table, Text, UniqueConstraint
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from services.common.db import (
    JsonType,
    UTCDateTime,
    insert_ignore,
    lock_appends,
    utcnow,
    write_engine,
)
from services.common.errors import ConflictError
from services.synth.calls import Call, GroundTruth
from services.synth.examples import trl_row

__all__ = [
    "CatalogRow",
    "ExampleRow",
    "get_catalog",
    "iter_examples",
    "list_catalogs",
    "read_examples",
    "read_records",
    "save_catalog",
    "stored_stats",
    "truth_from_json",
    "truth_to_json",
    "write_examples",
]


class CatalogRow(SQLModel, table=True):
    """A named tool catalog posted by a user (the built-in one is never stored)."""

    __tablename__ = "synth_catalogs"

    name: str = Field(primary_key=True, max_length=100)
    tools: list[dict[str, Any]] = Field(sa_column=Column(JsonType, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


class ExampleRow(SQLModel, table=True):
    """One drawn ground truth of one job and what the pipeline made of it."""

    __tablename__ = "synth_examples"
    __table_args__ = (
        UniqueConstraint("job_id", "seq", name="uq_synth_examples_job_seq"),
        Index("ix_synth_examples_accepted_record", "accepted", "record_id"),
    )

    record_id: int | None = Field(
        default=None,
        sa_column=Column(
            BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
        ),
    )
    job_id: str = Field(max_length=32)
    seq: int
    accepted: bool
    category: str = Field(max_length=40)
    query: str | None = Field(default=None, sa_column=Column(Text))
    example: dict[str, Any] | None = Field(default=None, sa_column=Column(JsonType))
    """The TRL conversational row with ``meta`` (accepted examples only)."""
    truth: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    stats: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    """Per-stage counts of this example (see :func:`services.synth.jobs.stage_counts`)."""
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))

    def wire(self) -> dict[str, Any]:
        """The record as ``/v1/records`` and ``/v1/jobs/{id}/examples`` serve it."""
        head = {"record_id": self.record_id, "job_id": self.job_id, "seq": self.seq}
        return head | (trl_row(self.example) if self.example else {})

    def ground_truth(self) -> GroundTruth:
        return truth_from_json(self.truth)


RECORDS_STREAM = "synth.examples"
"""Appends to the examples table are serialised so the records cursor never skips a row."""


def truth_to_json(truth: GroundTruth) -> dict[str, Any]:
    return {
        "category": truth.category,
        "tools": list(truth.tools),
        "calls": [{"name": c.name, "arguments": c.arguments} for c in truth.calls],
        "features": truth.features,
    }


def truth_from_json(data: Mapping[str, Any]) -> GroundTruth:
    return GroundTruth(
        category=data["category"],
        tools=tuple(data["tools"]),
        calls=tuple(Call(c["name"], c["arguments"]) for c in data["calls"]),
        features=dict(data.get("features") or {}),
    )


# -- catalogs ---------------------------------------------------------------------------


def save_catalog(
    engine: Engine, name: str, tools: Sequence[Mapping[str, Any]]
) -> tuple[CatalogRow, bool]:
    """Store ``tools`` under ``name``; True when created, False when the same tools were
    already there. Other tools under a taken name are a 409: catalogs never change."""
    tools = [dict(tool) for tool in tools]
    with Session(write_engine(engine), expire_on_commit=False) as session, session.begin():
        found = session.get(CatalogRow, name)
        if found is not None:
            if found.tools != tools:
                raise ConflictError(
                    f"catalog {name!r} exists with other tools; catalogs are immutable, "
                    "post it under a new name",
                    code="catalog_exists",
                    param="name",
                )
            return found, False
        row = CatalogRow(name=name, tools=tools)
        session.add(row)
    return row, True


def get_catalog(engine: Engine, name: str) -> CatalogRow | None:
    with Session(engine) as session:
        return session.get(CatalogRow, name)


def list_catalogs(engine: Engine) -> list[CatalogRow]:
    with Session(engine) as session:
        return list(session.exec(select(CatalogRow).order_by(col(CatalogRow.name))))


# -- examples ---------------------------------------------------------------------------


def write_examples(engine: Engine, rows: Sequence[Mapping[str, Any]]) -> int:
    """Insert a batch in one transaction, skipping ``(job_id, seq)`` already stored;
    returns how many rows were new."""
    table: Table = ExampleRow.__table__  # type: ignore[assignment]
    stamped = [{"created_at": utcnow(), **row} for row in rows]
    with engine.begin() as conn:
        lock_appends(conn, RECORDS_STREAM)
        return insert_ignore(conn, table, stamped, ["job_id", "seq"])


def stored_stats(engine: Engine, job_id: str) -> dict[int, tuple[bool, dict[str, Any]]]:
    """``seq → (accepted, stats)`` of every row the job has stored."""
    query = select(ExampleRow.seq, ExampleRow.accepted, ExampleRow.stats).where(
        ExampleRow.job_id == job_id
    )
    with Session(engine) as session:
        return {seq: (accepted, stats) for seq, accepted, stats in session.exec(query)}


def read_examples(engine: Engine, job_id: str, *, after: int, limit: int) -> list[ExampleRow]:
    """The job's accepted examples with ``record_id > after``, oldest first."""
    query = (
        select(ExampleRow)
        .where(
            ExampleRow.job_id == job_id,
            col(ExampleRow.accepted),
            col(ExampleRow.record_id) > after,
        )
        .order_by(col(ExampleRow.record_id))
        .limit(limit)
    )
    with Session(engine) as session:
        return list(session.exec(query))


def iter_examples(engine: Engine, job_id: str, *, page: int = 500) -> Iterator[ExampleRow]:
    """Every accepted example of the job in ``seq`` order, ``page`` rows a read (exports)."""
    after = -1
    while True:
        query = (
            select(ExampleRow)
            .where(
                ExampleRow.job_id == job_id, col(ExampleRow.accepted), col(ExampleRow.seq) > after
            )
            .order_by(col(ExampleRow.seq))
            .limit(page)
        )
        with Session(engine) as session:
            rows = list(session.exec(query))
        if not rows:
            return
        yield from rows
        after = rows[-1].seq


def read_records(engine: Engine, *, after: int, limit: int) -> list[ExampleRow]:
    """Accepted examples of every job with ``record_id > after``, oldest first."""
    query = (
        select(ExampleRow)
        .where(col(ExampleRow.accepted), col(ExampleRow.record_id) > after)
        .order_by(col(ExampleRow.record_id))
        .limit(limit)
    )
    with Session(engine) as session:
        return list(session.exec(query))
