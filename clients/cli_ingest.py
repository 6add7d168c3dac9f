"""``refinery ingest``: analyse footage and music on the planner, compile a brief, write a task.

The planner reads media only under its media root, so paths are sent relative to it
(``--media-root``, ``$REFINERY_MEDIA_ROOT``, the current folder by default, as under
``refinery up``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from clients.cli_common import fail, service_errors

if TYPE_CHECKING:
    from clients.planner import PlannerClient

CAPTION_SOURCES = ("auto", "sidecar", "llm", "none")


def relative_to_root(path: Path, media_root: Path) -> str:
    """``path`` as the planner names it: relative to the media root, which must hold it."""
    from clients.errors import RefineryClientError

    root = media_root.resolve()
    resolved = path.resolve()
    if not resolved.exists():
        raise RefineryClientError(f"{path} does not exist")
    if not resolved.is_relative_to(root):
        raise RefineryClientError(
            f"{path} is outside the media root {root}: run from a folder above it "
            "or set REFINERY_MEDIA_ROOT"
        )
    return resolved.relative_to(root).as_posix() or "."


def analyze(
    client: PlannerClient,
    paths: Sequence[Path],
    music: Sequence[Path],
    *,
    media_root: Path,
    captions: str = "auto",
    split_shots: bool = True,
    console: Console,
) -> dict[str, Any]:
    """Run a media analysis job with a progress bar per file; its ``{clips, music, errors}``."""
    job = client.analyze_media(
        [relative_to_root(p, media_root) for p in paths],
        music=[relative_to_root(p, media_root) for p in music],
        split_shots=split_shots,
        captions=captions,
    )
    columns = (
        SpinnerColumn(),
        TextColumn("analysing {task.fields[current]}"),
        BarColumn(),
        TextColumn("{task.fields[done]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("analyse", total=None, current="", done="0/? files")
        while job.status in {"queued", "running"}:
            time.sleep(0.3)
            job = client.job(job.job_id)
            progress.update(bar, **_bar_fields(job.progress))
    if job.status != "succeeded":
        from clients.errors import RefineryClientError

        message = (job.error or {}).get("message", job.status)
        raise RefineryClientError(f"media analysis {job.job_id} {job.status}: {message}")
    output = client.job_json(job.job_id)
    for error in output.get("errors", []):
        console.print(f"[yellow]skipped {error.get('path')}: {error.get('message')}[/]")
    console.print(
        f"analysed {len(output.get('clips', []))} shots and "
        f"{len(output.get('music', []))} music tracks"
    )
    return output


def _bar_fields(progress: dict[str, Any]) -> dict[str, Any]:
    """The bar's length in footage seconds where the planner counts them, else in files."""
    done, total = progress.get("files_done"), progress.get("files_total")
    fields = {"current": progress.get("current") or "", "done": f"{done or 0}/{total or '?'} files"}
    seconds, length = progress.get("footage_s_done"), progress.get("footage_s_total")
    if length:
        fields["done"] += f" · {seconds or 0:.0f}/{length:.0f} s of footage"
        return {**fields, "completed": seconds or 0, "total": length}
    return {**fields, "completed": done or 0, "total": total}


def ledger_table(ledger: Sequence[dict[str, Any]], provenance: Sequence[dict[str, Any]]) -> Table:
    """The compiled ledger, each entry beside the words of the brief it came from."""
    said = {p["constraint_id"]: p for p in provenance}
    table = Table(title="ledger compiled from the brief", title_justify="left")
    for column in ("id", "kind", "hard", "from the brief"):
        table.add_column(column)
    for entry in ledger:
        origin = said.get(entry["id"], {})
        words = origin.get("text")
        table.add_row(
            entry["id"],
            entry["kind"],
            "hard" if entry.get("hard", True) else "soft",
            f"“{words}”" if words else f"({origin.get('source', 'default')})",
        )
    return table


def print_compiled(compiled: dict[str, Any], console: Console) -> None:
    """A compile answer (or a plan's ``compiled``): the ledger table, then what was not
    understood and what contradicts."""
    ledger = compiled["ledger"] if "ledger" in compiled else compiled["task"]["ledger"]
    console.print(ledger_table(ledger, compiled.get("provenance", [])))
    for span in compiled.get("unparsed", []):
        console.print(f"[yellow]not understood:[/] “{span['text']}”")
    for conflict in compiled.get("conflicts", []):
        console.print(f"[red]conflict:[/] {conflict['message']}")


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Footage files or folders.")],
    music: Annotated[
        list[Path] | None, typer.Option(help="A music track (repeat for more).")
    ] = None,
    brief: Annotated[
        str | None, typer.Option(help="One sentence of brief: compile it into the ledger.")
    ] = None,
    captions: Annotated[
        str, typer.Option(help="Caption source: auto, sidecar, llm or none.")
    ] = "auto",
    split_shots: Annotated[bool, typer.Option(help="Split files into shots.")] = True,
    fps: Annotated[int, typer.Option(help="The task's frame rate.")] = 30,
    out: Annotated[Path, typer.Option(help="Write the task (or the analysis) here.")] = Path(
        "task.json"
    ),
    media_root: Annotated[
        Path, typer.Option(envvar="REFINERY_MEDIA_ROOT", help="The planner's media root.")
    ] = Path("."),
    url: Annotated[str | None, typer.Option(help="Planner base URL.", show_default=False)] = None,
    api_key: Annotated[
        str | None, typer.Option(envvar="REFINERY_API_KEY", show_default=False)
    ] = None,
) -> None:
    """Analyse footage and music; with --brief, compile a full Task.1 (else clips and music)."""
    from clients.planner import PlannerClient

    if captions not in CAPTION_SOURCES:
        raise fail(f"--captions must be one of {', '.join(CAPTION_SOURCES)}")
    console = Console(highlight=False)
    client = PlannerClient(url, api_key=api_key)
    with service_errors("planner", client.base_url), client:
        analysis = analyze(
            client, paths, music or [], media_root=media_root, captions=captions,
            split_shots=split_shots, console=console,
        )  # fmt: skip
        document: dict[str, Any] = {"clips": analysis["clips"], "music": analysis["music"]}
        if brief is not None:
            compiled = client.compile_task(
                brief, analysis["clips"], analysis["music"], fps=fps
            ).model_dump()
            print_compiled(compiled, console)
            document = compiled["task"]
    out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    console.print(f"wrote {out}")
