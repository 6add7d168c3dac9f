"""Stage 1 of ToolLoop: sample feature-balanced ground truths (category, candidates, calls).

Every choice the sampler makes — category, function, combination size, distractors,
optional parameters — is weighted by the inverse of how often it was made before, so a
long run uses the catalog evenly instead of the way plain random draws drift. All
randomness comes from one ``random.Random(seed)``: the same seed replays the same
sequence, which is how a resumed job regenerates exactly the samples it had.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import mul, sub
from typing import Any

from services.synth.calls import CATEGORIES, Call, Category, GroundTruth, Tool, parameters
from services.synth.catalog import BUILTIN_DOMAINS
from services.synth.values import sample_arguments

__all__ = [
    "Sampler",
    "UnrealisableCatalogError",
    "normalise_mix",
    "normalised_entropy",
    "param_type",
]

_SIZES: dict[str, tuple[int, ...]] = {
    "multiple": (2, 3, 4),
    "parallel": (2, 3, 4),
    "parallel_multiple": (2, 3),
    "irrelevance": (1, 2, 3),
}
_DISTRACTORS = (0, 1, 2)
_MAX_OPTIONAL = 3
_RENUDGE_EVERY = 25
_PROBES = 4
"""Draws of a function's arguments that must succeed before the sampler uses it."""
_DECAY: dict[int, list[float]] = {2: [], 3: []}


def _decay(spread: int, *, power: int = 3) -> list[float]:
    """Weights ``1 / (1 + d) ** power`` of options used d = 0..spread times more than the
    least used one (a growing table, so a draw costs no arithmetic per option)."""
    table = _DECAY[power]
    while len(table) <= spread:
        table.append(1.0 / (1 + len(table)) ** power)
    return table


def normalised_entropy(counts: Mapping[str, int], k: int) -> float:
    """Shannon entropy of ``counts`` divided by ``log k`` (1.0 = perfectly even over k)."""
    total = sum(counts.values())
    if k <= 1:
        return 1.0
    if total <= 0:
        return 0.0
    entropy = -sum(c / total * math.log(c / total) for c in counts.values() if c > 0)
    return entropy / math.log(k)


def normalise_mix(mix: Mapping[str, float] | None) -> dict[Category, float]:
    """Category shares summing to 1; equal shares when ``mix`` is None.

    Raises ValueError naming an unknown category or a share that is negative or not finite.
    """
    if mix is None:
        return {category: 1 / len(CATEGORIES) for category in CATEGORIES}
    unknown = [key for key in mix if key not in CATEGORIES]
    if unknown:
        raise ValueError(
            f"unknown categor{'y' if len(unknown) == 1 else 'ies'} {unknown} in mix: "
            f"use {list(CATEGORIES)}"
        )
    for key, share in mix.items():
        if not isinstance(share, int | float) or not math.isfinite(share) or share < 0:
            raise ValueError(f"mix share of {key!r} must be a finite number >= 0, not {share!r}")
    total = float(sum(mix.values()))
    if total <= 0:
        raise ValueError("mix gives every category a share of 0: give at least one a share > 0")
    return {category: mix.get(category, 0) / total for category in CATEGORIES}


def param_type(schema: Mapping[str, Any]) -> str:
    """The balancing label of a parameter: ``enum`` or its JSON type."""
    if "enum" in schema:
        return "enum"
    declared = schema.get("type", "string")
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), "null")
    return str(declared)


class UnrealisableCatalogError(ValueError):
    """No function of the catalog can be given arguments that satisfy its schema."""


def _probe(tool: Tool) -> tuple[str | None, dict[str, str]]:
    """Why ``tool``'s required arguments cannot be drawn (None when they can), and why each
    optional parameter that cannot be drawn cannot (seeded apart from any job)."""
    rng = random.Random(0)
    schema = parameters(tool)
    try:
        for _ in range(_PROBES):
            sample_arguments(tool, rng)
    except (ValueError, KeyError, TypeError, re.error) as error:
        return f"its required arguments cannot be drawn: {error}", {}
    optional: dict[str, str] = {}
    required = set(schema.get("required") or ())
    for key in schema.get("properties") or {}:
        if key in required:
            continue
        try:
            for _ in range(_PROBES):
                sample_arguments(tool, rng, optional=[key])
        except (ValueError, KeyError, TypeError, re.error) as error:
            optional[key] = f"optional parameter {key!r} cannot be drawn: {error}; left out"
    return None, optional


@dataclass(frozen=True)
class _Function:
    index: int
    tool: Tool
    name: str
    domain: str
    optional: tuple[str, ...]
    types: dict[str, str]
    type_set: tuple[str, ...]
    varied: bool
    """Whether two calls can differ (a parallel call needs distinct arguments)."""


