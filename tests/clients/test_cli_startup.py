"""``refinery`` starts light: importing the CLI loads no database layer and no HTTP client;
the clients load on first use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import clients

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sqlalchemy", "sqlmodel", "services.common.jobs", "httpx", "clients.verifier")


def _loaded_after(statement: str) -> list[str]:
    code = f"import sys; {statement}; import json; print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_the_cli_loads_no_database_layer_or_http_client() -> None:
    loaded = _loaded_after("import clients.cli")
    assert "clients.cli" in loaded and "typer" in loaded
    assert [name for name in HEAVY if name in loaded] == []


def test_the_wire_models_clients_share_load_without_sqlalchemy() -> None:
    loaded = _loaded_after("import protocol.jobs, protocol.synth, protocol.trainer")
    assert "pydantic" in loaded and "sqlalchemy" not in loaded


def test_clients_load_on_first_use() -> None:
    from clients.errors import PatchRejectedError
    from clients.verifier import VerifierClient

    assert clients.VerifierClient is VerifierClient
    assert clients.PatchRejectedError is PatchRejectedError
    assert set(clients.__all__) <= set(dir(clients))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = clients.Nope
