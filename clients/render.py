"""Rich views of verifier reports for the CLI."""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from protocol.verifier import ReportOut

__all__ = ["render_report"]

_YES = Text("✓", style="green")
_NO = Text("✗", style="bold red")


def _mark(ok: bool) -> Text:
    return _YES if ok else _NO


def _header(report: ReportOut) -> Text:
    verdict = (
        Text("FEASIBLE", style="bold green")
        if report.feasible
        else Text("NOT FEASIBLE", style="bold red")
    )
    return Text.assemble(
        verdict,
        "  executable ",
        _mark(report.executable),
        f"  VES {report.ves:.3f}",
        f"  duration {report.duration_s:.2f} s",
        f" ({report.duration_frames} frames @ {report.fps} fps)",
    )


def _constraints(report: ReportOut) -> Table:
    table = Table(title="constraints", title_justify="left", expand=False)
    for column, justify in (
        ("id", "left"),
        ("kind", "left"),
        ("type", "left"),
        ("ok", "center"),
        ("score", "right"),
        ("message", "left"),
    ):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for c in report.constraints:
        table.add_row(
            c.id,
            c.kind,
            "hard" if c.hard else "soft",
            _mark(c.satisfied),
            f"{c.score:.2f}",
            c.message or "",
        )
    return table


def _components(report: ReportOut) -> Text:
    c = report.components
    rubric = "  ".join(f"{name} {value:.2f}" for name, value in c.rubric.items())
    return Text(
        f"components  E {c.E}  H {c.H:.2f}  S {c.S:.2f}  Q {c.Q:.2f}"
        + (f"   (Q: {rubric})" if rubric else "")
    )


def _errors(report: ReportOut) -> Text:
    lines = Text("execution errors", style="bold red")
    for error in report.errors:
        where = f"shot {error.shot}: " if error.shot is not None else ""
        lines.append(f"\n  ✗ {where}{error.code}: {error.message}")
    return lines


def render_report(report: ReportOut, console: Console) -> None:
    """Header (verdict, executable, VES, duration), constraints, components, exec errors."""
    parts: list[Text | Table] = [_header(report)]
    if report.constraints:
        parts.append(_constraints(report))
    else:
        parts.append(Text("constraints  (the ledger is empty)", style="dim"))
    parts.append(_components(report))
    if report.errors:
        parts.append(_errors(report))
    console.print(Group(*parts))
