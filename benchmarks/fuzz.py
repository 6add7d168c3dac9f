"""Schemathesis with every check (``st run --checks all``) against the four services.

Each service runs under uvicorn on a free localhost port (SQLite under a scratch folder, no
LLM, no synth worker threads, no upstream a caller may name), the planner behind the real
verifier and the trainer behind the real planner and synth. The CLI fuzzes each published
OpenAPI document through all its phases (examples, coverage, fuzzing, stateful) and writes
its JSON run report; the figures per service are the generated test cases, the failures by
check and operation, and errors. The tests (``tests/*/test_fuzz.py``) run a bounded subset
in process; this is the full run the hardening issue asks for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import typer

from benchmarks.attacks import _serve

SERVICES = ("verifier", "planner", "synth", "trainer")


def _env(name: str, scratch: Path, urls: dict[str, str]) -> dict[str, str]:
    folder = scratch / name
    (folder / "sources").mkdir(parents=True, exist_ok=True)
    env = {
        "REFINERY_DATA_DIR": str(folder),
        "REFINERY_LOG_LEVEL": "CRITICAL",
        "REFINERY_ALLOWED_UPSTREAMS": "[]",
    }
    if name == "planner":
        env |= {
            "REFINERY_VERIFIER_URL": urls["verifier"],
            "REFINERY_RELEVANCE": "tfidf",
            "REFINERY_MEDIA_ROOT": str(folder),
            "REFINERY_MAX_ROUNDS_LIMIT": "8",
            "REFINERY_MAX_CANDIDATES_LIMIT": "8",
            "REFINERY_MAX_TEACHERS": "2",
        }
    if name == "synth":
        env |= {"REFINERY_SYNTH_WORKERS": "0", "REFINERY_SYNTH_MAX_N": "50"}
    if name == "trainer":
        env |= {
            "REFINERY_PLANNER_URL": urls["planner"],
            "REFINERY_SYNTH_URL": urls["synth"],
            "REFINERY_SOURCE_ROOTS": json.dumps([str(folder / "sources")]),
            "REFINERY_MAX_EPISODES": "8",
        }
    return env


@contextmanager
def _stack(scratch: Path) -> Iterator[dict[str, str]]:
    urls: dict[str, str] = {}
    with ExitStack() as stack:
        for name in SERVICES:
            app = f"services.{name}.app:app"
            url, _pid = stack.enter_context(_serve(app, _env(name, scratch, urls)))
            urls[name] = url
        yield urls


def _st_run(
    url: str, report: Path, examples: int, seed: int, log: Path | None = None
) -> dict[str, Any]:
    command = [sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json"]
    command += ["--checks", "all", "--max-examples", str(examples), "--seed", str(seed)]
    command += ["--suppress-health-check", "all", "--no-color", "--workers", "1"]
    command += ["--report", "json", "--report-json-path", str(report)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFINERY_")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=report.parent)
    if log is not None:
        log.write_text(done.stdout + done.stderr)
    data = json.loads(report.read_text())
    failures = [
        {"code": f["code"], "title": f["title"], "count": f["count"], "operations": f["operations"]}
        for f in data["failures"]
    ]
    return {
        "exit_code": done.returncode,
        "seconds": round(data["running_time"], 1),
        "operations_tested": data["operations"]["tested"],
        "test_cases": data["test_cases"]["generated"],
        "unique_failures": data["test_cases"]["unique_failures"],
        "failures": failures,
        "errors": data["errors"],
        "phases": {name: phase["status"] for name, phase in data["phases"].items()},
        "warnings": {k: v for k, v in data["warnings"].items() if v},
        "output_tail": done.stdout[-4000:] if done.returncode else "",
    }


def run(
    examples: int, seed: int, only: list[str] | None = None, logs: Path | None = None
) -> dict[str, Any]:
    """The ``--checks all`` run on each service (or those in ``only``)."""
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch, _stack(Path(scratch)) as urls:
        for name in only or SERVICES:
            report = Path(scratch) / f"{name}-report.json"
            log = None if logs is None else logs / f"{name}.log"
            results[name] = _st_run(urls[name], report, examples, seed, log)
    total = sum(r["unique_failures"] for r in results.values())
    return {
        "checks": "all",
        "max_examples": examples,
        "seed": seed,
        "services": results,
        "unique_failures": total,
    }


def cli(
    examples: int = typer.Option(50, help="--max-examples per operation"),
    seed: int = typer.Option(1, help="--seed, for a reproducible run"),
    service: list[str] = typer.Option([], help="Only these services (repeatable)."),
    out: Path = typer.Option(Path("fuzz.json"), help="Where the JSON result goes."),
    logs: Path | None = typer.Option(None, help="A folder for each service's full CLI output."),
) -> None:
    """Fuzz every service with all schemathesis checks and write the figures as JSON."""
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
    result = run(examples, seed, service or None, logs)
    out.write_text(json.dumps(result, indent=2))
    for name, row in result["services"].items():
        codes = ", ".join(f"{f['code']}×{f['count']}" for f in row["failures"]) or "none"
        print(f"{name}: {row['test_cases']} cases, failures: {codes}, errors: {len(row['errors'])}")
