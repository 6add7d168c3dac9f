"""Stage 2 of the template generator: write the request a person would write for the truth.

No parameter names: a value is tied to its parameter by the words of the parameter's
*description* ("arriving at the hotel on March 14, 2026", "JFK as the departure airport"),
by a preposition when the tool has one parameter of that kind ("in Lisbon", "on 14 March
2026"), by its unit ("3 people", "$900", "45 minutes") or by nothing at all when its form
says what it is (an enum value, an email address, a quoted message). Sentences take one of
several shapes (a request, a question, context then the ask), dates their usual written
forms, and parallel calls that differ in one value share one sentence ("the weather in Oslo
and Bergen"). Only what the ground truth sets is said: optional parameters it leaves out
are not mentioned. Choices come from a seeded RNG, so the same seed writes the same query.

Refinement keeps the seed and restates each call an issue points at *explicitly*: one
sentence per call, every value with its description's words and in its plainest form (ISO
dates, digits, quoted text).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import lru_cache
from typing import Any

from services.synth.calls import Call, GroundTruth, Issue, Tool, parameters, tool_name
from services.synth.generators.template.gist import described_action, is_verb
from services.synth.generators.template.phrases import (
    CONNECTORS,
    NOUN_SWAPS,
    VERB_SYNONYMS,
    verb_phrase,
)
from services.synth.generators.template.written import is_relative, written
from services.synth.query_check import reference_date
from services.synth.surface import NUMBER_WORDS, label

__all__ = ["action", "cue", "explicit_targets", "realise"]

_WORDS = {v: k for k, v in NUMBER_WORDS.items()}
_LEAD = re.compile(r"^(?:the|a|an|number of|amount of|how many|whether to|whether|if)\s+", re.I)
_BOILER = re.compile(
    r"^(?:optional(?:ly)?(?: parameter| flag| field)?(?: that| to| for| indicating)?"
    r"|(?:a )?(?:boolean )?flag(?: to| for| indicating| that)?|indicates?(?: if| whether)?"
    r"|set(?: to)? true(?: to| if)?|true if|(?:if|when) (?:set to )?true,?|specif(?:y|ies)"
    r"|(?:a )?parameter(?: to| for| that)?|(?:the )?name of the|(?:the )?name of)\s+",
    re.I,
)
_CUT = re.compile(r"\s*(?:,|;|\(|\be\.g\.|\bfor example\b|\bsuch as\b|\.\s|\.$).*$", re.I)
_PLACE = re.compile(r"\b(?:city|town|location|place|country|address|station|area)\b", re.I)
_UNITS = {
    "km": "km", "minutes": "minutes", "hours": "hours", "seconds": "seconds", "days": "days",
    "months": "months", "years": "years", "percent": "percent", "grams": "grams", "kg": "kg",
    "cm": "cm", "meters": "meters", "celsius": "degrees Celsius",
}  # fmt: skip
_UNIT_TAIL = re.compile(
    r"\s+in\s+(?:years|minutes|hours|seconds|days|usd|km|kilometres|meters|percent)$"
)
_DANGLING = frozenset("in of to for at on by with the a an and or from".split())
_EMPTY = frozenset("which what whose who how when where whether true false value if".split())
_PEOPLE = frozenset({"guests", "passengers", "travellers", "attendees", "party", "people"})
_SHAPES = ("request", "question", "context", "want")
_ASK = ("Could you {vp}", "Can you {vp}", "Would you {vp}", "Please {vp}")
_WANT = ("I'd like to {vp}", "I need to {vp}", "I want to {vp}", "Help me {vp}", "{vp}")
_CONTEXT = ("For context, {ctx}.", "Some context: {ctx}.")


def explicit_targets(issues: Sequence[Issue], n_calls: int) -> set[int]:
    """Which calls to restate explicitly: those the issues name (all when one names none)."""
    targets: set[int] = set()
    for issue in issues:
        if issue.call is None or not 0 <= issue.call < n_calls:
            return set(range(n_calls))
        targets.add(issue.call)
    return targets


def cue(name: str, schema: Mapping[str, Any], tool: Tool) -> str:
    """Words for a parameter from its description, never its name: "Arrival date at the
    hotel" → "arrival date at the hotel"; a description that only repeats the name gives ""."""
    others = tuple(parameters(tool).get("properties", {}))
    return _cue(name, str(schema.get("description", "")), others)


