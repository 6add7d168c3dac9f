"""Realistic argument values that always satisfy their JSON Schema.

A parameter's *name* (then its description) picks a pool — ``pickup_city`` draws a city,
``from_currency`` an ISO code, ``attendees`` email addresses — and the schema has the last
word: enums, bounds, formats, patterns, lengths and item counts are always honoured, so a
sampled call is valid by construction and the checker only ever judges the model's calls.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from services.synth.calls import Tool, parameters
from services.synth.catalog import pools
from services.synth.catalog.identifiers import IDENTIFIERS, draw, identifier
from services.synth.catalog.patterns import from_pattern

__all__ = ["sample_arguments", "sample_value"]

_FIRST_DAY = pools.FIRST_DAY
_DAYS = (pools.LAST_DAY - _FIRST_DAY).days
_WORD = re.compile(r"[a-z]+")
_START = frozenset({"start", "in", "departure", "from", "first", "since", "begin", "earliest"})
_START |= {"pickup"}
_END = frozenset({"end", "out", "return", "until", "to", "last", "latest"})


@lru_cache(maxsize=4096)
def _tokens(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(re.sub(r"([a-z])([A-Z])", r"\1_\2", text).lower()))


@lru_cache(maxsize=4096)
def _labels(name: str, description: str) -> tuple[str, ...]:
    """Pool labels for a parameter, best first: an identifier its description or name asks
    for ("ISBN-13 of the book"), rule hits on its name, then on its description."""
    found: list[str] = [label] if (label := identifier(name, description)) else []
    for words in (_tokens(name), _tokens(description)):
        for keys, label in pools.RULES:
            if keys & words:
                label = _keyword_label(_tokens(description)) if label == "keywords" else label
                found.append(label)
    return tuple(dict.fromkeys([*found, "generic"]))


def _keyword_label(words: frozenset[str]) -> str:
    for keys, label in pools.KEYWORD_RULES:
        if keys & words:
            return label
    return "topic"


def _draw(label: str, rng: random.Random) -> str:
    if label in IDENTIFIERS:
        return draw(label, rng)
    if label in pools.GENERATED:
        return pools.GENERATED[label](rng)
    return rng.choice(pools.STRINGS[label])


def _string(schema: Mapping[str, Any], rng: random.Random, name: str) -> str:
    """A pool value when one fits (format first, then name, then description), else one
    generated from the pattern; lengths are enforced last."""
    fmt = schema.get("format")
    labels = _labels(name, schema.get("description", ""))
    if fmt in pools.FORMATS:
        labels = (pools.FORMATS[fmt], *labels)
    pattern = schema.get("pattern")
    lo, hi = schema.get("minLength", 0), schema.get("maxLength", 1_000_000)
    candidates = labels if pattern else labels[:1]
    for label in candidates:
        for _ in range(3 if pattern else 1):
            value = _draw(label, rng)
            if (not pattern or re.search(pattern, value)) and lo <= len(value) <= hi:
                return value
    if pattern:
        for _ in range(20):
            value = from_pattern(pattern, rng)
            if lo <= len(value) <= hi:
                return value
        raise ValueError(f"cannot generate a string of length {lo}..{hi} matching {pattern!r}")
    value = value[:hi].rstrip() or value[:hi]
    return value + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(lo - len(value)))


def _nice(x: float) -> float:
    """Round to two significant-ish digits (347 → 350, 0.0123 → 0.012) like people say."""
    if x == 0:
        return 0.0
    step = 10 ** (math.floor(math.log10(abs(x))) - 1) * (5 if abs(x) >= 10 else 1)
    return round(x / step) * step


def _range(schema: Mapping[str, Any], default: tuple[float, float]) -> tuple[float, float]:
    """The tightest [lo, hi] the bounds allow; open sides take the name's usual range."""
    lows = [schema[key] for key in ("minimum", "exclusiveMinimum") if key in schema]
    highs = [schema[key] for key in ("maximum", "exclusiveMaximum") if key in schema]
    lo, hi = (max(lows) if lows else None), (min(highs) if highs else None)
    if lo is None and hi is None:
        return default
    if lo is None:
        lo = min(default[0], hi - 1) if hi is not None else default[0]
    if hi is None:
        hi = max(default[1], lo + 1)
    return float(lo), float(hi)


