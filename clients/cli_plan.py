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

from clients.cli_common import fail, read_json, service_errors

if TYPE_CHECKING:
    from clients.planner import PlannerClient
    from protocol.planner import PlanResponse

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


def _task_from_media(
    client: PlannerClient,
    media: list[Path],
    *,
    music: list[Path],
    brief: str | None,
    media_root: Path,
    make_media: bool,
    console: Console,
) -> dict[str, Any]:
    """A ledger-less Task.1 from footage, music and a brief; the planner compiles the ledger."""
    from clients.cli_ingest import analyze

    if not brief or not brief.strip():
        raise fail("--media needs --brief: one sentence saying what the cut should be")
    if make_media:
        _make_footage(media, console)
    analysis = analyze(client, media, music, media_root=media_root, console=console)
    name = media[0].resolve().name
    return {
        "schema": "Task.1",
        "id": name if name.replace("-", "").replace("_", "").isalnum() else "footage",
        "fps": 30,
        "brief": {"text": brief},
        "clips": analysis["clips"],
        "music": analysis["music"],
    }


def _make_footage(media: list[Path], console: Console) -> None:
    from protocol.footage import find_spec, generate_footage

    for folder in media:
        spec = find_spec(folder if folder.is_dir() else folder.parent)
        if spec is None:
            continue
        made = generate_footage(spec)
        if made:
            console.print(f"generated {len(made)} media files from {spec}")


def _make_task_media(task_body: dict[str, Any], media_root: Path, console: Console) -> None:
    from protocol.media import generate_example_media
    from protocol.verifier import TaskIn

    made = generate_example_media(TaskIn.model_validate(task_body).to_task(), media_root)
    if made:
        console.print(f"generated {len(made)} media files under {media_root}")


def _plan_live(
    client: PlannerClient,
    task_body: dict[str, Any],
    timeline_body: dict[str, Any] | None,
    proposer: str,
    options: dict[str, Any],
    console: Console,
) -> PlanResponse:
    """Plan with one live progress bar per branch."""
    with Progress(*_ROUND_COLUMNS, console=console, transient=True) as progress:
        display = _RoundDisplay(progress, options["max_rounds"])
        return client.plan(
            task_body, timeline=timeline_body, proposer=proposer, on_event=display, **options
        )


def _show(result: PlanResponse, console: Console) -> None:
    if result.compiled is not None:
        from clients.cli_ingest import print_compiled

        compiled = result.compiled.model_dump()
        if result.infeasible is not None:  # the block below names the ledger's conflicts
            compiled["conflicts"] = [c for c in compiled["conflicts"] if not c["entries"]]
        print_compiled(compiled, console)
    from clients.render import render_report

    console.print(_rounds(result))
    if len(result.branches) > 1:
        console.print(_branches(result))
    render_report(result.report, console)
    if result.infeasible is not None:
        _print_infeasible(result, console)
    console.print(
        f"plan {result.plan_id}: VES {result.ves:.3f} (draft "
        f"{result.draft_ves:.3f}) in {result.elapsed_s:.2f} s"
    )
    if result.ves_upper_bound is not None:
        none_meets = " (no cut meets every hard entry)" if result.infeasible else ""
        console.print(
            f"upper bound {result.ves_upper_bound:.3f}{none_meets}: the plan is at most "
            f"{result.gap_to_bound or 0.0:.3f} below the best cut of this pool"
        )


def _print_infeasible(result: PlanResponse, console: Console) -> None:
    """Why the ledger cannot be met, and what the cut was planned under instead."""
    infeasible = result.infeasible
    assert infeasible is not None
    console.print("[bold red]cannot be met with this pool and music:[/]")
    for conflict in infeasible.conflicts:
        words = ", ".join(f"“{s.text}”" for s in conflict.spans if s.text)
        said = f" ({words})" if words else ""
        console.print(f"  {' + '.join(conflict.entries)}{said}: {conflict.message}")
    relaxed = ", ".join(infeasible.relaxed)
    outcome = (
        "meets every other hard entry"
        if infeasible.relaxed_feasible
        else "still misses some other hard entry"
    )
    console.print(
        f"  planned with {relaxed} relaxed: the cut is {result.report.duration_s:.2f} s and "
        f"{outcome} (VES {infeasible.relaxed_ves:.3f} under the relaxed ledger)"
    )


