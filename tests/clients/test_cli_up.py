"""``refinery up``: real uvicorn subprocesses on free ports, started, used and stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from clients import stack as S
from clients.cli import app

ROOT = Path(__file__).resolve().parents[2]
PORT_URL = "import os,sys,httpx; url=os.environ['REFINERY_VERIFIER_URL']"


def _env(port: int) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REFINERY_API_KEYS", "REFINERY_API_KEY", "REFINERY_VERIFIER_URL")
    }
    env.update(
        REFINERY_VERIFIER_PORT=str(port), COLUMNS="200", PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1"
    )
    return env


def _up(data_dir: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "clients",
        "up",
        "--services",
        "verifier",
        "--data-dir",
        str(data_dir),
        "--timeout",
        "45",
        *args,
    ]


def _run(argv: list[str], port: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, env=_env(port), cwd=ROOT, capture_output=True, text=True, timeout=90
    )


def _pid(output: str) -> int:
    match = re.search(r"pid (\d+)", output)
    assert match, output
    return int(match.group(1))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# --- the registry ----------------------------------------------------------------------


def test_select_services(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(S.SERVICES, "ghost", ("services.ghost_service.app:app", 8199))
    services, skipped = S.select_services(None, env={"REFINERY_VERIFIER_PORT": "9101"})
    assert "ghost" in skipped
    verifier = next(s for s in services if s.name == "verifier")
    assert (verifier.port, verifier.url) == (9101, "http://127.0.0.1:9101")
    with pytest.raises(S.StackError, match="not importable"):
        S.select_services(["ghost"], env={})
    with pytest.raises(S.StackError, match="unknown service"):
        S.select_services(["verifier", "nope"], env={})
    with pytest.raises(S.StackError, match="not a port"):
        S.select_services(["verifier"], env={"REFINERY_VERIFIER_PORT": "eighty"})
    # a service whose extra is not installed is skipped, or refused when asked for
    monkeypatch.setitem(S.NEEDS, "verifier", ("no_such_extra_module",))
    assert "verifier" in S.select_services(None, env={})[1]
    with pytest.raises(S.StackError, match=r"no_such_extra_module not importable.*\[verifier\]"):
        S.select_services(["verifier"], env={})


def test_up_rejects_unknown_services() -> None:
    result = CliRunner().invoke(app, ["up", "--services", "verifier,nope"])
    assert result.exit_code == 2
    assert "unknown service(s) nope" in result.output


def test_a_service_that_dies_shows_its_log(tmp_path: Path, free_port: int) -> None:
    broken = S.Service("broken", "clients.errors:app", "127.0.0.1", free_port)
    with pytest.raises(S.StackError) as info, S.Stack([broken], data_dir=tmp_path) as stack:
        stack.start(timeout=30)
    message = str(info.value)
    assert "broken exited with code" in message
    assert 'Attribute "app" not found' in message
    assert (tmp_path / "logs" / "broken.log").exists()


def test_a_service_bound_beyond_loopback_needs_keys(tmp_path: Path, free_port: int) -> None:
    env = _env(free_port)
    env.pop("REFINERY_ALLOW_UNAUTHENTICATED", None)
    exposed = S.Service("verifier", "services.verifier.app:app", "0.0.0.0", free_port)
    with (
        pytest.raises(S.StackError) as info,
        S.Stack([exposed], data_dir=tmp_path, env=env) as stack,
    ):
        stack.start(timeout=30)
    assert "refusing to start the verifier unauthenticated on 0.0.0.0" in str(info.value)


def test_a_stranger_on_the_port_is_refused(tmp_path: Path, live_url: str) -> None:
    port = int(live_url.rsplit(":", 1)[1])
    planner = S.Service("planner", "services.planner.app:app", "127.0.0.1", port)
    with pytest.raises(S.StackError, match="not a healthy Refinery planner"):
        S.Stack([planner], data_dir=tmp_path).start(timeout=5)


# --- the command -----------------------------------------------------------------------


def test_up_runs_a_command_then_stops_the_stack(tmp_path: Path, free_port: int) -> None:
    code = (
        f"{PORT_URL}; r=httpx.get(url+'/healthz');"
        "print('health', r.status_code, url, os.environ['REFINERY_DATA_DIR']);"
        "sys.exit(7 if r.status_code == 200 else 3)"
    )
    data_dir = tmp_path / "state"
    result = _run(_up(data_dir, "--", sys.executable, "-c", code), free_port)
    assert result.returncode == 7, result.stdout + result.stderr
    assert f"health 200 http://127.0.0.1:{free_port} {data_dir.resolve()}" in result.stdout
    log = (data_dir / "logs" / "verifier.log").read_text()
    assert "Uvicorn running" in log and "Shutting down" in log
    assert _gone(_pid(result.stdout))
    assert not S._listening("127.0.0.1", free_port)


def test_up_then_refinery_verify(
    tmp_path: Path, free_port: int, task: dict, bad_timeline: dict
) -> None:
    (tmp_path / "task.json").write_text(json.dumps(task))
    (tmp_path / "timeline.json").write_text(json.dumps(bad_timeline))
    argv = _up(
        tmp_path / "state",
        "--",
        "refinery",
        "verify",
        str(tmp_path / "task.json"),
        str(tmp_path / "timeline.json"),
    )
    result = _run(argv, free_port)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NOT FEASIBLE" in result.stdout
    assert not S._listening("127.0.0.1", free_port)


def test_up_reuses_a_healthy_service(tmp_path: Path, live_url: str) -> None:
    port = int(live_url.rsplit(":", 1)[1])
    code = f"{PORT_URL}; sys.exit(0 if httpx.get(url+'/healthz').status_code == 200 else 5)"
    result = _run(_up(tmp_path, "--", sys.executable, "-c", code), port)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"reusing the verifier already running at {live_url}" in result.stdout
    assert httpx.get(f"{live_url}/healthz").status_code == 200  # left running


# --- blocking until a signal -----------------------------------------------------------


class _Blocking:
    """``refinery up`` without a command, its output collected by a thread."""

    def __init__(self, tmp_path: Path, port: int) -> None:
        self.process = subprocess.Popen(
            _up(tmp_path),
            env=_env(port),
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_running(self, seconds: float = 45) -> None:
        deadline = time.monotonic() + seconds
        while "press Ctrl-C" not in self.output:
            assert self.process.poll() is None, self.output
            assert time.monotonic() < deadline, self.output
            time.sleep(0.05)

    def finish(self) -> tuple[int, str]:
        try:
            code = self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:  # pragma: no cover - only when failing
                self.process.kill()
        self.reader.join(5)
        return code, self.output


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_up_stops_everything_on_a_signal(tmp_path: Path, free_port: int, signum: int) -> None:
    up = _Blocking(tmp_path, free_port)
    up.wait_running()
    assert httpx.get(f"http://127.0.0.1:{free_port}/healthz").status_code == 200
    up.process.send_signal(signum)
    code, output = up.finish()
    assert code == 0, output
    assert "stopping the stack" in output
    assert _gone(_pid(output))
    assert not S._listening("127.0.0.1", free_port)


def test_up_exits_1_when_a_service_dies(tmp_path: Path, free_port: int) -> None:
    up = _Blocking(tmp_path, free_port)
    up.wait_running()
    os.kill(_pid(up.output), signal.SIGKILL)
    code, output = up.finish()
    assert code == 1, output
    assert "verifier exited" in output