@lru_cache(maxsize=8192)
def _cue(name: str, description: str, others: tuple[str, ...]) -> str:
    text = _CUT.sub("", description.strip()).lower()
    text = _BOILER.sub("", _BOILER.sub("", text)).strip()
    text = _LEAD.sub("", text).strip()
    text = _LEAD.sub("", text).strip()
    text = re.sub(r"^(?:or|and|of|to|for|the|a|an)\s+", "", text)
    for other in others:
        for form in {other.lower(), label(other).lower(), other.lower().replace("_", " ")}:
            text = re.sub(rf"\b{re.escape(form)}\b", "", text)
    text = re.sub(r"\s+", " ", text).strip(" .,")
    text = _UNIT_TAIL.sub("", text)
    text = re.sub(r"\S*\d\S*|[:;#@]", "", text)  # a number in the cue would read as a value
    text = re.sub(rf"\S*\b(?:{'|'.join(NUMBER_WORDS)})\b\S*", "", text)
    words = text.split()[:6]
    while words and words[-1] in _DANGLING:
        words.pop()
    if all(w in _DANGLING or w in _EMPTY for w in words):
        return ""
    return " ".join(words) if len(words) > 1 or (words and words[0] != name) else ""


def realise(truth: GroundTruth, *, issues: Sequence[Issue], previous: str | None, seed: int) -> str:
    """The query for ``truth`` (for ``irrelevance``: for its intent, which no candidate fits).

    Each group of calls draws from its own seeded RNG, so restating one call explicitly
    leaves the others word for word; a call restated in ``previous`` stays restated.
    """
    if truth.category == "irrelevance":
        intent = truth.features["intent"]
        calls = (Call(intent["name"], dict(intent["arguments"])),)
        schemas = {intent["name"]: truth.features["intent_tool"]}
    else:
        calls, schemas = truth.calls, {tool_name(t): t for t in truth.tools}
    explicit = explicit_targets(issues, len(calls)) if previous is not None else set()
    avoid = frozenset(n.lower() for call in calls for n in call.arguments)
    reference, sentences = reference_date(truth), []
    for position, group in enumerate(_groups(calls, explicit)):
        first = group[0]
        tool = schemas[calls[first].name]
        members = [calls[i] for i in group]
        plain = " ".join(_explicit(tool, calls[i], avoid) for i in group)
        if first in explicit or (previous is not None and plain.lower() in previous.lower()):
            sentence = plain
        else:
            sentence = _unleaked(tool, members, seed * 7919 + first, calls, reference)
        rng = random.Random(seed * 7919 - first)
        if position and rng.random() < 0.6:
            head = sentence if sentence.startswith("I") else sentence[0].lower() + sentence[1:]
            sentence = rng.choice(CONNECTORS) + head
        sentences.append(sentence)
    return _scrub(" ".join(sentences), calls)


def _groups(calls: Sequence[Call], explicit: set[int]) -> list[list[int]]:
    """Consecutive calls of one function that differ in exactly one value share a sentence."""
    groups: list[list[int]] = []
    for index, call in enumerate(calls):
        if groups and index not in explicit and groups[-1][0] not in explicit:
            head = calls[groups[-1][0]]
            if _varying(head, call) is not None and all(
                _varying(head, calls[j]) == _varying(head, call) for j in groups[-1][1:]
            ):
                groups[-1].append(index)
                continue
        groups.append([index])
    return groups


def _varying(a: Call, b: Call) -> str | None:
    if a.name != b.name or set(a.arguments) != set(b.arguments):
        return None
    differ = [k for k in a.arguments if a.arguments[k] != b.arguments[k]]
    if len(differ) != 1 or isinstance(a.arguments[differ[0]], list | dict | bool):
        return None
    return differ[0]


def _explicit(tool: Tool, call: Call, avoid: frozenset[str]) -> str:
    """One call, every value in its plainest form: as a ``words: value`` field when the
    description's words single the parameter out, else bare (its type, or its place next
    to a twin, says which). Never the parameter's name: a value that cannot be tied to its
    parameter without it is left to fail, and the example is filtered."""
    props = parameters(tool).get("properties", {})
    cues = {name: _without(cue(name, props.get(name, {}), tool), avoid) for name in props}
    parts, bare = [], []
    for name, value in call.arguments.items():
        schema = props.get(name, {})
        words = cues[name]
        if words and list(cues.values()).count(words) == 1 and _distinct(name, words, props):
            parts.append(f"{words}: {_plain(schema, value)}")
        else:
            bare.append(_plain(schema, value))
    vp = action(tool, avoid=avoid)
    head = " for " + ", ".join(bare) if bare else ""
    tail = (" — " + "; ".join(parts)) if parts else ""
    return f"{vp[0].upper()}{vp[1:]}{head}{tail}."


