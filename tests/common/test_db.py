from __future__ import annotations

import socket
import sqlite3
import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, UniqueConstraint, event, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from services.common.db import (
    Backoff,
    UTCDateTime,
    create_tables,
    insert_ignore,
    is_sqlite,
    is_transient,
    lock_appends,
    make_engine,
    normalize_url,
    ping,
    retry_transient,
    wait_for_database,
    write_engine,
)
from services.common.errors import DatabaseUnavailable


def _table(metadata: MetaData) -> Table:
    return Table(
        "db_test_rows",
        metadata,
        Column("id", Integer, primary_key=True),
        Column("job_id", String(32), nullable=False),
        Column("seq", Integer, nullable=False),
        Column("at", UTCDateTime),
        UniqueConstraint("job_id", "seq"),
    )


def test_normalize_url() -> None:
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_sqlite_engine_creates_dir_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "svc.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        assert ping(engine)
        assert path.parent.is_dir()
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    finally:
        engine.dispose()


def test_write_engine_begins_immediate_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}")
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda c, cur, stmt, *a: seen.append(stmt))
    with write_engine(engine).begin() as conn:
        conn.exec_driver_sql("SELECT 1")
    with engine.begin() as conn:
        conn.exec_driver_sql("SELECT 2")
    engine.dispose()
    assert seen == ["BEGIN IMMEDIATE", "SELECT 1", "BEGIN DEFERRED", "SELECT 2"]


def test_ping_false_when_unreachable() -> None:
    engine = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")
    assert ping(engine) is False
    engine.dispose()


def test_create_tables_is_idempotent_and_ping(engine: Engine) -> None:
    metadata = MetaData()
    table = _table(metadata)
    create_tables(engine, metadata)
    create_tables(engine, metadata)
    assert ping(engine)
    with engine.connect() as conn:
        assert conn.execute(select(table)).all() == []


def test_insert_ignore_skips_existing_keys(engine: Engine) -> None:
    metadata = MetaData()
    table = _table(metadata)
    create_tables(engine, metadata)
    with engine.begin() as conn:
        assert insert_ignore(conn, table, [{"job_id": "j", "seq": 0}], ["job_id", "seq"]) == 1
        rows = [{"job_id": "j", "seq": 0}, {"job_id": "j", "seq": 1}]
        assert insert_ignore(conn, table, rows, ["job_id", "seq"]) == 1
        assert insert_ignore(conn, table, [], ["job_id", "seq"]) == 0
    with engine.connect() as conn:
        assert sorted(conn.execute(select(table.c.seq)).scalars()) == [0, 1]


def test_utc_datetime_round_trips_as_aware_utc(engine: Engine) -> None:
    metadata = MetaData()
    table = _table(metadata)
    create_tables(engine, metadata)
    local = datetime(2026, 3, 1, 12, 30, 15, 250000, tzinfo=timezone(timedelta(hours=2)))
    with engine.begin() as conn:
        conn.execute(table.insert().values(job_id="t", seq=0, at=local))
    with engine.connect() as conn:
        back = conn.execute(select(table.c.at)).scalar_one()
    assert back == local
    assert back.tzinfo == UTC
    assert back.hour == 10


def test_is_sqlite(engine: Engine) -> None:
    assert is_sqlite(engine) == (engine.dialect.name == "sqlite")


def test_lock_appends_serialises_appenders_on_postgres(engine: Engine) -> None:
    """A second appender waits until the first commits, so ids commit in order."""
    if is_sqlite(engine):
        with engine.begin() as conn:
            lock_appends(conn, "stream")  # a no-op: SQLite has one writer at a time
        return
    acquired = threading.Event()

    def second() -> None:
        with engine.begin() as conn:
            lock_appends(conn, "stream")
            acquired.set()

    with engine.begin() as conn:
        lock_appends(conn, "stream")
        thread = threading.Thread(target=second)
        thread.start()
        assert not acquired.wait(0.3)
    assert acquired.wait(5)
    thread.join()


def closed_port_pg_url() -> str:
    """A PostgreSQL URL on a localhost port nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/test?connect_timeout=2"


def test_transient_errors_are_told_from_bugs() -> None:
    dropped = OperationalError("SELECT 1", {}, Exception("server closed the connection"))
    locked = OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked"))
    no_table = OperationalError("SELECT 1", {}, sqlite3.OperationalError("no such table: x"))
    duplicate = IntegrityError("INSERT", {}, Exception("duplicate key"))
    assert is_transient(dropped) and is_transient(locked) and is_transient(DatabaseUnavailable())
    assert not is_transient(no_table) and not is_transient(duplicate)
    assert not is_transient(ValueError("x"))


def test_a_refused_connection_is_transient() -> None:
    engine = make_engine(closed_port_pg_url())
    with pytest.raises(OperationalError) as refused, engine.connect() as conn:
        conn.exec_driver_sql("SELECT 1")
    engine.dispose()
    assert is_transient(refused.value)


def test_retry_transient_retries_with_backoff_then_gives_up() -> None:
    calls: list[float] = []

    def flaky() -> str:
        calls.append(0)
        if len(calls) < 3:
            raise OperationalError("COMMIT", {}, Exception("connection reset"))
        return "done"

    retried: list[float] = []
    fast = Backoff(0.001, 0.002)
    assert retry_transient(flaky, budget_s=5, backoff=fast, on_retry=lambda e, d: retried.append(d))
    assert len(calls) == 3 and len(retried) == 2

    def broken() -> None:
        raise OperationalError("COMMIT", {}, Exception("connection reset"))

    with pytest.raises(OperationalError):  # a lasting outage surfaces after the budget
        retry_transient(broken, budget_s=0.05, backoff=Backoff(0.001, 0.01))

    def bug() -> None:
        calls.append(0)
        raise IntegrityError("INSERT", {}, Exception("duplicate key"))

    before = len(calls)
    with pytest.raises(IntegrityError):
        retry_transient(bug, budget_s=5, backoff=fast)
    assert len(calls) == before + 1  # never retried


def test_backoff_doubles_up_to_its_cap() -> None:
    backoff = Backoff(0.1, 0.8)
    delays = [backoff.next_delay() for _ in range(6)]
    caps = [0.1, 0.2, 0.4, 0.8, 0.8, 0.8]
    assert all(cap / 2 <= d <= cap for d, cap in zip(delays, caps, strict=True)), delays
    backoff.reset()
    assert backoff.next_delay() <= 0.1


def test_waiting_for_an_unreachable_database_is_bounded() -> None:
    engine = make_engine(closed_port_pg_url())
    with pytest.raises(DatabaseUnavailable) as gave_up:
        wait_for_database(engine, timeout_s=0.5)
    engine.dispose()
    assert "0.5 s" in gave_up.value.message and "[SQL" not in gave_up.value.message


def test_waiting_for_a_reachable_database_returns(engine: Engine) -> None:
    wait_for_database(engine, timeout_s=5)
