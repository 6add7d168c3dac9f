"""``python -m benchmarks attacks``: hostile requests against the real verifier and planner.

Each attack is one request that once froze a worker, ate its memory or answered a 500: a
timeline of thousands of copies of one shot (``no_reuse`` compared every pair), a pool of
100,000 clips, numbers at the edge of a double, a task nested hundreds of levels deep, a
music track shorter than a frame. Both services run under uvicorn on localhost (one process
each, subprocesses); every attack is sent once over HTTP and the harness records its status,
its seconds and how much the serving process's resident memory grew (psutil). The goal: each
refused with a 4xx (or, where the request is valid, answered) within 1 s, growing the server
by under 100 MB.

The tests (``tests/verifier/test_attacks.py``, ``tests/planner/test_attacks.py``) send the
same requests in process and bound their memory; speed belongs here.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import typer

from benchmarks.verifier_bench import calibration_us

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MiB = 1024 * 1024


def surf() -> tuple[dict[str, Any], dict[str, Any]]:
    """The surf-reel example's task and timeline."""
    folder = EXAMPLES / "surf-reel"
    return (
        json.loads((folder / "task.json").read_text()),
        json.loads((folder / "timeline.json").read_text()),
    )


def repeated_shots(n: int) -> bytes:
    """``/v1/verify`` with ``n`` copies of one shot: every pair overlaps in c01's source."""
    task, timeline = surf()
    timeline["shots"] = [{"clip_id": "c01", "in_s": 0, "out_s": 1}] * n
    return orjson.dumps({"task": task, "timeline": timeline})


def many_clips(n: int, *, plan: bool = False) -> bytes:
    """A task whose pool holds ``n`` one-second clips."""
    task, timeline = surf()
    task["clips"] = [{"id": f"x{i:06d}", "duration_s": 1} for i in range(n)]
    task["ledger"] = []
    if plan:
        return orjson.dumps({"task": task, "options": {"max_rounds": 1}})
    timeline["shots"] = [{"clip_id": "x000000", "in_s": 0, "out_s": 1}]
    return orjson.dumps({"task": task, "timeline": timeline})


def full_batch(shots: int, patches: int) -> bytes:
    """``/v1/verify:batch``: ``patches`` one-op patches on ``shots`` shots (work at the cap)."""
    task, timeline = surf()
    clips = [clip["id"] for clip in task["clips"]]
    timeline["shots"] = [
        {"clip_id": clips[i % len(clips)], "in_s": 0, "out_s": 1} for i in range(shots)
    ]
    swap = {"ops": [{"op": "swap", "a": 0, "b": 1}]}
    return orjson.dumps({"task": task, "timeline": timeline, "patches": [swap] * patches})


def huge_duration(route: str) -> bytes:
    """A clip lasting 1e308 s: the frame conversion once overflowed."""
    task, timeline = surf()
    task["clips"][0]["duration_s"] = 1e308
    return orjson.dumps(_body(route, task, timeline))


def huge_out_point() -> bytes:
    """A shot ending at 1e18 s: the frame count once passed 64 bits in the answer."""
    task, timeline = surf()
    timeline["shots"][0]["out_s"] = 1e18
    return orjson.dumps({"task": task, "timeline": timeline})


def deep_task(depth: int, *, plan: bool = False) -> bytes:
    """``{"task": [[[...]]]}`` nested ``depth`` levels deep."""
    _, timeline = surf()
    nested = b"[" * depth + b"]" * depth
    rest = b'"options": {}}' if plan else b'"timeline": ' + orjson.dumps(timeline) + b"}"
    return b'{"task": ' + nested + b", " + rest


def boolean_number() -> bytes:
    """``fps: false``: a boolean where a number belongs."""
    task, timeline = surf()
    task["fps"] = False
    return orjson.dumps({"task": task, "timeline": timeline})


def short_music() -> bytes:
    """A plan whose only track lasts 0.01 s (shorter than a frame, before any beat)."""
    task, _ = surf()
    task["music"][0]["duration_s"] = 0.01
    return orjson.dumps({"task": task, "options": {"max_rounds": 2, "candidates": 4}})


def _body(route: str, task: dict, timeline: dict) -> dict[str, Any]:
    body: dict[str, Any] = {"task": task, "timeline": timeline}
    swap = {"ops": [{"op": "swap", "a": 0, "b": 1}]}
    if route == "/v1/apply":
        body["patch"] = swap
    elif route == "/v1/verify:batch":
        body["patches"] = [swap]
    elif route == "/v1/plan":
        body = {"task": task, "options": {"max_rounds": 1}}
    return body


@dataclass(frozen=True, slots=True)
class Attack:
    name: str
    service: str  # "verifier" or "planner"
    path: str
    body: Callable[[], bytes]
    expect: int


