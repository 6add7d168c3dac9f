"""Database engines for SQLite (embedded) and PostgreSQL (production).

Tables are created at start-up with ``SQLModel.metadata.create_all`` (see
docs/operations.md); there are no migrations yet. No FastAPI here.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import JSON, DateTime, Table, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator
from sqlmodel import Session, SQLModel, create_engine

from services.common.errors import DatabaseUnavailable, sanitize_message

__all__ = [
    "Backoff",
    "UTCDateTime",
    "create_tables",
    "describe_db_error",
    "insert_ignore",
    "is_sqlite",
    "is_transient",
    "lock_appends",
    "make_engine",
    "normalize_url",
    "ping",
    "retry_transient",
    "utcnow",
    "wait_for_database",
    "write_engine",
]

T = TypeVar("T")

log = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_MS = 30_000
_DDL_LOCK_ID = 0x5EF1_0E55  # pg advisory lock serialising concurrent create_all


JsonType = JSON().with_variant(JSONB(), "postgresql")
"""JSON documents: JSONB on Postgres, JSON text on SQLite."""


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored as UTC and always read back timezone-aware (SQLite drops tz)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def normalize_url(url: str) -> str:
    """Map ``postgres://`` and ``postgresql://`` to the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "sqlite"


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; extra ``kwargs`` go to ``create_engine``.

    SQLite: creates the parent directory, ``check_same_thread=False``, WAL journal,
    a busy timeout, and explicit ``BEGIN`` so :func:`write_engine` can ask for
    ``BEGIN IMMEDIATE``. PostgreSQL: psycopg 3, ``pool_pre_ping``, a connect timeout.
    """
    url = normalize_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, parsed.database, **kwargs)
    connect_args = dict(kwargs.pop("connect_args", {}))
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        connect_args.setdefault("connect_timeout", 10)
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(url, connect_args=connect_args, **kwargs)


def _sqlite_engine(url: str, database: str | None, **kwargs: Any) -> Engine:
    connect_args = {"check_same_thread": False, **kwargs.pop("connect_args", {})}
    in_memory = not database or database == ":memory:" or database.startswith("file::memory:")
    if in_memory:
        kwargs.setdefault("poolclass", StaticPool)
    else:
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args=connect_args, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not pysqlite, decide when transactions begin.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if not in_memory:
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


def write_engine(engine: Engine) -> Engine:
    """``engine`` whose SQLite transactions start with ``BEGIN IMMEDIATE``.

    Use it for read-then-write transactions: the write lock is taken up front, so two
    writers serialise (waiting up to the busy timeout) instead of failing on upgrade.
    On other databases it is ``engine`` itself.
    """
    if is_sqlite(engine):
        return engine.execution_options(sqlite_begin="IMMEDIATE")
    return engine


def create_tables(engine: Engine, metadata: Any = None) -> None:
    """Create every table registered on ``metadata`` (default ``SQLModel.metadata``).

    Safe when several processes start at once: serialised by ``BEGIN IMMEDIATE`` on
    SQLite and by an advisory lock on PostgreSQL.
    """
    metadata = metadata if metadata is not None else SQLModel.metadata
    with write_engine(engine).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _DDL_LOCK_ID})
        metadata.create_all(conn)


def ping(engine: Engine) -> bool:
    """True when a trivial query succeeds."""
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        return True
    except Exception as exc:  # readiness probes report, they do not raise
        log.warning("database ping failed: %s", exc)
        return False


def insert_ignore(
    conn: Connection, table: Table, rows: Iterable[Mapping[str, Any]], keys: Iterable[str]
) -> int:
    """Insert ``rows``, skipping those whose ``keys`` already exist; returns rows inserted.

    The building block of idempotent job handlers: results keyed by ``(job_id, seq)``
    under a unique constraint can be re-written by a resumed attempt harmlessly.
    """
    rows = [dict(row) for row in rows]
    if not rows:
        return 0
    dialects = {"postgresql": postgresql, "sqlite": sqlite}
    if (dialect := dialects.get(conn.dialect.name)) is None:
        raise NotImplementedError(f"insert_ignore: unsupported dialect {conn.dialect.name}")
    keys = list(keys)
    stmt = dialect.insert(table).values(rows).on_conflict_do_nothing(index_elements=keys)
    return len(conn.execute(stmt.returning(*(table.c[k] for k in keys))).all())


def lock_appends(conn: Connection | Session, stream: str) -> None:
    """Serialise the transactions that append to ``stream`` until this one ends.

    Cursor-paged feeds (``GET /v1/records?after=``) page by an autoincrement id. On
    PostgreSQL two concurrent writers can commit ids out of order, and a reader that already
    moved past the later id would never see the earlier one. Taking a transaction-scoped
    advisory lock before inserting makes ids commit in order. SQLite has one writer at a time
    already. ``conn``: a Connection, or a Session inside a transaction.
    """
    dialect = conn.get_bind().dialect if isinstance(conn, Session) else conn.dialect
    if dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:stream))"), {"stream": stream})


# -- transient failures -------------------------------------------------------------------

_SQLITE_TRANSIENT = ("locked", "busy", "unable to open", "disk i/o")


def is_transient(exc: BaseException) -> bool:
    """True for a failure that waiting and trying again can cure: the server is down or
    restarting, a connection was dropped (``pg_terminate_backend``, a network cut), a lock
    wait ran out. Not for bad SQL, constraint violations or a missing table."""
    if isinstance(exc, DatabaseUnavailable | DisconnectionError):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, InterfaceError):
        return True
    if isinstance(exc, OperationalError):
        if type(exc.orig).__module__.startswith("sqlite3"):
            return any(word in str(exc.orig).lower() for word in _SQLITE_TRANSIENT)
        return True
    return False


class Backoff:
    """Bounded exponential backoff with jitter: ``base``, ``2·base``, … up to ``cap`` s.

    ``next_delay()`` returns the pause before the next try and counts it; ``reset()`` starts
    over after a success.
    """

    def __init__(self, base: float = 0.1, cap: float = 5.0) -> None:
        self.base = base
        self.cap = cap
        self.failures = 0

    def next_delay(self) -> float:
        delay = min(self.cap, self.base * 2**self.failures)
        self.failures += 1
        return delay * (0.5 + random.random() / 2)

    def reset(self) -> None:
        self.failures = 0


def retry_transient(
    fn: Callable[[], T],
    *,
    budget_s: float = 60.0,
    backoff: Backoff | None = None,
    on_retry: Callable[[BaseException, float], None] | None = None,
    stop: threading.Event | None = None,
) -> T:
    """``fn()``, tried again after each transient database failure (:func:`is_transient`)
    with exponential backoff, for at most ``budget_s`` seconds; the last failure is raised.

    ``fn`` must be safe to repeat: one transaction that either committed or did not (an
    insert-or-ignore of a keyed batch, a conditional update). ``on_retry(exc, delay)`` hears
    each failure that will be retried (for logging); ``stop`` ends the waiting early.
    """
    backoff = backoff or Backoff()
    deadline = time.monotonic() + budget_s
    while True:
        try:
            return fn()
        except Exception as exc:
            if not is_transient(exc):
                raise
            delay = backoff.next_delay()
            if time.monotonic() + delay > deadline or (stop is not None and stop.is_set()):
                raise
            if on_retry is not None:
                on_retry(exc, delay)
            if stop is not None:
                stop.wait(delay)
            else:
                time.sleep(delay)


def wait_for_database(
    engine: Engine, *, timeout_s: float, stop: threading.Event | None = None
) -> None:
    """Block until ``engine`` answers ``SELECT 1``, retrying with backoff for up to
    ``timeout_s`` seconds; :class:`DatabaseUnavailable` after that (start-up uses it so a
    service started before its database waits instead of exiting)."""
    started = time.monotonic()

    def probe() -> None:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    def waiting(exc: BaseException, delay: float) -> None:
        waited = time.monotonic() - started
        log.warning(
            "database not reachable after %.1f s (%s); next try in %.1f s",
            waited,
            describe_db_error(exc),
            delay,
        )

    try:
        retry_transient(
            probe, budget_s=timeout_s, backoff=Backoff(0.25, 5.0), on_retry=waiting, stop=stop
        )
    except Exception as exc:
        if not is_transient(exc):
            raise
        raise DatabaseUnavailable(
            f"the database was not reachable within {timeout_s:g} s: {describe_db_error(exc)}"
        ) from exc


def describe_db_error(exc: BaseException) -> str:
    """One line naming a database failure, without SQL text, parameters or paths."""
    inner = getattr(exc, "orig", None) or exc
    first = sanitize_message(str(inner)).splitlines()
    return f"{type(inner).__name__}: {first[0] if first else ''}".strip()