def _fits(x: float, schema: Mapping[str, Any]) -> bool:
    ok = schema.get("minimum", -math.inf) <= x <= schema.get("maximum", math.inf)
    ok = ok and schema.get("exclusiveMinimum", -math.inf) < x < schema.get(
        "exclusiveMaximum", math.inf
    )
    step = schema.get("multipleOf")
    return ok and (not step or abs(x / step - round(x / step)) < 1e-9)


def _integer(schema: Mapping[str, Any], rng: random.Random, name: str) -> int:
    words = _WORD.findall(name.lower())
    default = pools.INT_DEFAULTS.get(next((w for w in words if w in pools.INT_DEFAULTS), ""))
    lo, hi = _range(schema, default or (1, 10))
    lo_i, hi_i = math.ceil(lo), math.floor(hi)
    if "exclusiveMinimum" in schema and lo_i <= schema["exclusiveMinimum"]:
        lo_i = math.floor(schema["exclusiveMinimum"]) + 1
    if "exclusiveMaximum" in schema and hi_i >= schema["exclusiveMaximum"]:
        hi_i = math.ceil(schema["exclusiveMaximum"]) - 1
    if schema.get("multipleOf"):
        return int(_multiple(schema, lo_i, hi_i, rng))
    if hi_i > 20 * max(lo_i, 1) and hi_i - lo_i > 100:
        base = max(lo_i, hi_i / 100, 1)
        x = int(_nice(math.exp(rng.uniform(math.log(base), math.log(hi_i)))))
        if lo_i <= x <= hi_i:
            return x
    x = rng.randint(lo_i, hi_i)
    rounded = 5 * round(x / 5)
    return rounded if hi_i - lo_i >= 50 and lo_i <= rounded <= hi_i else x


def _number(schema: Mapping[str, Any], rng: random.Random, name: str) -> float:
    label = next((v for k, v in pools.NUMBER_LABELS if k & _tokens(name)), "generic")
    lo, hi = _range(schema, pools.NUMBER_DEFAULTS[label])
    step = schema.get("multipleOf")
    for _ in range(8):
        if label in ("latitude", "longitude"):
            x = round(
                rng.uniform(max(lo, -60.0), min(hi, 70.0)) if lo < 70 < hi else rng.uniform(lo, hi),
                4,
            )
        elif label == "money" and hi > 100 and lo >= 0:
            base = max(lo, 5)
            x = round(_nice(math.exp(rng.uniform(math.log(base), math.log(min(hi, base * 1000))))))
            x = x if x >= 1000 or rng.random() < 0.6 else round(x - 0.01, 2)
        elif lo > 0 and hi > 100 * lo:
            x = round(_nice(math.exp(rng.uniform(math.log(max(lo, hi / 1000)), math.log(hi)))), 2)
        else:
            x = round(rng.uniform(lo, hi), 1 if hi - lo >= 2 else 2)
        if step:
            x = round(x / step) * step
        if _fits(x, schema):
            return x
    return _multiple(schema, lo, hi, rng) if step else (lo + hi) / 2


def _multiple(schema: Mapping[str, Any], lo: float, hi: float, rng: random.Random) -> float:
    """A multiple of ``multipleOf`` in [lo, hi], stretching the range on an unbounded side."""
    step = schema["multipleOf"]
    k_lo, k_hi = math.ceil(lo / step), math.floor(hi / step)
    if k_lo > k_hi:
        bounded_below = "minimum" in schema or "exclusiveMinimum" in schema
        k_lo, k_hi = (k_lo, k_lo) if bounded_below else (k_hi, k_hi)
    for _ in range(8):
        x = rng.randint(k_lo, k_hi) * step
        if _fits(x, schema):
            return x
    raise ValueError(f"no multiple of {step} satisfies {dict(schema)}")


def _array(schema: Mapping[str, Any], rng: random.Random, name: str) -> list[Any]:
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    lo = schema.get("minItems", 1)
    hi = min(schema.get("maxItems", lo + 2), lo + 2)
    count = rng.randint(lo, max(lo, hi))
    singular = name[:-1] if name.endswith("s") and len(name) > 3 else name
    if "enum" in items and schema.get("uniqueItems"):
        if len(items["enum"]) < lo:
            raise ValueError(f"cannot draw {lo} distinct items for {name or 'an array'}")
        return rng.sample(list(items["enum"]), min(count, len(items["enum"])))
    out: list[Any] = []
    for _ in range(count * 6):
        if len(out) == count:
            break
        value = sample_value(items, rng, name=singular)
        if value not in out:
            out.append(value)
    if len(out) < count and not schema.get("uniqueItems"):
        out.extend(sample_value(items, rng, name=singular) for _ in range(count - len(out)))
    if len(out) < lo:
        raise ValueError(f"cannot draw {lo} distinct items for {name or 'an array'}")
    return out


