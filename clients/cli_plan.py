"""``refinery plan``: plan a task on the planner, show the rounds, export and render."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

if TYPE_CHECKING:
    from clients.planner import PlannerClient
    from services.planner.protocol import PlanResponse

_ROUND_COLUMNS = (
    SpinnerColumn(),
    TextColumn("{task.description}"),
    BarColumn(),
    TextColumn("round {task.completed:.0f}/{task.total:.0f}"),
    TextColumn("VES {task.fields[ves]}"),
    TimeElapsedColumn(),
)


class _RoundDisplay:
    """One progress bar per branch, moved by the planner's draft and round events."""

    def __init__(self, progress: Progress, max_rounds: int) -> None:
        self.progress, self.max_rounds = progress, max_rounds
        self.bars: dict[int, TaskID] = {}

    def __call__(self, event: dict[str, Any]) -> None:
        branch = int(event.get("branch", 0))
        if event["event"] == "draft":
            self.bars[branch] = self.progress.add_task(
                f"{event['proposer']} (draft {event['ves']:.3f})",
                total=self.max_rounds,
                ves=f"{event['ves']:.3f}",
            )
        elif event["event"] == "round" and branch in self.bars:
            ves = event["ves_after"] if event["accepted"] else event["ves_before"]
            self.progress.update(self.bars[branch], completed=event["round"], ves=f"{ves:.3f}")


def _rounds(plan: PlanResponse) -> Table:
    table = Table(title=f"rounds ({plan.branches[0].proposer} first)", title_justify="left")
    for column in ("round", "proposer", "ops", "VES before", "VES after", "accepted"):
        table.add_column(column)
    for r in plan.rounds:
        ops = ", ".join(op["op"] for op in (r.patch or {}).get("ops", [])) or "—"
        table.add_row(
            str(r.round),
            r.proposer,
            ops,
            f"{r.ves_before:.3f}",
            f"{r.ves_after:.3f}",
            "✓" if r.accepted else "·",
        )
    return table


def _branches(plan: PlanResponse) -> Table:
    table = Table(title="branches", title_justify="left")
    for column in ("proposer", "final VES", "feasible", "rounds", "error"):
        table.add_column(column)
    for b in plan.branches:
        table.add_row(
            b.proposer,
            f"{b.final_ves:.3f}",
            "✓" if b.feasible else "✗",
            str(b.rounds),
            b.error or "",
        )
    return table


def _render(client: PlannerClient, plan_id: str, out: Path, console: Console) -> None:
    job = client.render(plan_id)
    columns = (
        SpinnerColumn(),
        TextColumn("rendering {task.fields[status]}"),
        BarColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("render", total=1.0, status=job.status)
        while job.status in {"queued", "running"}:
            time.sleep(0.3)
            job = client.job(job.job_id)
            progress.update(
                bar, completed=float(job.progress.get("fraction", 0.0)), status=job.status
            )
    if job.status != "succeeded":
        message = (job.error or {}).get("message", job.status)
        from clients.errors import RefineryClientError

        raise RefineryClientError(f"render {job.job_id} {job.status}: {message}")
    out.write_bytes(client.job_output(job.job_id))
    console.print(f"rendered {out} ({job.result.get('duration_s', '?')} s)")


def plan(
    task: Annotated[Path, typer.Argument(help="Task.1 JSON file.")],
    timeline: Annotated[Path | None, typer.Option(help="Repair this Timeline.1 instead.")] = None,
    proposer: Annotated[str, typer.Option(help="search, llm or hf:<checkpoint>.")] = "search",
    teacher: Annotated[list[str] | None, typer.Option(help="Extra branches (repeat).")] = None,
    max_rounds: Annotated[int, typer.Option(help="Repair rounds at most.")] = 8,
    candidates: Annotated[int, typer.Option(help="Candidates per round.")] = 8,
    seed: Annotated[int, typer.Option(help="Seed: the same seed plans the same cut.")] = 0,
    otio: Annotated[Path | None, typer.Option(help="Write the plan as .otio here.")] = None,
    render: Annotated[Path | None, typer.Option(help="Render the plan to this MP4.")] = None,
    make_media: Annotated[
        bool, typer.Option(help="Generate missing example media (ffmpeg lavfi) first.")
    ] = False,
    media_root: Annotated[
        Path, typer.Option(envvar="REFINERY_MEDIA_ROOT", help="Where media URIs resolve.")
    ] = Path("."),
    media_url_base: Annotated[
        str | None,
        typer.Option(
            envvar="REFINERY_MEDIA_URL_BASE",
            help="The media root as editors see it (e.g. /Volumes/Projects/reel): the .otio "
            "names media there instead of the planner's file:// URLs.",
            show_default=False,
        ),
    ] = None,
    url: Annotated[str | None, typer.Option(help="Planner base URL.", show_default=False)] = None,
    api_key: Annotated[
        str | None, typer.Option(envvar="REFINERY_API_KEY", show_default=False)
    ] = None,
) -> None:
    """Plan TASK on the planner service; exit 0 if feasible, 1 if not, 2 on errors."""
    from clients.cli import _read_json, service_errors

    console = Console(highlight=False)
    task_body = _read_json(task)
    timeline_body = _read_json(timeline) if timeline is not None else None
    if make_media:
        from services.planner.export.media import generate_example_media
        from services.verifier.protocol import TaskIn

        made = generate_example_media(TaskIn.model_validate(task_body).to_task(), media_root)
        if made:
            console.print(f"generated {len(made)} media files under {media_root}")
    from clients.planner import PlannerClient
    from clients.render import render_report

    client = PlannerClient(url, api_key=api_key)
    with service_errors("planner", client.base_url), client:
        with Progress(*_ROUND_COLUMNS, console=console, transient=True) as progress:
            result = client.plan(
                task_body,
                timeline=timeline_body,
                proposer=proposer,
                on_event=_RoundDisplay(progress, max_rounds),
                teachers=teacher or [],
                max_rounds=max_rounds,
                candidates=candidates,
                seed=seed,
            )
        console.print(_rounds(result))
        if len(result.branches) > 1:
            console.print(_branches(result))
        render_report(result.report, console)
        console.print(
            f"plan {result.plan_id}: VES {result.ves:.3f} (draft "
            f"{result.draft_ves:.3f}) in {result.elapsed_s:.2f} s"
        )
        if otio is not None:
            otio.write_bytes(client.otio(result.plan_id, media_url_base=media_url_base))
            console.print(f"wrote {otio}")
        if render is not None:
            _render(client, result.plan_id, render, console)
    raise typer.Exit(0 if result.feasible else 1)
