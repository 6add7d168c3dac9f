"""Shared fixtures: a private database per test, SQLite by default or PostgreSQL.

Set ``REFINERY_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test``
to run the database tests against PostgreSQL: each test gets its own schema
(``search_path`` in the URL), dropped afterwards, so ``pytest -n 2`` is safe.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import NullPool

from services.common import base_models
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


REAL_BASE = "smollm2-135m"


@pytest.fixture(scope="session")
def real_base(tmp_path_factory: pytest.TempPathFactory) -> base_models.Materialized:
    """The real base (``real_model`` tests), materialised once per session into a temporary
    data dir that ``pytest -n`` workers share (the file lock lets one convert, the others
    wait); skipped, naming the install command, without its wheel or the gguf package."""
    spec = base_models.NAMED_BASES[REAL_BASE]
    if base_models.locate_gguf(spec) is None:
        pytest.skip(f"the real base needs its wheel: {spec.install}")
    if find_spec("gguf") is None or find_spec("transformers") is None:
        pytest.skip("the real base needs the model extra: pip install -e '.[model]'")
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's root, above each worker's own
    return base_models.prepare(REAL_BASE, root / "real-base-data")


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded, untrained Qwen2 checkpoint folder (its tokenizer trained on the built-in
    synth catalog's schemas) for the model reader: fast, under the grammar, knowing nothing."""
    pytest.importorskip("xgrammar")
    from services.synth.catalog import builtin_catalog
    from services.trainer.models import build_tiny, save_checkpoint

    texts = [json.dumps(tool) for tool in builtin_catalog()[:12]]
    model, tokenizer = build_tiny(texts * 2, seed=0)
    folder = save_checkpoint(model, tokenizer, tmp_path_factory.mktemp("synth-tiny") / "ckpt")
    return Path(folder).resolve()
