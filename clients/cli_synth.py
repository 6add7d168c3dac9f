"""``refinery synth``: run a synth job with a progress bar, then stream its export to a file."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from clients.cli_common import fail, read_json, service_errors

if TYPE_CHECKING:
    from clients.synth import SynthClient
    from protocol.synth import SynthJobOut


def parse_mix(text: str | None) -> dict[str, float] | None:
    """``simple=0.4,parallel=0.6`` → ``{"simple": 0.4, "parallel": 0.6}``."""
    if not text:
        return None
    mix: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        try:
            if not sep or not key.strip():
                raise ValueError
            mix[key.strip()] = float(value)
        except ValueError:
            raise typer.BadParameter(
                f"{part!r} is not CATEGORY=WEIGHT (e.g. simple=0.4,parallel=0.6)",
                param_hint="--mix",
            ) from None
    return mix


def _catalog(value: str) -> str | list[Any]:
    """A stored catalog's name, or the tools of a JSON file when ``value`` is one."""
    path = Path(value)
    if value.endswith(".json") or path.is_file():
        tools = read_json(path)
        return tools if isinstance(tools, list) else tools.get("tools", tools)
    return value


def _stages(job: SynthJobOut) -> Table:
    p = job.progress
    table = Table(title=f"job {job.job_id}: {job.status}", title_justify="left")
    for column in ("stage", "passes", "refines", "failures"):
        table.add_column(column)
    table.add_row("1 sample", str(p.get("stage1", {}).get("sampled", 0)), "", "")
    for stage in ("stage2", "stage3"):
        counts = p.get(stage, {})
        label = "2 query" if stage == "stage2" else "3 calls"
        table.add_row(label, *(str(counts.get(k, 0)) for k in ("passes", "refines", "failures")))
    return table


def _poll(client: SynthClient, job: SynthJobOut, n: int, console: Console) -> SynthJobOut:
    from protocol.jobs import FINISHED

    columns = (
        SpinnerColumn(),
        TextColumn("synth {task.fields[status]}"),
        BarColumn(),
        TextColumn("{task.completed:.0f}/{task.total:.0f} accepted"),
        TextColumn("· {task.fields[sampled]} sampled · {task.fields[rate]} kept"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("synth", total=n, status=job.status, sampled=0, rate="–")
        while job.status not in FINISHED:
            time.sleep(0.3)
            job = client.job(job.job_id)
            p = job.progress
            rate = p.get("acceptance_rate")
            progress.update(
                bar,
                completed=p.get("accepted", 0),
                status=job.status,
                sampled=p.get("stage1", {}).get("sampled", 0),
                rate=f"{rate:.0%}" if rate is not None else "–",
            )
    return job


def _export(client: SynthClient, job_id: str, out: Path, fmt: str) -> int:
    """Stream the export next to ``out`` and move it into place once complete."""
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    with part.open("wb") as handle:
        client.stream_export(job_id, handle, format=fmt)  # type: ignore[arg-type]
    part.replace(out)
    with out.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def synth(
    out: Annotated[Path, typer.Option(help="Write the examples here (JSON Lines).")],
    n: Annotated[int, typer.Option(help="Accepted examples wanted.")] = 100,
    format: Annotated[str, typer.Option(help="trl (TRL rows) or bfcl (BFCL rows).")] = "trl",
    seed: Annotated[int, typer.Option(help="The same seed draws the same examples.")] = 0,
    mix: Annotated[
        str | None, typer.Option(help="Category weights, e.g. simple=0.4,parallel=0.6.")
    ] = None,
    catalog: Annotated[
        str, typer.Option(help="A stored catalog's name, or a JSON file of tools.")
    ] = "builtin",
    generator: Annotated[str, typer.Option(help="template or llm.")] = "template",
    reader: Annotated[
        str | None,
        typer.Option(
            help="Who reads stage 3: rules, a named base (smollm2-135m) or a checkpoint "
            "folder on the service's machine; default the generator's own.",
            show_default=False,
        ),
    ] = None,
    max_refine_rounds: Annotated[int, typer.Option(help="Refinement rounds per example.")] = 3,
    isolate: Annotated[bool, typer.Option(help="Drop tools overlapping BFCL's own.")] = False,
    url: Annotated[str | None, typer.Option(help="Synth base URL.", show_default=False)] = None,
    api_key: Annotated[
        str | None, typer.Option(envvar="REFINERY_API_KEY", show_default=False)
    ] = None,
) -> None:
    """Synthesize N verified tool-use examples into OUT; exit 0 when all N were made,
    1 when the job ended short (failed, cancelled, or too few accepted), 2 on errors."""
    if format not in ("trl", "bfcl"):
        raise fail(f"--format must be trl or bfcl, not {format!r}")
    console = Console(highlight=False)
    options = {"n": n, "seed": seed, "mix": parse_mix(mix), "generator": generator}
    options.update(max_refine_rounds=max_refine_rounds, isolate=isolate, reader=reader)
    from clients.synth import SynthClient

    client = SynthClient(url, api_key=api_key)
    with service_errors("synth service", client.base_url), client:
        job = client.synthesize(_catalog(catalog), **options)
        if job.dropped:
            console.print(f"isolate dropped {len(job.dropped)} tool(s): {json.dumps(job.dropped)}")
        try:
            job = _poll(client, job, n, console)
        except KeyboardInterrupt:
            client.cancel(job.job_id)
            raise fail(f"interrupted: cancelled job {job.job_id}", 130) from None
        console.print(_stages(job))
        rows = _export(client, job.job_id, out, format)
        accepted = job.progress.get("accepted", rows)
        console.print(f"wrote {rows} {format} rows to {out} ({accepted}/{n} accepted)")
        if job.status != "succeeded":
            message = (job.error or {}).get("message", job.status)
            console.print(f"[bold red]job {job.job_id} {job.status}[/]: {message}")
    raise typer.Exit(0 if job.status == "succeeded" and rows >= n else 1)
