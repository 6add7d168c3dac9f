"""``refinery train``: build datasets, run train jobs with a progress bar, list and publish."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from clients.cli_common import service_errors

if TYPE_CHECKING:
    from clients.trainer import TrainerClient
    from protocol.jobs import JobOut
    from protocol.trainer import DatasetOut

train_app = typer.Typer(
    name="train",
    help="Build datasets, train checkpoints and publish them to the planner.",
    no_args_is_help=True,
)
dataset_app = typer.Typer(help="Build and inspect training datasets.", no_args_is_help=True)
train_app.add_typer(dataset_app, name="dataset")

UrlOption = Annotated[str | None, typer.Option(help="Trainer base URL.", show_default=False)]
KeyOption = Annotated[str | None, typer.Option(envvar="REFINERY_API_KEY", show_default=False)]


def _client(url: str | None, api_key: str | None) -> TrainerClient:
    from clients.trainer import TrainerClient

    return TrainerClient(url, api_key=api_key)


def parse_source(text: str) -> dict[str, Any]:
    """``planner`` · ``synth`` · ``planner=URL`` · ``episodes:N[:SEED]`` · a JSONL path."""
    name, _, url = text.partition("=")
    if name in {"planner", "synth"}:
        return {"service": name, "url": url} if url else {"service": name}
    if text.startswith("episodes:"):
        parts = text.split(":")
        try:
            spec = {"n": int(parts[1]), "seed": int(parts[2]) if len(parts) > 2 else 0}
        except (IndexError, ValueError):
            raise typer.BadParameter(f"{text!r}: expected episodes:N or episodes:N:SEED") from None
        return {"episodes": spec}
    return {"path": str(Path(text).expanduser().resolve())}


def parse_hyper(pairs: list[str]) -> dict[str, Any]:
    """``key=value`` pairs; values are read as JSON when they parse (numbers, true, objects)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{pair!r}: expected key=value")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _dataset_table(data: DatasetOut) -> Table:
    table = Table(title=f"dataset {data.dataset_id} ({data.kind})", title_justify="left")
    table.add_column("statistic")
    table.add_column("value", overflow="fold")
    for key, value in data.stats.items():
        if key != "pulled":
            table.add_row(key, value if isinstance(value, str) else json.dumps(value))
    return table


@dataset_app.command("build")
def dataset_build(
    kind: Annotated[str, typer.Argument(help="repair_sft, tool_sft, evo_pairs, solar, …")],
    source: Annotated[
        list[str],
        typer.Option(help="planner · synth · planner=URL · episodes:N[:SEED] · FILE.jsonl"),
    ],
    margin: Annotated[float | None, typer.Option(help="evo_pairs: least VES gap.")] = None,
    min_ves_gain: Annotated[float | None, typer.Option(help="repair_sft: least gain.")] = None,
    proposer: Annotated[list[str] | None, typer.Option(help="Keep these proposers.")] = None,
    max_rows: Annotated[int | None, typer.Option(help="Keep the first rows only.")] = None,
    out: Annotated[Path | None, typer.Option(help="Also write the rows (JSONL) here.")] = None,
    url: UrlOption = None,
    api_key: KeyOption = None,
) -> None:
    """Pull the sources and build a dataset; print its statistics."""
    console = Console(highlight=False)
    filters = {"margin": margin, "min_ves_gain": min_ves_gain, "max_rows": max_rows}
    filters = {k: v for k, v in filters.items() if v is not None}
    if proposer:
        filters["proposers"] = proposer
    client = _client(url, api_key)
    with service_errors("trainer", client.base_url), client:
        with console.status(f"building {kind}…"):
            data = client.build_dataset(kind, [parse_source(s) for s in source], filters=filters)
        console.print(_dataset_table(data))
        if out is not None:
            out.write_bytes(client.download(data.dataset_id))
            console.print(f"wrote {out}")
    console.print(f"dataset {data.dataset_id}: {data.rows} rows")


