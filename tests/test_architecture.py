"""The house rules of docs/architecture.md, read from the source with :mod:`ast`.

Every ``import`` and ``from … import`` counts as an edge, wherever it stands: at module level,
under ``if TYPE_CHECKING:``, or inside a function. The tests fail, naming the module or the
function, when an import circle exists, when clients/ imports anything but protocol/ and
clients/, when a lower floor imports a higher one, or when a function outside tests runs past
60 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("services", "clients", "protocol", "benchmarks")
MAX_FUNCTION_LINES = 60

FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "common",
        (
            "services",
            "services.common",
            "services.common.base_models",
            "services.common.body",
            "services.common.db",
            "services.common.errors",
            "services.common.logs",
            "services.common.metrics",
            "services.common.middleware",
            "services.common.openai_chat",
            "services.common.openapi",
            "services.common.responses",
            "services.common.serve",
            "services.common.settings",
            "services.common.tokenizer_files",
            "services.common.upstreams",
        ),
    ),
    (
        "verifier domain",
        (
            "services.verifier",
            "services.verifier.bound",
            "services.verifier.errors",
            "services.verifier.executability",
            "services.verifier.feasibility",
            "services.verifier.ledger",
            "services.verifier.limits",
            "services.verifier.patches",
            "services.verifier.pool",
            "services.verifier.score",
            "services.verifier.task",
            "services.verifier.text",
            "services.verifier.timeline",
            "services.verifier.view",
        ),
    ),
    ("protocol", ("protocol.*",)),
    ("clients", ("clients.*",)),
    (
        "services",
        (
            "services.common.app",
            "services.common.job_api",
            "services.common.jobs",
            "services.common.worker",
            "services.verifier.api",
            "services.verifier.app",
            "services.verifier.compiled",
            "services.verifier.config",
            "services.verifier.service",
            "services.planner.*",
            "services.synth.*",
        ),
    ),
    ("trainer", ("services.trainer.*",)),
    ("benchmarks", ("benchmarks.*",)),
)
"""Bottom to top. ``name.*`` is the package and everything under it; a bare name is that
module alone. A module may import its own floor and the floors below it."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


@cache
def _tree(name: str) -> ast.Module:
    return ast.parse(modules()[name].read_text(encoding="utf-8"), filename=str(modules()[name]))


def _known(name: str) -> str | None:
    """The project module ``name`` names (a name inside a module names that module)."""
    while name and name not in modules():
        name = name.rpartition(".")[0]
    return name or None


def _imported(name: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = name.split(".")
        if modules()[name].name != "__init__.py":
            package.pop()
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([node.module] if node.module else [])])
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        yield submodule if submodule in modules() else base


@cache
def imports() -> dict[str, frozenset[str]]:
    """Module → the project modules it imports (its own name excluded)."""
    graph = {}
    for name in modules():
        edges = set()
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.update(_known(target) for target in _imported(name, node))
        graph[name] = frozenset(edges - {None, name})
    return graph


def circles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def floor_of(name: str) -> int | None:
    """The floor a module lives on (0 at the bottom); None when no floor names it."""
    for level, (_, members) in enumerate(FLOORS):
        for member in members:
            if member.endswith(".*"):
                package = member[:-2]
                if name == package or name.startswith(package + "."):
                    return level
            elif name == member:
                return level
    return None


def test_every_module_has_a_floor():
    homeless = [name for name in modules() if floor_of(name) is None]
    assert homeless == [], f"modules on no floor of docs/architecture.md: {homeless}"


def test_no_import_circle():
    found = circles(dict(imports()))
    graph = imports()
    described = [
        " ↔ ".join(component)
        + " ("
        + "; ".join(f"{a} → {', '.join(sorted(graph[a] & set(component)))}" for a in component)
        + ")"
        for component in found
    ]
    assert described == [], "import circles:\n" + "\n".join(described)


def test_clients_import_protocol_and_clients_only():
    wrong = [
        f"{name} imports {target}"
        for name, targets in sorted(imports().items())
        if name.split(".")[0] == "clients"
        for target in sorted(targets)
        if target.split(".")[0] not in ("clients", "protocol")
    ]
    assert wrong == [], "clients/ reaches past protocol/:\n" + "\n".join(wrong)


def test_no_floor_imports_a_higher_one():
    upward = [
        f"{name} ({FLOORS[floor_of(name)][0]}) imports {target} ({FLOORS[floor_of(target)][0]})"
        for name, targets in sorted(imports().items())
        for target in sorted(targets)
        if floor_of(name) is not None
        and floor_of(target) is not None
        and floor_of(target) > floor_of(name)
    ]
    assert upward == [], "imports running up the floors:\n" + "\n".join(upward)


def test_no_function_runs_past_60_lines():
    long = [
        f"{modules()[name].relative_to(ROOT)}:{node.lineno} {node.name} "
        f"({node.end_lineno - node.lineno + 1} lines)"
        for name in sorted(modules())
        for node in ast.walk(_tree(name))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], f"functions past {MAX_FUNCTION_LINES} lines:\n" + "\n".join(long)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": frozenset({"b"}), "b": frozenset({"a"})}, [["a", "b"]]),
        ({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"})}, [["a", "b", "c"]]),
        ({"a": frozenset({"b"}), "b": frozenset(), "c": frozenset({"b"})}, []),
    ],
)
def test_circles_finds_what_is_there_and_nothing_else(graph, expected):
    assert circles(graph) == expected


def test_an_import_inside_a_function_is_an_edge():
    assert "clients.cli_ingest" in imports()["clients.cli_plan"]  # imported lazily there
    assert floor_of("services.verifier.pool") < floor_of("protocol.verifier.task")
