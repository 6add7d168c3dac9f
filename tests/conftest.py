"""Shared fixtures: a private database per test, SQLite by default or PostgreSQL.

Set ``REFINERY_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test``
to run the database tests against PostgreSQL: each test gets its own schema
(``search_path`` in the URL), dropped afterwards, so ``pytest -n 2`` is safe.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import NullPool

from services.common.db import make_engine, normalize_url

PG_ENV = "REFINERY_TEST_DATABASE_URL"


def _with_search_path(url: str, schema: str) -> str:
    parsed = make_url(normalize_url(url))
    parsed = parsed.update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """A URL no other test uses: a SQLite file under ``tmp_path`` or a fresh PG schema."""
    server = os.environ.get(PG_ENV)
    if not server:
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    schema = f"test_{uuid.uuid4().hex[:16]}"
    admin = make_engine(server, poolclass=NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield _with_search_path(server, schema)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql("SET lock_timeout = '10s'")
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on :func:`database_url`, disposed after the test."""
    eng = make_engine(database_url)
    try:
        yield eng
    finally:
        eng.dispose()