def follow(client: TrainerClient, job: JobOut, console: Console, poll_s: float = 0.5) -> JobOut:
    """Poll the job with a progress bar (step / total, last loss) until it finishes."""
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task(f"training {job.job_id[:8]}", total=None, detail=job.status)
        while job.status in {"queued", "running"}:
            time.sleep(poll_s)
            job = client.job(job.job_id)
            state = job.progress
            curve = state.get("loss_curve") or []
            loss = f" loss {curve[-1][1]:.4f}" if curve else ""
            detail = f"{state.get('stage', job.status)} {state.get('step', 0)}/"
            detail += f"{state.get('total_steps') or '?'}{loss}"
            progress.update(bar, total=state.get("total_steps"), completed=state.get("step", 0))
            progress.update(bar, detail=detail)
    return job


@train_app.command("run")
def run(
    kind: Annotated[str, typer.Argument(help="sft, dpo, solar or grpo_sparse.")],
    data: Annotated[str, typer.Argument(help="Dataset id from `refinery train dataset build`.")],
    base: Annotated[
        str, typer.Option(help="tiny, smollm2-135m, a checkpoint folder or a hub id.")
    ] = "tiny",
    hyper: Annotated[list[str] | None, typer.Option(help="key=value (repeat).")] = None,
    wait: Annotated[
        bool, typer.Option(help="Follow the job to its end; --no-wait returns once queued.")
    ] = True,
    url: UrlOption = None,
    api_key: KeyOption = None,
) -> None:
    """Queue a train job and follow its progress (--no-wait: return once queued); exit 0 if
    it succeeds, 1 if not."""
    console = Console(highlight=False)
    client = _client(url, api_key)
    with service_errors("trainer", client.base_url), client:
        job = client.train(kind, data, base=base, hyper=parse_hyper(hyper or []))
        console.print(f"job {job.job_id} {job.status}")
        if not wait:
            raise typer.Exit(0)
        job = follow(client, job, console)
    if job.status != "succeeded":
        error = job.error or {}
        console.print(f"[bold red]job {job.job_id} {job.status}[/]: {error.get('message', '')}")
        if error.get("last_checkpoint"):
            console.print(f"last checkpoint kept: {error['last_checkpoint']}")
        raise typer.Exit(1)
    result = job.result or {}
    metrics = result.get("metrics", {})
    console.print(
        f"model {result.get('model_id')}: {metrics.get('steps')} steps, "
        f"final loss {metrics.get('final_loss', float('nan')):.4f} → {result.get('path')}"
    )


@train_app.command("models")
def models(url: UrlOption = None, api_key: KeyOption = None) -> None:
    """List trained checkpoints."""
    client = _client(url, api_key)
    with service_errors("trainer", client.base_url), client:
        found = client.models()
    table = Table(title="models", title_justify="left")
    table.add_column("model", no_wrap=True)
    for column in ("kind", "base", "dataset", "steps", "published", "path"):
        table.add_column(column, overflow="fold")
    for m in found:
        table.add_row(
            m.model_id,
            m.kind,
            m.base,
            m.dataset_id,
            str(m.metrics.get("steps", "")),
            m.published_as or "",
            m.path,
        )
    Console(highlight=False).print(table)


@train_app.command("publish")
def publish(
    model_id: Annotated[str, typer.Argument(help="A model id from `refinery train models`.")],
    planner_url: Annotated[
        str | None, typer.Option(help="Planner to register with.", show_default=False)
    ] = None,
    url: UrlOption = None,
    api_key: KeyOption = None,
) -> None:
    """Register the checkpoint with the planner as proposer hf:<model_id>."""
    client = _client(url, api_key)
    with service_errors("trainer", client.base_url), client:
        done = client.publish(model_id, planner_url=planner_url)
    Console(highlight=False).print(f"published {model_id} as {done.proposer}")
