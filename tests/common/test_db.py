from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, String, Table, UniqueConstraint, event, select
from sqlalchemy.engine import Engine

from services.common.db import (
    UTCDateTime,
    create_tables,
    insert_ignore,
    is_sqlite,
    lock_appends,
    make_engine,
    normalize_url,
    ping,
    write_engine,
)


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
