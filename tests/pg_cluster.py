"""A private, throw-away PostgreSQL cluster that a test may stop and restart at will.

Outage tests must never stop the shared server other tests use, so they start their own:
``initdb`` into a temporary folder and ``pg_ctl`` on a free localhost port, run as the
``postgres`` user (the server refuses to run as root) through ``runuser``. Usable when
``REFINERY_TEST_DATABASE_URL`` is set (the Postgres leg), the PostgreSQL binaries are
installed and the tests run as root; :func:`unavailable_reason` says why not otherwise.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from tests.conftest import PG_ENV

__all__ = ["PrivateCluster", "unavailable_reason"]


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def unavailable_reason() -> str | None:
    """None when a private cluster can be started here, else why not."""
    if not os.environ.get(PG_ENV):
        return f"{PG_ENV} is not set"
    if _bin_dir() is None:
        return "no PostgreSQL server binaries under /usr/lib/postgresql"
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return "starting a cluster as the postgres user needs root and runuser"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateCluster:
    """``start()``, ``stop()`` (fast: open connections are dropped), ``url``, ``close()``."""

    def __init__(self) -> None:
        bin_dir = _bin_dir()
        assert bin_dir is not None, unavailable_reason()
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="refinery-pg-"))
        shutil.chown(self.root, "postgres")
        self.data = self.root / "data"
        self.port = _free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self._as_postgres(
            "initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"
        )

    def _as_postgres(self, tool: str, *args: str) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(self.bin_dir / tool), *args],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c max_connections=40"
        )
        log = str(self.root / "server.log")
        self._as_postgres("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        self._as_postgres("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def close(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
