"""The docs name only benchmarks that exist, and docs/benchmarks.md stays a results page.

The benchmark names are read from ``benchmarks/__main__.py`` with :mod:`ast` (every
``app.command("<name>", …)``), so no harness is imported or run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "benchmarks" / "__main__.py"
RESULTS = ROOT / "docs" / "benchmarks.md"
MAX_RESULTS_LINES = 500
# ``python -m benchmarks <name>``, also when a Markdown line break falls inside the command.
COMMAND = re.compile(r"python\s+-m\s+benchmarks\s+([A-Za-z0-9][\w-]*)")


def registered_benchmarks() -> set[str]:
    """The names ``app.command`` registers in benchmarks/__main__.py."""
    names = set()
    for node in ast.walk(ast.parse(MAIN.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr != "command" or not node.args:
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            names.add(first.value)
    return names


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def named_benchmarks(path: Path) -> list[tuple[int, str]]:
    """Each ``python -m benchmarks <name>`` in a file, as (line, name)."""
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(1)) for match in COMMAND.finditer(text)
    ]


def test_the_registry_is_read() -> None:
    names = registered_benchmarks()
    assert {"verifier", "planner", "trainer", "trainer-select"} <= names


def test_docs_name_only_registered_benchmarks() -> None:
    names = registered_benchmarks()
    unknown = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in doc_files()
        for line, name in named_benchmarks(path)
        if name not in names
    ]
    assert not unknown, "no such benchmark in benchmarks/__main__.py:\n" + "\n".join(unknown)


def test_the_results_page_names_every_benchmark() -> None:
    named = {name for _, name in named_benchmarks(RESULTS)}
    assert registered_benchmarks() <= named


def test_the_results_page_stays_short() -> None:
    lines = len(RESULTS.read_text(encoding="utf-8").splitlines())
    assert lines < MAX_RESULTS_LINES, f"docs/benchmarks.md has {lines} lines"