Patience = Annotated[
    int, typer.Option(min=1, help="Rounds in a row with nothing accepted before a stop.")
]
MakeMedia = Annotated[bool, typer.Option(help="Generate missing example media (ffmpeg) first.")]


def plan(
    task: Annotated[
        Path | None, typer.Argument(help="Task.1 JSON file (or plan from --media).")
    ] = None,
    timeline: Annotated[Path | None, typer.Option(help="Repair this Timeline.1 instead.")] = None,
    media: Annotated[
        list[Path] | None, typer.Option(help="Plan from this footage folder or file (repeat).")
    ] = None,
    music: Annotated[list[Path] | None, typer.Option(help="Music track(s) for --media.")] = None,
    brief: Annotated[str | None, typer.Option(help="One sentence of brief, for --media.")] = None,
    proposer: Annotated[str, typer.Option(help="search, exact, llm or hf:<id>.")] = "search",
    teacher: Annotated[list[str] | None, typer.Option(help="Extra branches (repeat).")] = None,
    max_rounds: Annotated[int, typer.Option(help="Repair rounds at most.")] = 8,
    candidates: Annotated[int, typer.Option(help="Candidates per round.")] = 8,
    patience: Patience = 1,
    seed: Annotated[int, typer.Option(help="Seed: the same seed plans the same cut.")] = 0,
    otio: Annotated[Path | None, typer.Option(help="Write the plan as .otio here.")] = None,
    render: Annotated[Path | None, typer.Option(help="Render the plan to this MP4.")] = None,
    make_media: MakeMedia = False,
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
    """Plan TASK (or --media with --brief) on the planner; exit 0 if feasible, 1 if not, 2 on
    errors."""
    if (task is None) == (not media):
        raise fail("give either a TASK file or --media (with --music and --brief)")
    console = Console(highlight=False)
    task_body, timeline_body = _bodies(task, timeline)
    if make_media and task_body is not None:
        _make_task_media(task_body, media_root, console)
    from clients.planner import PlannerClient

    client = PlannerClient(url, api_key=api_key)
    with service_errors("planner", client.base_url), client:
        if task_body is None:
            task_body = _task_from_media(
                client, media or [], music=music or [], brief=brief, media_root=media_root,
                make_media=make_media, console=console,
            )  # fmt: skip
        options = {"teachers": teacher or [], "max_rounds": max_rounds,
                   "candidates": candidates, "patience": patience, "seed": seed}  # fmt: skip
        result = _plan_live(client, task_body, timeline_body, proposer, options, console)
        _show(result, console)
        _export(client, result.plan_id, otio, render, media_url_base, console)
    raise typer.Exit(0 if result.feasible else 1)


def _bodies(task: Path | None, timeline: Path | None) -> tuple[Any, Any]:
    """The task's and the starting timeline's JSON, each None when not given."""
    task_body = read_json(task) if task is not None else None
    timeline_body = read_json(timeline) if timeline is not None else None
    return task_body, timeline_body


def _export(
    client: PlannerClient,
    plan_id: str,
    otio: Path | None,
    render: Path | None,
    media_url_base: str | None,
    console: Console,
) -> None:
    """Write the plan as .otio and render it to MP4, each when asked."""
    if otio is not None:
        otio.write_bytes(client.otio(plan_id, media_url_base=media_url_base))
        console.print(f"wrote {otio}")
    if render is not None:
        _render(client, plan_id, render, console)