def _object(schema: Mapping[str, Any], rng: random.Random, name: str) -> dict[str, Any]:
    """Required keys and about half the optional ones; never empty when keys are declared
    (``{}`` for a card says nothing a request could state)."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    chosen = [key for key in properties if key in required or rng.random() < 0.5]
    if properties and not chosen:
        chosen = [rng.choice(list(properties))]
    return {key: sample_value(properties[key], rng, name=key) for key in chosen}


_BY_TYPE: dict[str, Callable[[Mapping[str, Any], random.Random, str], Any]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": lambda schema, rng, name: rng.random() < 0.5,
    "array": _array,
    "object": _object,
    "null": lambda schema, rng, name: None,
}


def sample_value(schema: Mapping[str, Any], rng: random.Random, *, name: str = "") -> Any:
    """A realistic value for ``schema`` (a parameter called ``name``) that validates against it."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "anyOf" in schema:
        return sample_value(rng.choice(schema["anyOf"]), rng, name=name)
    declared = schema.get("type") or _implied_type(schema)
    if isinstance(declared, list):
        declared = next((t for t in declared if t != "null"), "null")
    return _BY_TYPE[declared](schema, rng, name)


def _implied_type(schema: Mapping[str, Any]) -> str:
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    if any(key in schema for key in ("minimum", "maximum", "multipleOf")):
        return "number"
    return "string"


