"""Plans and scored records: every verified candidate of every branch, for the trainer.

A plan and all its records are written in one transaction, so a failed request leaves
nothing behind. ``record_id`` increases monotonically: it is the stable cursor of
``GET /v1/records?after=``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Column, Integer
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

from services.common.db import JsonType, UTCDateTime, lock_appends, utcnow

RECORDS_STREAM = "planner.scored_records"


def new_plan_id() -> str:
    return "plan-" + uuid.uuid4().hex[:20]


class PlanRow(SQLModel, table=True):
    __tablename__ = "plans"

    id: str = Field(primary_key=True, max_length=40)
    task_id: str = Field(index=True, max_length=200)
    ves: float
    feasible: bool
    task: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    result: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


class ScoredRecord(SQLModel, table=True):
    """One verified candidate: the state it started from, the patch, both reports."""

    __tablename__ = "scored_records"

    record_id: int | None = Field(
        default=None,
        sa_column=Column(
            BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
        ),
    )
    plan_id: str = Field(index=True, max_length=40)
    task_id: str = Field(index=True, max_length=200)
    branch_id: int
    round: int
    proposer: str = Field(max_length=300)
    state_timeline: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    report_before: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    patch: dict[str, Any] = Field(sa_column=Column(JsonType, nullable=False))
    report_after: dict[str, Any] | None = Field(default=None, sa_column=Column(JsonType))
    """None when the verifier rejected the patch (its error is in ``rejection``)."""
    rejection: dict[str, Any] | None = Field(default=None, sa_column=Column(JsonType))
    ves_before: float
    ves_after: float | None = None
    accepted: bool = False
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))

    def wire(self) -> dict[str, Any]:
        """The record as DESIGN.md's scored-record row."""
        return self.model_dump(mode="json")


def save_plan(engine: Engine, plan: PlanRow, records: Sequence[ScoredRecord]) -> None:
    """The plan and its records, all or nothing."""
    with Session(engine) as session, session.begin():
        lock_appends(session, RECORDS_STREAM)
        session.add(plan)
        session.add_all(records)


def get_plan(engine: Engine, plan_id: str) -> PlanRow | None:
    with Session(engine) as session:
        return session.get(PlanRow, plan_id)


def read_records(engine: Engine, *, after: int, limit: int) -> list[ScoredRecord]:
    """Records with ``record_id > after``, oldest first."""
    with Session(engine) as session:
        query = (
            select(ScoredRecord)
            .where(col(ScoredRecord.record_id) > after)
            .order_by(col(ScoredRecord.record_id))
            .limit(limit)
        )
        return list(session.exec(query))
