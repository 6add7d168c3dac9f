"""The vocabulary every synth stage shares: tools, calls, ground truth, verdicts. Pure.

A *tool* is an OpenAI function schema, kept as the plain dict it arrives as::

    {"type": "function", "function": {"name": "get_weather", "description": "...",
     "parameters": {"type": "object", "properties": {...}, "required": [...]}}}

A :class:`Call` is one function call with decoded arguments. A :class:`GroundTruth` is what
stage 1 samples: the category, the candidate tools shown to the model (the functions the
answer uses plus distractors, in presentation order) and the calls that answer it (none for
``irrelevance``). Stage 2 derives a query from it, stage 3 derives calls from the query;
each check returns a :class:`Verdict` whose :class:`Issue` list is the feedback the next
refinement round receives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

__all__ = [
    "CATEGORIES",
    "Call",
    "Category",
    "GroundTruth",
    "Issue",
    "Tool",
    "Verdict",
    "parameters",
    "tool_name",
]

Category = Literal["simple", "multiple", "parallel", "parallel_multiple", "irrelevance"]
CATEGORIES: tuple[Category, ...] = (
    "simple",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)
"""simple: one call of the only candidate · multiple: one call of the right function among
k candidates · parallel: one function called several times · parallel_multiple: several
functions, some several times · irrelevance: no candidate fits, the answer is no call."""

Tool = dict[str, Any]
"""An OpenAI function schema (``{"type": "function", "function": {...}}``)."""


def tool_name(tool: Mapping[str, Any]) -> str:
    return tool["function"]["name"]


def parameters(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's parameters JSON Schema (an ``object`` schema; empty when it takes none)."""
    return tool["function"].get("parameters") or {"type": "object", "properties": {}}


class Call(NamedTuple):
    """One function call: ``name`` and its decoded JSON ``arguments``."""

    name: str
    arguments: dict[str, Any]

    def wire(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` item (arguments as a JSON object, not a string)."""
        return {"type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class GroundTruth:
    """Stage 1's answer key.

    ``features`` records what the balancer counted for this sample, e.g.
    ``{"functions": [...], "size": 2, "param_types": [...], "optional_used": 1}``.
    """

    category: Category
    tools: tuple[Tool, ...]
    calls: tuple[Call, ...]
    features: dict[str, Any] = field(default_factory=dict)

    @property
    def functions(self) -> tuple[str, ...]:
        """The distinct function names the answer calls, in first-call order."""
        return tuple(dict.fromkeys(call.name for call in self.calls))


class Issue(NamedTuple):
    """One thing a check found wrong: a stable ``code``, a sentence, and where."""

    code: str
    message: str
    call: int | None = None
    param: str | None = None


@dataclass(frozen=True)
class Verdict:
    ok: bool
    issues: tuple[Issue, ...] = ()

    @classmethod
    def of(cls, issues: Sequence[Issue]) -> Verdict:
        return cls(ok=not issues, issues=tuple(issues))
