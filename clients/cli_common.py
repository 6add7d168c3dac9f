"""What every ``refinery`` command shares: one-line errors, exit codes, reading JSON files.

The commands (:mod:`clients.cli` and the ``cli_*`` modules beside it) import these; this
module imports none of them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

__all__ = ["error", "fail", "read_json", "service_errors"]


def error(message: str) -> None:
    Console(stderr=True).print(Text.assemble(("error: ", "bold red"), message))


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` and give the :class:`typer.Exit` to raise."""
    error(message)
    return typer.Exit(code)


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise fail(f"{path} is not valid JSON: {exc}") from None


@contextlib.contextmanager
def service_errors(service: str, base_url: str) -> Iterator[None]:
    """Turn client errors into one clear line and exit code 2."""
    from clients.errors import APIConnectionError, APIError, RefineryClientError

    try:
        yield
    except APIConnectionError:
        raise fail(f"{service} not reachable at {base_url}: start it with `refinery up`") from None
    except APIError as exc:
        raise fail(f"the {service} refused the request: {exc}") from None
    except RefineryClientError as exc:
        raise fail(str(exc)) from None
