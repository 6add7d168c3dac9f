"""The ``refinery`` command line: ``refinery verify``, ``refinery up``.

Exit codes: ``verify`` 0 feasible · 1 not feasible · 2 error; ``up`` 0 after Ctrl-C,
the command's own code with ``-- COMMAND``, 1 if a service dies, 2 if the stack fails.

Start-up stays light (``refinery --help`` loads Typer and Rich only): the clients, httpx,
pydantic and the wire models are imported inside the commands that use them.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from clients.cli_common import error, fail, read_json, service_errors
from clients.cli_ingest import ingest
from clients.cli_plan import plan
from clients.cli_synth import synth
from clients.cli_train import train_app

if TYPE_CHECKING:
    from rich.table import Table

    from clients.stack import Stack

__all__ = ["app"]

app = typer.Typer(
    name="refinery",
    help="Refinery: verify video-editing timelines, run the local service stack.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def verify(
    task: Annotated[Path, typer.Argument(help="Task.1 JSON file.")],
    timeline: Annotated[Path, typer.Argument(help="Timeline.1 JSON file.")],
    url: Annotated[
        str | None,
        typer.Option(
            help="Verifier base URL (default: $REFINERY_VERIFIER_URL, else http://127.0.0.1:8101).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw Report.1 JSON.")] = False,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="REFINERY_API_KEY",
            help="Bearer key, when the service has REFINERY_API_KEYS.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Verify TIMELINE against TASK; exit 0 if feasible, 1 if not, 2 on errors."""
    from clients.render import render_report
    from clients.verifier import VerifierClient

    task_body, timeline_body = read_json(task), read_json(timeline)
    client = VerifierClient(url, api_key=api_key)
    with service_errors("verifier", client.base_url), client:
        report = client.verify(task_body, timeline_body)
    if as_json:
        typer.echo(report.model_dump_json(by_alias=True, indent=2))
    else:
        render_report(report, Console(highlight=False))
    raise typer.Exit(0 if report.feasible else 1)


def _short(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _services_table(stack: Stack) -> Table:
    from rich.table import Table

    table = Table(title="Refinery stack", title_justify="left")
    for column in ("service", "url", "process", "log"):
        table.add_column(column, overflow="fold")
    for s in stack.services:
        process = "reused" if s.reused else f"pid {s.process.pid}"  # type: ignore[union-attr]
        table.add_row(s.name, s.url, process, _short(s.log_path) if s.log_path else "-")
    return table


def _command_argv(command: list[str]) -> list[str]:
    """``refinery …`` runs through this interpreter when no ``refinery`` is on PATH."""
    if command[0] == "refinery" and shutil.which("refinery") is None:
        return [sys.executable, "-m", "clients", *command[1:]]
    return command


def _run_command(command: list[str], env: dict[str, str]) -> int:
    """Run ``command`` to its end; SIGTERM is passed on, Ctrl-C reaches it from the terminal."""
    try:
        process = subprocess.Popen(_command_argv(command), env=env)
    except OSError as exc:
        error(f"cannot run {command[0]}: {exc}")
        return 127
    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, lambda *_: None),
        signal.SIGTERM: signal.signal(signal.SIGTERM, lambda *_: process.terminate()),
    }
    try:
        code = process.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return code if code >= 0 else 128 - code


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C while starting, so the ``with Stack`` cleanup still runs."""

    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _block(stack: Stack, console: Console) -> int:
    """Wait for SIGINT/SIGTERM (0), or for a service to die on its own (1)."""
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        console.print("running; press Ctrl-C to stop")
        while not stop.wait(0.5):
            for service in stack.exited():
                code = service.process.returncode  # type: ignore[union-attr]
                console.print(f"[bold red]{service.name} exited[/] (code {code}); last log lines:")
                console.print(service.log_tail(), markup=False)
                return 1
        return 0
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@app.command(context_settings={"allow_interspersed_args": False})
def up(
    command: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="-- COMMAND",
            show_default=False,
            help="Run this once the stack is healthy, then stop the stack with its exit code.",
        ),
    ] = None,
    services: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated subset, e.g. verifier,planner (default: every service present).",
            show_default=False,
        ),
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    data_dir: Annotated[
        Path,
        typer.Option(
            envvar="REFINERY_DATA_DIR", help="Embedded state (SQLite) and logs/<service>.log."
        ),
    ] = Path(".refinery"),
    timeout: Annotated[float, typer.Option(help="Seconds to wait for every /readyz.")] = 60.0,
) -> None:
    """Start every Refinery service on localhost; stop them on Ctrl-C (or after COMMAND)."""
    from clients.stack import Stack, StackError, select_services

    console = Console(highlight=False)
    names = [n.strip() for n in services.split(",") if n.strip()] if services else None
    try:
        selected, skipped = select_services(names, host=host)
    except StackError as exc:
        raise fail(str(exc)) from None
    if skipped:
        console.print(f"[dim]skipped (not installed): {', '.join(skipped)}[/]")
    if not selected:
        raise fail("no service to start")
    with _sigterm_interrupts(), Stack(selected, data_dir=data_dir) as stack:
        try:
            stack.start(timeout=timeout)
        except StackError as exc:
            raise fail(str(exc)) from None
        except KeyboardInterrupt:
            raise fail("interrupted while starting; stopping the stack", 130) from None
        for service in selected:
            if service.reused:
                console.print(f"reusing the {service.name} already running at {service.url}")
        console.print(_services_table(stack))
        code = _run_command(command, stack.env) if command else _block(stack, console)
        console.print("stopping the stack")
    raise typer.Exit(code)


def main() -> None:  # pragma: no cover - console entry for ``python -m clients``
    app(prog_name="refinery")


def _register_commands() -> None:
    app.command(help="Plan a task on the planner; show rounds, report and VES.")(plan)
    app.command(help="Analyse footage and music; with --brief, write a full task.")(ingest)
    app.add_typer(train_app, name="train")
    app.command(help="Synthesize verified tool-use examples into a JSONL file.")(synth)


_register_commands()