def sample_arguments(
    tool: Tool,
    rng: random.Random,
    *,
    optional: int | Sequence[str] = 0,
    keep: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """All required arguments of ``tool`` plus some optional ones.

    ``optional`` is a count (that many optional parameters, drawn at random) or the names
    to include; ``keep`` holds values to reuse as they are (a parallel call sharing some
    arguments with its sibling). String values are redrawn when they repeat another
    argument's, date or time pairs named as a range (``check_in``/``check_out``) come out
    in order, and a song's artist (a book's author) is the one that goes with it.
    """
    keep = keep or {}
    schema = parameters(tool)
    plan = _plan(schema.get("properties") or {}, tuple(schema.get("required") or ()))
    if isinstance(optional, int):
        chosen = set(rng.sample(plan.extra, min(optional, len(plan.extra))))
    else:
        chosen = {key for key in optional if key in plan.properties}
    arguments: dict[str, Any] = {}
    seen: set[Any] = set()
    for key, schema in plan.properties.items():
        if key not in plan.required and key not in chosen:
            continue
        if key in keep:
            value = keep[key]
        else:
            value = sample_value(schema, rng, name=key)
            for _ in range(4):
                if not isinstance(value, str) or value not in seen:
                    break
                value = sample_value(schema, rng, name=key)
        if isinstance(value, str):
            seen.add(value)
        arguments[key] = value
    _finish(arguments, plan, rng, keep)
    return arguments


class _Plan(NamedTuple):
    """What argument sampling needs to know about one ``properties`` map, worked out once."""

    properties: Mapping[str, Any]
    required: frozenset[str]
    extra: list[str]
    ranges: tuple[tuple[str, str, str], ...]
    """(kind, start key, end key) of date or HH:MM pairs named as a range, and of
    ``min_x``/``max_x`` number pairs (kind ``bound``)."""
    pairs: tuple[tuple[str, str, Mapping[str, str]], ...]
    """(work key, maker key, work → maker) for song/artist and book/author."""
    nested: tuple[str, ...]
    """Keys whose objects (or arrays of objects) get the same treatment."""


_PLANS: dict[int, tuple[Mapping[str, Any], _Plan]] = {}


def _plan(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> _Plan:
    cached = _PLANS.get(id(properties))
    if cached is not None and cached[0] is properties and cached[1].required == set(required):
        return cached[1]
    kinds = {key: _kind(sub) for key, sub in properties.items() if _plain(sub)}
    ranges = []
    for kind in ("date", "clock"):
        keys = [key for key, k in kinds.items() if k == kind]
        starts = [key for key in keys if _tokens(key) & _START]
        ends = [key for key in keys if _tokens(key) & _END and key not in starts]
        if len(starts) == 1 and len(ends) == 1:
            ranges.append((kind, starts[0], ends[0]))
    for key, sub in properties.items():
        other = properties.get("max_" + key[4:]) if key.startswith("min_") else None
        if other and sub.get("type") in ("integer", "number") and _same(sub, other):
            ranges.append(("bound", key, "max_" + key[4:]))
    labels = {
        _labels(key, sub.get("description", ""))[0]: key
        for key, sub in properties.items()
        if _plain(sub) and sub.get("type") == "string"
    }
    pairs = tuple(
        (labels[work], labels[maker], table)
        for work, maker, table in (
            ("song", "artist", pools.SONG_ARTISTS),
            ("book", "author", pools.BOOK_AUTHORS),
        )
        if work in labels and maker in labels
    )
    nested = tuple(
        key
        for key, sub in properties.items()
        if sub.get("properties") or isinstance((sub.get("items") or {}).get("properties"), dict)
    )
    plan = _Plan(
        properties,
        frozenset(required),
        [k for k in properties if k not in required],
        tuple(ranges),
        pairs,
        nested,
    )
    if len(_PLANS) > 4096:
        _PLANS.clear()
    _PLANS[id(properties)] = (properties, plan)
    return plan


def _finish(
    values: dict[str, Any], plan: _Plan, rng: random.Random, fixed: Mapping[str, Any]
) -> None:
    """Order range pairs and match artists to songs, here and in nested objects."""
    for kind, first, last in plan.ranges:
        if first not in values or last not in values or (first in fixed and last in fixed):
            continue
        if kind != "bound":
            _order(values, first, last, kind, rng, end_fixed=last in fixed)
        elif values[first] > values[last]:
            values[first], values[last] = values[last], values[first]
    for work, maker, table in plan.pairs:
        if maker in values and maker not in fixed and values.get(work) in table:
            values[maker] = table[values[work]]
    for key in plan.nested:
        sub = plan.properties[key]
        value = values.get(key)
        items = value if isinstance(value, list) else [value]
        inner = sub.get("properties") or (sub.get("items") or {}).get("properties") or {}
        inner_plan = _plan(inner)
        for item in items:
            if isinstance(item, dict):
                _finish(item, inner_plan, rng, {})


def _same(one: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Equal schemas but for their descriptions (so swapping values keeps both valid)."""
    strip = ("description",)
    return {k: v for k, v in one.items() if k not in strip} == {
        k: v for k, v in other.items() if k not in strip
    }


def _plain(schema: Mapping[str, Any]) -> bool:
    """A schema with no constraint beyond its type, format and description."""
    return set(schema) <= {"type", "format", "pattern", "description"}


def _order(
    values: dict[str, Any], first: str, last: str, kind: str, rng: random.Random, *, end_fixed: bool
) -> None:
    """Make a start/end pair a short forward range; a fixed end stays, the start moves."""
    unit = 1 if kind == "date" else 15
    gap = (rng.randint(1, 14) if kind == "date" else rng.choice((2, 3, 4, 6, 8, 12))) * unit
    lo, hi = (0, _DAYS) if kind == "date" else (6 * 60, 23 * 60 + 45)
    start, end = _ordinal(values[first], kind), _ordinal(values[last], kind)
    if end_fixed:
        start = max(end - gap, lo)
    else:
        start = min(start, hi - gap)
        end = start + gap
    values[first], values[last] = _unordinal(start, kind), _unordinal(end, kind)


def _ordinal(value: str, kind: str) -> int:
    """Days since the first sampled day, or minutes since midnight."""
    if kind == "date":
        return (dt.date.fromisoformat(value) - _FIRST_DAY).days
    hour, minute = map(int, value.split(":"))
    return hour * 60 + minute


def _unordinal(value: int, kind: str) -> str:
    if kind == "date":
        return (_FIRST_DAY + dt.timedelta(days=value)).isoformat()
    return f"{value // 60:02d}:{value % 60:02d}"


def _kind(schema: Mapping[str, Any]) -> str | None:
    if schema.get("format") == "date":
        return "date"
    if schema.get("pattern") == pools.TIME_PATTERN:
        return "clock"
    return None