def _can_vary(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter admits two different values (not a constant or one-value enum)."""
    return "const" not in schema and len(schema.get("enum", (1, 2))) > 1


class Sampler:
    """Feature-balanced ground truths over ``tools``; iterate it or call :meth:`sample`.

    ``mix`` gives category shares (equal by default; normalised; unknown keys raise
    ValueError). ``domains`` maps function names to domains, used to draw irrelevance
    candidates from other domains than the intent; built-in names default to
    :data:`BUILTIN_DOMAINS`, other unmapped functions count as their own domain.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        seed: int,
        mix: Mapping[str, float] | None = None,
        domains: Mapping[str, str] | None = None,
    ) -> None:
        domains = domains or {}
        usable, left_out = _realisable(tools)
        self.unrealisable: list[dict[str, str]] = left_out
        """``{name, reason}`` of each function (or optional parameter) left out: its
        values cannot be drawn."""
        if tools and not usable:
            raise UnrealisableCatalogError(
                "no function of the catalog can be realised: "
                + "; ".join(f"{u['name']}: {u['reason']}" for u in left_out)
            )
        self._functions = [
            _describe(i, tool, domains, skip=skip) for i, (tool, skip) in enumerate(usable)
        ]
        self.functions = [f.name for f in self._functions]
        """The functions the sampler draws from (every realisable one)."""
        self.mix = normalise_mix(mix)
        self._check_feasible()
        self._rng = random.Random(seed)
        self._done: Counter[str] = Counter()
        self._n = 0
        self._use = [0] * len(self._functions)
        self._shown = [0] * len(self._functions)
        self._counts: Counter[tuple[Any, ...]] = Counter()
        self._varied = [f.index for f in self._functions if f.varied]
        self._nudge = [1.0] * len(self._functions)
        self._by_domain: dict[str, list[int]] = {}
        for f in self._functions:
            self._by_domain.setdefault(f.domain, []).append(f.index)

    def _check_feasible(self) -> None:
        names = [f.name for f in self._functions]
        if not names:
            raise ValueError("the sampler needs at least one tool")
        needs = {
            "multiple": (len(names) >= 2, "at least 2 tools"),
            "parallel": (
                any(f.varied for f in self._functions),
                "a tool with a parameter that can take two values",
            ),
            "parallel_multiple": (len(names) >= 2, "at least 2 tools"),
            "irrelevance": (
                len({f.domain for f in self._functions}) >= 2,
                "tools from at least 2 domains",
            ),
        }
        for category, (ok, what) in needs.items():
            if self.mix[category] > 0 and not ok:
                raise ValueError(f"category {category!r} needs {what}; set its mix share to 0")

    def __iter__(self) -> Iterator[GroundTruth]:
        while True:
            yield self.sample()

    def sample(self) -> GroundTruth:
        """The next ground truth of the seeded sequence."""
        if self._n % _RENUDGE_EVERY == 0:
            self._renudge()
        category = self._next_category()
        build = {
            "simple": self._simple,
            "multiple": self._multiple,
            "parallel": self._parallel,
            "parallel_multiple": self._parallel_multiple,
            "irrelevance": self._irrelevance,
        }[category]
        truth = build()
        self._done[category] += 1
        self._n += 1
        return truth

    # -- choices ----------------------------------------------------------------------------

    def _next_category(self) -> Category:
        """Draw by each category's deficit against its share, so shares track the mix."""
        n = self._n + 1
        deficits = [max(self.mix[c] * n - self._done[c], 0.0) for c in CATEGORIES]
        return self._rng.choices(CATEGORIES, weights=deficits)[0]

    def _balanced(self, key: str, options: Sequence[Any]) -> Any:
        """One of ``options``, weighted by the inverse of how often ``key`` took each."""
        weights = _inverse([self._counts[key, option] for option in options])
        choice = self._rng.choices(options, weights=weights)[0]
        self._counts[key, choice] += 1
        return choice

    def _function(self, pool: Sequence[int] | None = None) -> _Function:
        """Inverse-frequency choice over functions (all, or the indices in ``pool``), nudged
        toward rarely used parameter types; C-level maps keep it cheap."""
        counts = self._use if pool is None else [self._use[i] for i in pool]
        nudges = self._nudge if pool is None else [self._nudge[i] for i in pool]
        low = min(counts)
        decay = _decay(max(counts) - low)
        weights = list(map(mul, nudges, map(decay.__getitem__, map(sub, counts, repeat(low)))))
        index = self._rng.choices(range(len(counts)), weights=weights)[0]
        return self._functions[index if pool is None else pool[index]]

    def _renudge(self) -> None:
        """Favour functions whose parameter types were used less (refreshed every few samples:
        type shares move slowly, and recomputing per draw would dominate the cost)."""
        counts = {t: self._counts["type", t] for t in _TYPE_NAMES}
        mean = sum(counts.values()) / len(_TYPE_NAMES)
        rarity = {t: (mean + 1) / (c + 1) for t, c in counts.items()}
        by_signature: dict[tuple[str, ...], float] = {}
        for f in self._functions:
            if f.type_set not in by_signature:
                score = sum(rarity[t] for t in f.type_set) / len(f.type_set)
                by_signature[f.type_set] = min(max(score, 0.5), 2.0)
        self._nudge = [by_signature[f.type_set] for f in self._functions]

    def _others(
        self, chosen: Sequence[_Function], count: int, *, mode: str, avoid: str | None = None
    ) -> list[_Function]:
        """``count`` tools besides ``chosen`` (and outside domain ``avoid``), least shown first.

        ``mode`` ``same`` favours the chosen functions' domains (harder distractors),
        ``spread`` favours domains not picked yet, anything else is neutral.
        """
        shown, by_domain = self._shown, self._by_domain
        low = min(shown)
        table = _decay(max(shown) - low, power=2)
        weights = list(map(table.__getitem__, map(sub, shown, repeat(low))))
        if mode == "same":
            for domain in {f.domain for f in chosen}:
                for i in by_domain[domain]:
                    weights[i] *= 3
        closed = {f.index for f in chosen} | set(by_domain.get(avoid, ()) if avoid else ())
        for i in closed:
            weights[i] = 0.0
        out: list[_Function] = []
        for _ in range(min(count, len(weights) - len(closed))):
            pick = self._functions[self._rng.choices(range(len(weights)), weights=weights)[0]]
            out.append(pick)
            shown[pick.index] += 1
            weights[pick.index] = 0.0
            if mode == "spread":
                for i in by_domain[pick.domain]:
                    weights[i] /= 4
        return out

    def _distractors(self, chosen: Sequence[_Function], count: int, mode: str) -> list[Tool]:
        return [f.tool for f in self._others(chosen, count, mode=mode)]

    def _optional(self, f: _Function) -> list[str]:
        """Optional parameters for one call: a balanced count, rarely used ones first."""
        count = self._balanced("optional", range(min(len(f.optional), _MAX_OPTIONAL) + 1))
        pool = list(f.optional)
        names: list[str] = []
        for _ in range(count):
            weights = _inverse([self._counts["opt", f.name, p] for p in pool])
            pick = self._rng.choices(pool, weights=weights)[0]
            pool.remove(pick)
            names.append(pick)
            self._counts["opt", f.name, pick] += 1
        return names

    def _calls(self, f: _Function, times: int) -> list[Call]:
        """``times`` calls of ``f`` with pairwise different arguments (some values shared)."""
        optional = self._optional(f)
        first = sample_arguments(f.tool, self._rng, optional=optional)
        calls = [Call(f.name, first)]
        if times == 1:
            self._count_call(f, calls[0])
            return calls
        seen = {_key(first)}
        varying = [k for k in first if f.types[k] != "boolean"] or list(first)
        vary = self._rng.sample(varying, 1 if self._rng.random() < 0.7 else min(2, len(varying)))
        for attempt in range(times * 8):
            if len(calls) == times:
                break
            keep = {} if attempt >= times * 4 else {k: v for k, v in first.items() if k not in vary}
            arguments = sample_arguments(f.tool, self._rng, optional=optional, keep=keep)
            if _key(arguments) not in seen:
                seen.add(_key(arguments))
                calls.append(Call(f.name, arguments))
        for call in calls:
            self._count_call(f, call)
        return calls

    def _count_call(self, f: _Function, call: Call) -> None:
        self._use[f.index] += 1
        for key in call.arguments:
            self._counts["type", f.types[key]] += 1

    # -- categories -------------------------------------------------------------------------

    def _simple(self) -> GroundTruth:
        f = self._function()
        self._shown[f.index] += 1
        return self._truth("simple", [f], self._calls(f, 1), [])

    def _multiple(self) -> GroundTruth:
        size = self._balanced("multiple", _SIZES["multiple"])
        f = self._function()
        self._shown[f.index] += 1
        return self._truth(
            "multiple", [f], self._calls(f, 1), self._distractors([f], size - 1, "same")
        )

    def _parallel(self) -> GroundTruth:
        times = self._balanced("parallel", _SIZES["parallel"])
        f = self._function(self._varied)
        self._shown[f.index] += 1
        extra = self._balanced("parallel.distractors", _DISTRACTORS)
        return self._truth(
            "parallel", [f], self._calls(f, times), self._distractors([f], extra, "same")
        )

    def _parallel_multiple(self) -> GroundTruth:
        width = min(
            self._balanced("parallel_multiple", _SIZES["parallel_multiple"]), len(self._functions)
        )
        chosen: list[_Function] = []
        for _ in range(width):
            names = {f.name for f in chosen}
            chosen.append(self._function([f.index for f in self._functions if f.name not in names]))
        repeatable = [f for f in chosen if f.varied]
        repeats = (
            self._balanced("parallel_multiple.repeats", range(1, len(repeatable) + 1))
            if repeatable
            else 0
        )
        twice = {f.name for f in self._rng.sample(repeatable, repeats)}
        calls: list[Call] = []
        for f in chosen:
            self._shown[f.index] += 1
            calls.extend(self._calls(f, 2 if f.name in twice else 1))
        extra = self._balanced("parallel_multiple.distractors", _DISTRACTORS)
        return self._truth(
            "parallel_multiple", chosen, calls, self._distractors(chosen, extra, "neutral")
        )

    def _irrelevance(self) -> GroundTruth:
        size = self._balanced("irrelevance", _SIZES["irrelevance"])
        intent = self._function()
        optional = self._optional(intent)
        arguments = sample_arguments(intent.tool, self._rng, optional=optional)
        self._count_call(intent, Call(intent.name, arguments))
        picked = self._others([intent], size, mode="spread", avoid=intent.domain)
        tools = [f.tool for f in picked]
        self._rng.shuffle(tools)
        features = _features([], [intent], tools) | {
            "intent": {"name": intent.name, "arguments": arguments},
            "intent_tool": intent.tool,
            "param_types": sorted({intent.types[k] for k in arguments}),
            "optional_used": len(optional),
        }
        return GroundTruth("irrelevance", tuple(tools), (), features)

    def _truth(
        self,
        category: Category,
        chosen: Sequence[_Function],
        calls: Sequence[Call],
        distractors: Sequence[Tool],
    ) -> GroundTruth:
        tools = [f.tool for f in chosen] + list(distractors)
        self._rng.shuffle(tools)
        features = _features(calls, chosen, tools)
        return GroundTruth(category, tuple(tools), tuple(calls), features)


