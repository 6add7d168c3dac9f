"""What the trainer keeps: pulled source records with provenance, datasets, trained models.

Every pulled record carries its provenance (``service``, the source's ``cursor`` at that
record, ``fetched_at``) and is keyed by ``(source, external_id)``, so pulling twice, or a
pull resumed after a crash, never duplicates a row. A source's cursor only advances after
its page is stored, in the same transaction. Dataset rows live in JSONL files under the
data dir; the table holds their statistics and where they came from.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Column, Integer, UniqueConstraint
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from services.common.db import JsonType, UTCDateTime, insert_ignore, utcnow, write_engine

__all__ = [
    "DatasetRow",
    "ModelRow",
    "PlanTask",
    "SourceCursor",
    "SourceRecord",
    "Store",
    "new_id",
]


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


class SourceRecord(SQLModel, table=True):
    """One record pulled from a service, as it was served."""

    __tablename__ = "trainer_source_records"
    __table_args__ = (UniqueConstraint("source", "external_id", name="uq_trainer_source_record"),)

    id: int | None = Field(
        default=None,
        sa_column=Column(
            BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
        ),
    )
    source: str = Field(index=True, max_length=500)
    """``<service> <base url>``: one cursor per service instance."""
    service: str = Field(max_length=20)
    external_id: str = Field(max_length=200)
    cursor: int
    """The source's cursor at this record (pass it as ``after`` to read what follows)."""
    payload: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    fetched_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))

    def provenance(self) -> dict[str, Any]:
        return {
            "service": self.service,
            "cursor": self.cursor,
            "fetched_at": self.fetched_at.isoformat(),
        }


class SourceCursor(SQLModel, table=True):
    """How far a source has been read."""

    __tablename__ = "trainer_source_cursors"

    source: str = Field(primary_key=True, max_length=500)
    service: str = Field(max_length=20)
    url: str = Field(max_length=400)
    cursor: int = 0
    records: int = 0
    fetched_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


class PlanTask(SQLModel, table=True):
    """The Task.1 of a planner plan (scored records carry only ``plan_id`` and ``task_id``)."""

    __tablename__ = "trainer_plan_tasks"

    source: str = Field(primary_key=True, max_length=500)
    plan_id: str = Field(primary_key=True, max_length=60)
    task_id: str = Field(max_length=200)
    task: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    fetched_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


class DatasetRow(SQLModel, table=True):
    """A built dataset: its JSONL file, statistics, and the sources and filters it used."""

    __tablename__ = "trainer_datasets"

    id: str = Field(primary_key=True, max_length=40)
    kind: str = Field(max_length=40)
    rows: int
    path: str
    stats: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JsonType, nullable=False))
    sources: list[Any] = Field(default_factory=list, sa_column=Column(JsonType, nullable=False))
    """Provenance of every source: service and cursor, file and digest, or episode seed."""
    filters: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JsonType, nullable=False)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


class ModelRow(SQLModel, table=True):
    """A checkpoint a train job produced; ``published_as`` once the planner knows it."""

    __tablename__ = "trainer_models"

    id: str = Field(primary_key=True, max_length=40)
    kind: str = Field(max_length=40)
    base: str = Field(max_length=500)
    dataset_id: str = Field(max_length=40)
    job_id: str = Field(unique=True, max_length=32)
    path: str
    metrics: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JsonType, nullable=False)
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))
    published_as: str | None = Field(default=None, max_length=300)
    published_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class Store:
    """Reads and writes of the trainer's tables on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._write = write_engine(engine)

    # sources -----------------------------------------------------------------

    def cursor(self, source: str) -> SourceCursor | None:
        with Session(self.engine) as session:
            return session.get(SourceCursor, source)

    def save_page(
        self,
        source: str,
        service: str,
        url: str,
        rows: Sequence[tuple[str, int, Mapping[str, Any]]],
        next_cursor: int,
    ) -> int:
        """Store ``(external_id, cursor, payload)`` rows and advance the cursor, atomically.

        Returns how many rows were new; the cursor never moves backwards.
        """
        now = utcnow()
        values = [
            {
                "source": source,
                "service": service,
                "external_id": external_id,
                "cursor": cursor,
                "payload": dict(payload),
                "fetched_at": now,
            }
            for external_id, cursor, payload in rows
        ]
        table = SourceRecord.__table__  # type: ignore[attr-defined]
        with Session(self._write) as session, session.begin():
            added = insert_ignore(session.connection(), table, values, ["source", "external_id"])
            state = session.get(SourceCursor, source) or SourceCursor(
                source=source, service=service, url=url
            )
            state.cursor = max(state.cursor, next_cursor)
            state.records += added
            state.fetched_at = now
            session.add(state)
        return added

    def records(self, source: str) -> list[SourceRecord]:
        """Every stored record of ``source``, in cursor order."""
        with Session(self.engine) as session:
            query = (
                select(SourceRecord)
                .where(SourceRecord.source == source)
                .order_by(col(SourceRecord.cursor), col(SourceRecord.id))
            )
            return list(session.exec(query))

    def known_plans(self, source: str) -> set[str]:
        with Session(self.engine) as session:
            query = select(PlanTask.plan_id).where(PlanTask.source == source)
            return set(session.exec(query))

    def save_tasks(self, source: str, tasks: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        values = [
            {
                "source": source,
                "plan_id": plan_id,
                "task_id": str(task.get("id", "")),
                "task": dict(task),
                "fetched_at": utcnow(),
            }
            for plan_id, task in tasks
        ]
        table = PlanTask.__table__  # type: ignore[attr-defined]
        with Session(self._write) as session, session.begin():
            insert_ignore(session.connection(), table, values, ["source", "plan_id"])

    def tasks(self, source: str) -> dict[str, dict[str, Any]]:
        """``task_id`` → Task.1 JSON for every plan of ``source`` seen so far."""
        with Session(self.engine) as session:
            query = select(PlanTask).where(PlanTask.source == source)
            return {row.task_id: row.task for row in session.exec(query)}

    # datasets and models -----------------------------------------------------

    def add(self, row: DatasetRow | ModelRow) -> None:
        with Session(self._write, expire_on_commit=False) as session, session.begin():
            session.add(row)

    def dataset(self, dataset_id: str) -> DatasetRow | None:
        with Session(self.engine) as session:
            return session.get(DatasetRow, dataset_id)

    def datasets(self, *, limit: int = 100) -> list[DatasetRow]:
        with Session(self.engine) as session:
            query = select(DatasetRow).order_by(col(DatasetRow.created_at).desc()).limit(limit)
            return list(session.exec(query))

    def model(self, model_id: str) -> ModelRow | None:
        with Session(self.engine) as session:
            return session.get(ModelRow, model_id)

    def model_for_job(self, job_id: str) -> ModelRow | None:
        with Session(self.engine) as session:
            return session.exec(select(ModelRow).where(ModelRow.job_id == job_id)).first()

    def models(self, *, limit: int = 100) -> list[ModelRow]:
        with Session(self.engine) as session:
            query = select(ModelRow).order_by(col(ModelRow.created_at).desc()).limit(limit)
            return list(session.exec(query))

    def mark_published(self, model_id: str, name: str) -> ModelRow:
        with Session(self._write, expire_on_commit=False) as session, session.begin():
            row = session.get(ModelRow, model_id)
            assert row is not None
            row.published_as = name
            row.published_at = utcnow()
            session.add(row)
        return row
