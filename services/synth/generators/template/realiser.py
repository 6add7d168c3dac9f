"""Stage 2 of the template generator: write the user's request that the ground truth answers.

Each call becomes one sentence: an opener, a verb phrase from the function's name, then one
phrase per argument ("the check-in date March 14, 2026", "3 guests", "with breakfast
included"). Choices are drawn from a seeded RNG, so the same seed writes the same query.
Refinement does not start over: the same seed replays the same choices, and every call an
issue points at is restated explicitly (the function's own words, every value labelled, ISO
dates, quoted text), which is what a careful writer does when told a value was missed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from services.synth.calls import Call, GroundTruth, Issue, Tool, parameters, tool_name
from services.synth.generators.template.phrases import (
    BOOL_FALSE,
    BOOL_TRUE,
    CONNECTORS,
    OPENERS,
    verb_phrase,
)
from services.synth.surface import DATE_STYLES, NUMBER_WORDS, label, render_date

__all__ = ["explicit_targets", "realise"]

_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):00Z$")
_CLOCK = re.compile(r"^(\d{2}):(\d{2})$")
_RISKY = re.compile(r"[,;.?!\"()]|\band\b|\bwith\b|\bas\b|\bthe\b|^\d|\d$", re.I)
_WORDS = {v: k for k, v in NUMBER_WORDS.items()}
ALL = -1
"""Key of :func:`explicit_targets` meaning "every call"."""


def explicit_targets(issues: Sequence[Issue], n_calls: int) -> set[int]:
    """Which calls to restate explicitly: those the issues name (all when one names none)."""
    targets: set[int] = set()
    for issue in issues:
        if issue.call is None or not 0 <= issue.call < n_calls:
            return set(range(n_calls))
        targets.add(issue.call)
    return targets


def realise(truth: GroundTruth, *, issues: Sequence[Issue], previous: str | None, seed: int) -> str:
    """The query for ``truth`` (for ``irrelevance``: for its intent, which no candidate fits).

    Each call's sentence draws from its own seeded RNG, so restating one call explicitly
    leaves the others word for word; a call restated in ``previous`` stays restated.
    """
    if truth.category == "irrelevance":
        intent = truth.features["intent"]
        calls = (Call(intent["name"], dict(intent["arguments"])),)
        schemas = {intent["name"]: truth.features["intent_tool"]}
    else:
        calls, schemas = truth.calls, {tool_name(t): t for t in truth.tools}
    explicit = explicit_targets(issues, len(calls)) if previous is not None else set()
    sentences = []
    for index, call in enumerate(calls):
        tool = schemas[call.name]
        plain = _sentence(tool, call, random.Random(seed * 7919 + index), True)
        if index in explicit or (previous is not None and plain in previous):
            sentence = plain
        else:
            sentence = _sentence(tool, call, random.Random(seed * 7919 + index), False)
        rng = random.Random(seed * 7919 - index)
        if index and rng.random() < 0.7:
            head = sentence if sentence.startswith("I ") else sentence[0].lower() + sentence[1:]
            sentence = rng.choice(CONNECTORS) + head
        sentences.append(sentence)
    return " ".join(sentences)


def _sentence(tool: Tool, call: Call, rng: random.Random, explicit: bool) -> str:
    synonym = 0 if explicit or rng.random() < 0.55 else rng.randint(1, 3)
    vp = verb_phrase(call.name, synonym)
    props = parameters(tool).get("properties", {})
    names = [n for n in props if n in call.arguments]
    rng.shuffle(names)
    lead = ""
    first = names[0] if names else None
    if (
        not explicit
        and first is not None
        and _plain_text(props[first])
        and first in parameters(tool).get("required", ())
        and not _RISKY.search(str(call.arguments[first]))
        and rng.random() < 0.35
    ):
        lead = f" {rng.choice(('for', 'about', 'regarding'))} {call.arguments[first]}"
        names = names[1:]
    phrases = [_phrase(n, props[n], call.arguments[n], rng, explicit) for n in names]
    opener = OPENERS[0] if explicit else rng.choice(OPENERS)
    text = opener.format(vp=vp + lead + _join(phrases, rng, explicit))
    text = text[0].upper() + text[1:]
    return text + ("?" if opener.startswith(("Could", "Can")) else ".")


def _join(phrases: list[str], rng: random.Random, explicit: bool) -> str:
    if not phrases:
        return ""
    intro = " with " if explicit else rng.choice((" with ", " using ", ", with ", " for "))
    if len(phrases) == 1:
        return intro + phrases[0]
    return intro + ", ".join(phrases[:-1]) + rng.choice((" and ", ", and ")) + phrases[-1]


def _plain_text(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "string" and "enum" not in schema and "format" not in schema


def _phrase(name: str, schema: Mapping[str, Any], value: Any, rng: random.Random, exp: bool) -> str:
    words = label(name)
    kind = schema.get("type")
    if kind == "boolean":
        if exp:
            return f"the {words} set to {'true' if value else 'false'}"
        return f"the {words} {rng.choice(BOOL_TRUE[:4] if value else BOOL_FALSE[:4])}"
    rendered = render_value(schema, value, rng, exp)
    if exp:
        return f"the {words} {rendered}"
    roll = rng.random()
    if kind == "integer" and roll < 0.4 and kind != "array":
        noun = words.removeprefix("number of ")
        return f"{rendered} {noun}"
    typed = kind in ("integer", "number") or "enum" in schema or "format" in schema
    if typed and roll < 0.55:
        return f"{rendered} as the {words}"
    pattern = rng.choice(("the {w} {v}", "the {w} set to {v}", "the {w} of {v}", "{w} {v}"))
    return pattern.format(w=words, v=rendered)


def render_value(schema: Mapping[str, Any], value: Any, rng: random.Random, exp: bool) -> str:
    """One value as a person would write it; ``exp`` writes the unambiguous form."""
    kind = schema.get("type")
    if kind == "array":
        items = [render_value(schema.get("items", {}), v, rng, exp) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    if kind == "object":
        props = schema.get("properties", {})
        parts = [_phrase(k, props.get(k, {}), v, rng, True) for k, v in value.items()]
        return "(" + ", ".join(p.removeprefix("the ") for p in parts) + ")"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "integer" and not isinstance(value, bool):
        if not exp and 0 < value <= 12 and rng.random() < 0.3:
            return _WORDS[value]
        if not exp and value >= 1000 and rng.random() < 0.5:
            return f"{value:,}"
        return str(value)
    if kind == "number":
        return _number(value)
    if "enum" in schema:
        return str(value) if exp or rng.random() < 0.5 else str(value).replace("_", " ")
    return _string(schema, str(value), rng, exp)


def _number(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _string(schema: Mapping[str, Any], value: str, rng: random.Random, exp: bool) -> str:
    fmt = schema.get("format")
    if fmt == "date":
        return value if exp else render_date(value, rng.choice(DATE_STYLES))
    if fmt == "date-time":
        match = _DATETIME.match(value)
        if exp or not match or rng.random() < 0.5:
            return value
        when = render_date(match[1], rng.choice(DATE_STYLES))
        return f"{when} at {match[2]}:{match[3]} UTC"
    clock = _CLOCK.match(value) if "pattern" in schema else None
    if clock:
        hour = int(clock[1])
        if exp or rng.random() < 0.6:
            return value
        return f"{(hour - 1) % 12 + 1}:{clock[2]} {'pm' if hour >= 12 else 'am'}"
    if fmt == "email":
        return value
    if exp or _RISKY.search(value) or rng.random() < 0.5:
        return f'"{value}"'
    return value