_TYPE_NAMES = ("string", "integer", "number", "boolean", "enum", "array", "object", "none")


def _realisable(
    tools: Sequence[Tool],
) -> tuple[list[tuple[Tool, frozenset[str]]], list[dict[str, str]]]:
    """The tools whose arguments can be drawn, each with the optional parameters to leave
    out, and ``{name, reason}`` of what was left out."""
    usable: list[tuple[Tool, frozenset[str]]] = []
    left_out: list[dict[str, str]] = []
    for tool in tools:
        name = tool["function"]["name"]
        reason, optional = _probe(tool)
        if reason is not None:
            left_out.append({"name": name, "reason": reason})
            continue
        left_out.extend({"name": name, "reason": why} for why in optional.values())
        usable.append((tool, frozenset(optional)))
    return usable, left_out


def _describe(
    index: int, tool: Tool, domains: Mapping[str, str], *, skip: frozenset[str] = frozenset()
) -> _Function:
    name = tool["function"]["name"]
    schema = parameters(tool)
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    types = {key: param_type(sub) for key, sub in properties.items()}
    return _Function(
        index=index,
        tool=tool,
        name=name,
        domain=domains.get(name) or BUILTIN_DOMAINS.get(name) or name,
        optional=tuple(k for k in properties if k not in required and k not in skip),
        types=types,
        type_set=tuple(sorted(set(types.values()))) or ("none",),
        varied=any(_can_vary(sub) for sub in properties.values()),
    )


def _features(
    calls: Sequence[Call], chosen: Sequence[_Function], tools: Sequence[Tool]
) -> dict[str, Any]:
    by_name = {f.name: f for f in chosen}
    types = sorted({by_name[c.name].types[k] for c in calls for k in c.arguments})
    optional = sum(1 for c in calls for k in c.arguments if k in by_name[c.name].optional)
    domains = list(dict.fromkeys(f.domain for f in chosen))
    return {
        "functions": list(dict.fromkeys(c.name for c in calls)),
        "size": len(calls),
        "candidates": len(tools),
        "param_types": types,
        "optional_used": optional,
        "domain": domains[0] if domains else None,
        "domains": sorted(domains),
    }


def _inverse(counts: Sequence[int]) -> list[float]:
    """Inverse-frequency weights: 1 for the least used option, 1/4 for one used once more…"""
    low = min(counts)
    return [1.0 / (1 + count - low) ** 2 for count in counts]


def _key(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False)