def _distinct(name: str, words: str, props: Mapping[str, Any]) -> bool:
    """Whether no other parameter's name and description hold all of ``words``."""
    said = set(re.findall(r"[a-z]+", words.lower())) - _DANGLING - _EMPTY
    for other, schema in props.items():
        if other != name:
            theirs = f"{other.replace('_', ' ')} {schema.get('description', '')}".lower()
            if said <= set(re.findall(r"[a-z]+", theirs)):
                return False
    return bool(said)


def _only_of_type(name: str, call: Call, props: Mapping[str, Any]) -> bool:
    def shape(key: str) -> tuple[Any, ...]:
        s = props.get(key, {})
        return (s.get("type"), s.get("format"), "pattern" in s, tuple(s.get("enum", ())))

    same = [k for k in props if shape(k) == shape(name)]
    return same == [name] and shape(name)[0] not in ("boolean", "object", "array", None)


def _plain(schema: Mapping[str, Any], value: Any) -> str:
    kind = schema.get("type")
    if kind == "boolean":
        return "yes" if value else "no"
    if kind == "array":
        items = [_plain(schema.get("items", {}), v) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    if kind == "object":
        props = schema.get("properties", {})
        inner = [f"{label(k)} {_plain(props.get(k, {}), v)}" for k, v in value.items()]
        return "(" + ", ".join(inner) + ")"
    if kind in ("integer", "number"):
        return _number(value)
    if "enum" in schema or schema.get("format") or "pattern" in schema:
        return str(value)
    return f'"{value}"'


def _unleaked(
    tool: Tool, calls: Sequence[Call], seed: int, every: Sequence[Call], reference: date | None
) -> str:
    """The first of a few seeded wordings that names none of the parameters of ``every``
    call of the request (a word of one call's wording may be another call's label)."""
    names = {n for call in every for n in call.arguments}
    values = " ".join(_said_values(every)).lower()
    avoid = frozenset(n.lower() for n in names)
    sentence = ""
    for attempt in range(6):
        rng = random.Random(seed + attempt * 104729)
        sentence = _natural(tool, calls, rng, avoid, reference)
        text = sentence.lower()
        if not any(_says(text, name, values) for name in names):
            return sentence
    return sentence


def _said_values(calls: Sequence[Call]) -> list[str]:
    """Every string a call's arguments hold, nested ones included."""
    out: list[str] = []
    stack: list[Any] = [c.arguments for c in calls]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and item:
            out.append(item)
    return out


def _without(words: str, avoid: frozenset[str]) -> str:
    """A cue without the words of any name in ``avoid`` (empty when nothing is left)."""
    if not words or not avoid:
        return words
    text = words
    for name in avoid:
        text = _name_pattern(name).sub(" ", text)
    said = text.split()
    while said and said[-1] in _DANGLING:
        said.pop()
    while said and said[0] in _DANGLING:
        said.pop(0)
    if all(w in _DANGLING or w in _EMPTY for w in said):
        return ""
    return " ".join(said)


def _scrub(query: str, calls: Sequence[Call]) -> str:
    """The last guard: a parameter's name still said outside the values (a phrase the
    wordings could not avoid) is swapped for its :data:`NOUN_SWAPS` word or left out."""
    values = sorted({v.lower() for v in _said_values(calls)}, key=len, reverse=True)
    for name in {n for call in calls for n in call.arguments}:
        pattern = _name_pattern(name)
        if not pattern.search(query.lower()):
            continue
        kept = _value_spans(query, values)
        parts, last = [], 0
        for m in pattern.finditer(query.lower()):
            if any(s <= m.start() < e for s, e in kept):
                continue
            parts += [query[last : m.start()], NOUN_SWAPS.get(m[0], "")]
            last = m.end()
        query = "".join([*parts, query[last:]])
    return re.sub(r"\s+([,.?;])", r"\1", re.sub(r"\s{2,}", " ", query)).strip()


def _value_spans(query: str, values: Sequence[str]) -> list[tuple[int, int]]:
    lowered = query.lower()
    spans = [(m.start(), m.end()) for m in re.finditer(r'"[^"]*"', query)]
    for value in values:
        start = lowered.find(value)
        while start >= 0:
            spans.append((start, start + len(value)))
            start = lowered.find(value, start + 1)
    return spans


def _says(text: str, name: str, values: str) -> bool:
    pattern = _name_pattern(name)
    return bool(pattern.search(text)) and not pattern.search(values)


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    forms = {name.lower(), name.lower().replace("_", " ")}
    return re.compile("|".join(rf"(?<![\w]){re.escape(f)}(?![\w])" for f in forms))


def _natural(
    tool: Tool,
    calls: Sequence[Call],
    rng: random.Random,
    avoid: frozenset[str] = frozenset(),
    reference: date | None = None,
) -> str:
    call = calls[0]
    props = parameters(tool).get("properties", {})
    varying = _varying(calls[0], calls[1]) if len(calls) > 1 else None
    phrases = []
    for group in _twins(call, props, tool, rng, varying):
        if len(group) > 1:  # same words, same type: said together, in the schema's order
            said = [_value(n, props[n], call.arguments[n], rng, avoid, reference) for n in group]
            words = _without(cue(group[0], props[group[0]], tool), avoid)
            phrases.append(f"{words} {', '.join(said)}".strip())
            continue
        name = group[0]
        values = [c.arguments[name] for c in calls] if name == varying else [call.arguments[name]]
        phrases.append(_say(name, props.get(name, {}), values, tool, rng, avoid, reference))
    vp = action(tool, 0 if rng.random() < 0.5 else rng.randint(1, 3), avoid)
    return _shape(vp, [p for p in phrases if p], rng)


def action(tool: Tool, synonym: int = 0, avoid: frozenset[str] = frozenset()) -> str:
    """What the request asks for: from the tool's description when it opens with a verb
    (``synonym`` > 0 swaps that verb for one of its synonyms), else from its name."""
    function = tool["function"]
    said = described_action(str(function.get("description", "")), avoid)
    if said is None:
        return verb_phrase(function["name"], synonym, avoid)
    verb, _, rest = said.partition(" ")
    choices = [c for c in VERB_SYNONYMS.get(verb, ()) if c not in avoid]
    if (synonym or verb in avoid) and choices:
        verb = choices[(synonym - 1) % len(choices)]
    elif verb in avoid:
        return verb_phrase(function["name"], synonym, avoid)
    return f"{verb} {rest}".strip()


def _twins(
    call: Call, props: Mapping[str, Any], tool: Tool, rng: random.Random, varying: str | None
) -> list[list[str]]:
    """The stated parameters in a shuffled order, those sharing words and type grouped
    (never the one value that varies across the sentence's calls)."""
    groups: dict[tuple[str, Any], list[str]] = {}
    for name in props:
        if name in call.arguments:
            schema = props[name]
            words = cue(name, schema, tool) or name
            key = (name if name == varying else words, schema.get("type"))
            groups.setdefault(key, []).append(name)
    out = list(groups.values())
    rng.shuffle(out)
    return out


def _shape(vp: str, phrases: list[str], rng: random.Random) -> str:
    shape = rng.choice(_SHAPES) if phrases else rng.choice(("request", "question"))
    if shape == "context" and len(phrases) >= 2:
        split = rng.randint(1, len(phrases) - 1)
        ctx = rng.choice(_CONTEXT).format(ctx=_join(phrases[:split], rng))
        ask = rng.choice(_ASK).format(vp=vp + _tail(phrases[split:], rng))
        return f"{ctx} {ask}?"
    if shape == "question" or shape == "context":
        text = rng.choice(_ASK).format(vp=vp + _tail(phrases, rng))
        return text[0].upper() + text[1:] + ("." if text.startswith("Please") else "?")
    template = rng.choice(_WANT) if shape == "want" else "{vp}"
    text = template.format(vp=vp + _tail(phrases, rng))
    return text[0].upper() + text[1:] + "."


def _tail(phrases: list[str], rng: random.Random) -> str:
    return " " + _join(phrases, rng) if phrases else ""


def _join(phrases: list[str], rng: random.Random) -> str:
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + rng.choice((", and ", " and ", ", ")) + phrases[-1]


def _say(
    name: str,
    schema: Mapping[str, Any],
    values: list[Any],
    tool: Tool,
    rng: random.Random,
    avoid: frozenset[str] = frozenset(),
    reference: date | None = None,
) -> str:
    """One parameter's value(s) as a person says them (several: coordinated with "and")."""
    kind = schema.get("type")
    words = _without(cue(name, schema, tool), avoid)
    if kind == "boolean":
        return _flag(words, bool(values[0]), rng)
    said = [_value(name, schema, v, rng, avoid, reference) for v in values]
    text = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    if "enum" in schema and not _shared_enum(name, schema, tool):
        return text if not words or rng.random() < 0.5 else f"{text} {words}"
    if kind in ("integer", "number") and _unit(name, schema):
        return text
    if schema.get("format") == "email":
        return rng.choice(("to {v}", "{v}")).format(v=text) if not words else f"{words} {text}"
    if schema.get("format") == "date" and _alone(tool, lambda s: s.get("format") == "date"):
        return text if is_relative(text) else rng.choice(("on {v}", "for {v}")).format(v=text)
    if _is_place(name, schema) and _alone(tool, lambda s: _is_place("", s)):
        return rng.choice(("in {v}", "for {v}")).format(v=text)
    if not words:
        return text
    return rng.choice(("{w} {v}", "{v} as the {w}", "with {w} {v}")).format(w=words, v=text)


def _flag(words: str, value: bool, rng: random.Random) -> str:
    if not words:
        return ""
    if is_verb(words.split()[0]):  # "add the air quality index": an action, asked or not
        return rng.choice(("and {w}", "also {w}")).format(w=words) if value else f"don't {words}"
    if value:
        return rng.choice(("with {w}", "including {w}")).format(w=words)
    return rng.choice(("without {w}", "no {w}")).format(w=words)


def _shared_enum(name: str, schema: Mapping[str, Any], tool: Tool) -> bool:
    options = set(map(str, schema.get("enum", ())))
    props = parameters(tool).get("properties", {})
    return any(k != name and options & set(map(str, s.get("enum", ()))) for k, s in props.items())


def _alone(tool: Tool, test: Any) -> bool:
    return sum(bool(test(s)) for s in parameters(tool).get("properties", {}).values()) == 1


def _is_place(name: str, schema: Mapping[str, Any]) -> bool:
    plain = schema.get("type") == "string" and "enum" not in schema and "pattern" not in schema
    return plain and bool(
        _PLACE.search(f"{name.replace('_', ' ')} {schema.get('description', '')}")
    )


def _unit(name: str, schema: Mapping[str, Any]) -> str:
    """The unit a number is said with: from the name's last word, "in USD", or people."""
    last = name.lower().split("_")[-1]
    if last in _UNITS:
        return _UNITS[last]
    description = str(schema.get("description", "")).lower()
    if "usd" in description or "dollar" in description:
        return "$"
    tail = re.search(r"\bin (years|minutes|hours|seconds|days|km|meters|percent)\b", description)
    if tail:
        return tail[1]
    if last in _PEOPLE or "people" in description:
        return "people"
    return ""


def _value(
    name: str,
    schema: Mapping[str, Any],
    value: Any,
    rng: random.Random,
    avoid: frozenset[str] = frozenset(),
    reference: date | None = None,
) -> str:
    kind = schema.get("type")
    if kind == "array":
        items = [_value(name, schema.get("items", {}), v, rng, avoid, reference) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    if kind == "object":
        return _plain(schema, value)
    if kind in ("integer", "number") and not isinstance(value, bool):
        return _amount(name, schema, value, rng)
    if "enum" in schema:  # "living_room" said "living room", unless that says a name
        spaced = str(value).replace("_", " ")
        return str(value) if any(w in avoid for w in spaced.lower().split()) else spaced
    return written(schema, str(value), rng, reference)


def _amount(name: str, schema: Mapping[str, Any], value: float, rng: random.Random) -> str:
    unit = _unit(name, schema)
    number = _number(value)
    if schema.get("type") == "integer" and 0 < value <= 12 and rng.random() < 0.3:
        number = _WORDS[int(value)]
    elif value >= 10000 and float(value).is_integer() and rng.random() < 0.5:
        number = f"{int(value):,}"
    if unit == "$":
        return f"${number}" if number[0].isdigit() else f"{number} dollars"
    if unit == name.lower() and unit.endswith("s"):
        return f"{number}-{unit[:-1]}"  # "days" says the name: "a 5-day ..."
    return f"{number} {unit}" if unit else number


def _number(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))