def attacks() -> list[Attack]:
    """Every attack, with the status it must now get."""
    v, p = "verifier", "planner"
    return [
        Attack(
            "no_reuse_2000_shots (the cap)", v, "/v1/verify", lambda: repeated_shots(2_000), 200
        ),
        Attack("no_reuse_10000_shots", v, "/v1/verify", lambda: repeated_shots(10_000), 422),
        Attack("no_reuse_100000_shots", v, "/v1/verify", lambda: repeated_shots(100_000), 422),
        Attack("clips_5000 verify (the cap)", v, "/v1/verify", lambda: many_clips(5_000), 200),
        Attack("clips_100000 verify", v, "/v1/verify", lambda: many_clips(100_000), 422),
        Attack("clips_100000 plan", p, "/v1/plan", lambda: many_clips(100_000, plan=True), 422),
        *(
            Attack(f"duration_1e308 {route}", service, route, lambda r=route: huge_duration(r), 422)
            for service, route in (
                (v, "/v1/verify"),
                (v, "/v1/apply"),
                (v, "/v1/verify:batch"),
                (p, "/v1/plan"),
            )
        ),
        Attack(
            "batch 2000 shots × 8 patches (the work cap)",
            v,
            "/v1/verify:batch",
            lambda: full_batch(2_000, 8),
            200,
        ),
        Attack(
            "batch 2000 shots × 256 patches",
            v,
            "/v1/verify:batch",
            lambda: full_batch(2_000, 256),
            422,
        ),
        Attack("out_s_1e18", v, "/v1/verify", huge_out_point, 422),
        Attack("nesting_500 verify", v, "/v1/verify", lambda: deep_task(500), 422),
        Attack("nesting_1023 verify", v, "/v1/verify", lambda: deep_task(1_023), 422),
        Attack("nesting_500 plan", p, "/v1/plan", lambda: deep_task(500, plan=True), 422),
        Attack("fps_false", v, "/v1/verify", boolean_number, 422),
        Attack("music_0.01s plan", p, "/v1/plan", short_music, 200),
    ]


# ------------------------------------------------------------------------------ harness


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _serve(app: str, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """uvicorn serving ``app`` in one process; yields its URL and pid."""
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--no-access-log", "--log-level", "warning"]
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        command, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(url + "/healthz", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"{app} did not start")
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()


def _send(url: str, pid: int, attack: Attack) -> dict[str, Any]:
    import psutil

    body = attack.body()
    server = psutil.Process(pid)
    before = server.memory_info().rss
    started = time.perf_counter()
    try:
        response = httpx.post(
            url + attack.path,
            content=body,
            headers={"content-type": "application/json"},
            timeout=120,
        )
        status: int | str = response.status_code
        code = response.json().get("error", {}).get("code") if status != 200 else None
    except httpx.HTTPError as error:
        status, code = type(error).__name__, None
    seconds = time.perf_counter() - started
    grown = (server.memory_info().rss - before) / MiB
    ok = status == attack.expect and seconds < 1.0 and grown < 100
    return {
        "attack": attack.name,
        "service": attack.service,
        "path": attack.path,
        "body_mb": round(len(body) / MiB, 2),
        "status": status,
        "expected": attack.expect,
        "code": code,
        "seconds": round(seconds, 3),
        "rss_growth_mb": round(grown, 1),
        "goal_met": ok,
    }


def run() -> dict[str, Any]:
    calibration = calibration_us()
    with tempfile.TemporaryDirectory() as scratch:
        common = {"REFINERY_DATA_DIR": scratch, "REFINERY_LOG_LEVEL": "WARNING"}
        with _serve("services.verifier.app:app", common) as (verifier_url, verifier_pid):
            planner_env = {
                **common,
                "REFINERY_VERIFIER_URL": verifier_url,
                "REFINERY_RELEVANCE": "tfidf",
                "REFINERY_MEDIA_ROOT": scratch,
            }
            with _serve("services.planner.app:app", planner_env) as (planner_url, planner_pid):
                servers = {
                    "verifier": (verifier_url, verifier_pid),
                    "planner": (planner_url, planner_pid),
                }
                rows = [_send(*servers[a.service], a) for a in attacks()]
    return {
        "python_calibration_us": calibration,
        "attacks": rows,
        "all_goals_met": all(r["goal_met"] for r in rows),
        "python_calibration_after_us": calibration_us(),
    }


def table(results: dict[str, Any]) -> str:
    """The rows as a Markdown table (for docs/benchmarks.md)."""
    lines = [
        "| attack | route | body MB | status | s | RSS growth MB | goal |",
        "|---|---|---:|---|---:|---:|---|",
    ]
    for r in results["attacks"]:
        status = f"{r['status']}" + (f" `{r['code']}`" if r["code"] else "")
        lines.append(
            f"| {r['attack']} | {r['service']} `{r['path']}` | {r['body_mb']} | {status} | "
            f"{r['seconds']} | {r['rss_growth_mb']} | {'met' if r['goal_met'] else 'MISSED'} |"
        )
    return "\n".join(lines)


def cli(
    json_path: Path = typer.Option(
        Path("attacks-bench.json"), "--json", help="Where to write the figures."
    ),
) -> None:
    """Send each attack to the real services and write status, seconds and RSS growth."""
    results = run()
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    typer.echo(table(results))
    typer.echo(
        f"calibration {results['python_calibration_us']} µs before, "
        f"{results['python_calibration_after_us']} µs after; "
        f"all goals met: {results['all_goals_met']}"
    )
