"""The local stack behind ``refinery up``: every service as a uvicorn subprocess.

Adding a service is one line in :data:`SERVICES`; entries whose app module does not
exist yet are skipped. Ports can be moved with ``REFINERY_<NAME>_PORT``.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Self

import httpx

__all__ = ["NEEDS", "SERVICES", "Service", "Stack", "StackError", "select_services"]

SERVICES: dict[str, tuple[str, int]] = {
    "verifier": ("services.verifier.app:app", 8101),
    "planner": ("services.planner.app:app", 8102),
    "synth": ("services.synth.app:app", 8103),
    "trainer": ("services.trainer.app:app", 8104),
}
"""name → (uvicorn ``module:attribute``, default port)."""

NEEDS: dict[str, tuple[str, ...]] = {
    "synth": ("jsonschema",),
    "trainer": ("torch", "transformers", "trl", "datasets"),
}
"""Modules a service's extra installs (``pip install -e '.[synth]'``…): without them the
service is skipped, so a machine with only ``.[planner]`` still runs its stack."""

LOG_TAIL_LINES = 20


class StackError(RuntimeError):
    """A service could not be selected, started, or kept running."""


@dataclass
class Service:
    """One service of the stack: started by us (``process``) or found already running."""

    name: str
    target: str
    host: str
    port: int
    log_path: Path | None = None
    process: subprocess.Popen[bytes] | None = None
    reused: bool = False
    _log: IO[bytes] | None = field(default=None, repr=False)
    _log_offset: int = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def module(self) -> str:
        return self.target.partition(":")[0]

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The last ``lines`` lines this run wrote to the service's log."""
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        with self.log_path.open("rb") as f:
            f.seek(self._log_offset)
            text = f.read().decode("utf-8", "replace")
        return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def select_services(
    names: Iterable[str] | None, *, host: str = "127.0.0.1", env: Mapping[str, str] | None = None
) -> tuple[list[Service], list[str]]:
    """The services to run, and the registry entries skipped because their module is absent.

    Asking for an unknown name, or by name for an absent module, is a :class:`StackError`.
    """
    env = os.environ if env is None else env
    wanted = list(names) if names else list(SERVICES)
    unknown = [n for n in wanted if n not in SERVICES]
    if unknown:
        raise StackError(f"unknown service(s) {', '.join(unknown)}; known: {', '.join(SERVICES)}")
    services, skipped = [], []
    for name in dict.fromkeys(wanted):
        target, default_port = SERVICES[name]
        modules = (target.partition(":")[0], *NEEDS.get(name, ()))
        missing = [module for module in modules if not _importable(module)]
        if missing:
            if names:
                raise StackError(
                    f"service {name}: {', '.join(missing)} not importable "
                    f"(pip install -e '.[{name}]')"
                )
            skipped.append(name)
            continue
        raw_port = env.get(f"REFINERY_{name.upper()}_PORT") or default_port
        try:
            port = int(raw_port)
        except ValueError:
            raise StackError(f"REFINERY_{name.upper()}_PORT={raw_port!r} is not a port") from None
        services.append(Service(name, target, host, port))
    return services, skipped


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _health(url: str) -> dict | None:
    """The ``/healthz`` answer of the server at ``url``, or None when it is not healthy."""
    try:
        response = httpx.get(f"{url}/healthz", timeout=2.0)
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def _ready(url: str) -> bool:
    """Whether ``/readyz`` says ready: the database reached and any start-up warm-up done."""
    try:
        return httpx.get(f"{url}/readyz", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def _is_refinery(service: Service) -> bool:
    """Whether the server on ``service``'s port is a healthy Refinery service of that name."""
    health = _health(service.url)
    return isinstance(health, dict) and health.get("service") == service.name


class Stack:
    """Start, watch and stop a set of services; use as a context manager."""

    def __init__(
        self, services: list[Service], *, data_dir: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.services = services
        self.data_dir = data_dir.resolve()
        self.env = dict(os.environ if env is None else env)
        self.env["REFINERY_DATA_DIR"] = str(self.data_dir)
        for service in services:
            self.env[f"REFINERY_{service.name.upper()}_URL"] = service.url

    def start(self, *, timeout: float = 60.0) -> None:
        """Reuse or launch every service, then wait until each ``/readyz`` says ready (its
        warm-up done, so the first request is as fast as the next), or raise."""
        (self.data_dir / "logs").mkdir(parents=True, exist_ok=True)
        for service in self.services:
            if _listening(service.host, service.port):
                if not _is_refinery(service):
                    raise StackError(
                        f"port {service.port} is taken by something that is not a healthy "
                        f"Refinery {service.name}; free it or set "
                        f"REFINERY_{service.name.upper()}_PORT"
                    )
                service.reused = True
                continue
            self._launch(service)
        self._wait_healthy(timeout)

    def _launch(self, service: Service) -> None:
        service.log_path = self.data_dir / "logs" / f"{service.name}.log"
        service._log = service.log_path.open("ab")
        service._log_offset = service._log.tell()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        service._log.write(
            f"--- refinery up: {service.name} on {service.url} at {stamp}\n".encode()
        )
        service._log.flush()
        argv = [
            sys.executable,
            "-m",
            "uvicorn",
            service.target,
            "--host",
            service.host,
            "--port",
            str(service.port),
            "--no-access-log",
        ]
        # the interface it binds decides whether it may serve without API keys
        env = {**self.env, "REFINERY_BIND_HOST": service.host, "PYTHONUNBUFFERED": "1"}
        service.process = subprocess.Popen(
            argv,
            env=env,
            stdout=service._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pending = [s for s in self.services if not s.reused]
        while pending:
            for service in list(pending):
                assert service.process is not None
                code = service.process.poll()
                if code is not None:
                    raise StackError(
                        f"{service.name} exited with code {code} before it was "
                        f"healthy; last log lines ({service.log_path}):\n"
                        f"{service.log_tail()}"
                    )
                if _ready(service.url):
                    pending.remove(service)
            if pending and time.monotonic() > deadline:
                names = ", ".join(s.name for s in pending)
                tails = "\n".join(f"[{s.name}]\n{s.log_tail()}" for s in pending)
                raise StackError(f"{names} not ready after {timeout:g} s; last log lines:\n{tails}")
            if pending:
                time.sleep(0.1)

    def exited(self) -> list[Service]:
        """Services we started that have since stopped on their own."""
        return [s for s in self.services if s.process is not None and s.process.poll() is not None]

    def stop(self, *, grace: float = 5.0) -> None:
        """SIGTERM every service we started, SIGKILL those still alive after ``grace`` s."""
        running = [s for s in self.services if s.process is not None and s.process.poll() is None]
        for service in running:
            service.process.terminate()  # type: ignore[union-attr]
        deadline = time.monotonic() + grace
        for service in running:
            process = service.process
            assert process is not None
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for service in self.services:
            if service._log is not None:
                service._log.close()
                service._log = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
