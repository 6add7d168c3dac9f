"""The reader's view of the candidate schemas: for each tool, its words weighted by where
they stand (name, description, parameter names); for each parameter, its kind, its words and
the values its schema offers (enum, examples), built once per schema and cached."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from services.synth.calls import Tool, parameters, tool_name
from services.synth.generators.template.mentions import Mention, words
from services.synth.generators.template.phrases import ASK_WORDS, STOPWORDS, VERB_SYNONYMS, stem
from services.synth.surface import label

_EXAMPLES = re.compile(
    r"(?:e\.g\.|eg\.|i\.e\.|for example|for instance|such as|options include|options are|"
    r"one of)[:,]?\s*"
    r"(.+?)(?:\.\s|\.$|\)|$)",
    re.I,
)


_QUOTED_HINT = re.compile(r"'([^']{1,40})'|\"([^\"]{1,40})\"")


_BRACKETED = re.compile(r"\(([^()]+)\)")


_WORDS = re.compile(r"(?!(?:optional|default)\b)[A-Za-z][A-Za-z '-]{0,30}", re.I)
"""An option a description lists in brackets: words only, never what it says of itself."""


_EXTRA_STOP = ASK_WORDS


@dataclass
class _Param:
    name: str
    schema: Mapping[str, Any]
    kind: str
    required: bool
    stems: dict[str, float]
    hints: tuple[str, ...]
    shared: frozenset[str] = frozenset()
    naming: frozenset[str] = frozenset()  # the words of the tool's and the others' names
    others: frozenset[str] = frozenset()
    """The words of the tool's other parameters (their names and descriptions)."""
    exclusive: bool = False
    values: list[Any] = field(default_factory=list)
    spans: list[Mention] = field(default_factory=list)


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS and w not in _EXTRA_STOP}


def _kind(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return {"float": "number", "dict": "object", "tuple": "array", "any": "string"}.get(kind, kind)


def _hints(schema: Mapping[str, Any]) -> tuple[str, ...]:
    """Values a parameter's description offers as examples ("e.g. vegan, gluten-free") or
    lists in brackets ("The type of paint (Watercolor, Oil, Acrylic)")."""
    found: list[str] = []
    text = str(schema.get("description", ""))
    for m in _EXAMPLES.finditer(text):
        said = re.sub(r"\s*\betc\b\.?", "", m[1])  # "victim, accused, verdict etc."
        found += [p.strip(" '\"") for p in re.split(r",|\bor\b|\band\b|(?<!\d)/|/(?!\d)", said)]
    found += [a or b for a, b in _QUOTED_HINT.findall(text)]
    for m in _BRACKETED.finditer(text):  # "The type of paint (Watercolor, Oil, Acrylic)."
        parts = [p.strip() for p in re.split(r",|\bor\b", m[1])]
        if len(parts) > 1 and all(_WORDS.fullmatch(p) for p in parts):
            found += parts
    items = schema.get("items", {}) if isinstance(schema.get("items"), Mapping) else {}
    enum = schema.get("enum") or items.get("enum") or ()
    found += [str(v) for v in enum]
    return tuple(dict.fromkeys(h for h in found if h and len(h) <= 40 and len(h.split()) <= 4))


def _param(name: str, schema: Mapping[str, Any], required: bool) -> _Param:
    key = (name, id(schema))
    cached = _PARAMS.get(key)
    if cached is None or cached[0] is not schema:
        cached = (schema, _new_param(name, schema, required))
        if len(_PARAMS) > 50_000:  # schemas of many catalogs: start over rather than grow
            _PARAMS.clear()
        _PARAMS[key] = cached
    base = cached[1]
    return _Param(base.name, schema, base.kind, required, base.stems, base.hints)


_PARAMS: dict[tuple[str, int], tuple[Mapping[str, Any], _Param]] = {}


def _new_param(name: str, schema: Mapping[str, Any], required: bool) -> _Param:
    weights: dict[str, float] = {}
    if re.search(
        r"usd|dollar|price|cost|fare|amount|budget", str(schema.get("description", "")), re.I
    ):
        weights["usd"] = 1.0
    for word in _stems(str(schema.get("description", ""))):
        weights[word] = 0.5  # words of what the default is: less of what is asked
    for word in _stems(undefaulted(schema)):
        weights[word] = 1.0
    for word in _stems(label(name)):
        weights[word] = 2.0
    for word in label(name).split():  # "username": "user" names it too
        if len(word) > 6 and word.endswith("name"):
            weights.update(dict.fromkeys(_stems(word[:-4]), 2.0))
    return _Param(name, schema, _kind(schema), required, weights, _hints(schema))


@dataclass(frozen=True)
class _Tool:
    tool: Tool
    name: str
    words: dict[str, float]
    props: tuple[tuple[str, Mapping[str, Any], bool], ...]


@lru_cache(maxsize=4096)
def _tool_words(name: str, description: str, params: tuple[str, ...]) -> dict[str, float]:
    weights: dict[str, float] = {}
    for word in _stems(" ".join(label(p) for p in params)):
        weights[word] = 0.5
    for word in _stems(description):
        weights[word] = 1.0
    verb, *rest = label(re.sub(r"[.]", "_", name)).split() or [""]
    for synonym in VERB_SYNONYMS.get(verb, ()):
        for word in _stems(synonym):
            weights[word] = max(weights.get(word, 0.0), 1.0)
    for word in _stems(" ".join([verb, *rest])):
        weights[word] = 2.0
    return weights


def _tool(tool: Tool) -> _Tool:
    schema = parameters(tool)
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    function = tool["function"]
    weights = dict(_tool_words(tool_name(tool), str(function.get("description", "")), tuple(props)))
    for word in _options(props):  # "avoid tolls and ferries" for an ``avoid`` of those
        weights.setdefault(word, 0.5)
    entries = tuple((k, v, k in required) for k, v in props.items() if isinstance(v, Mapping))
    return _Tool(tool, tool_name(tool), weights, entries)


def _options(props: Mapping[str, Any]) -> set[str]:
    """The stems of the words of the options the parameters list (their enums)."""
    said: list[str] = []
    for schema in (v for v in props.values() if isinstance(v, Mapping)):
        items = schema.get("items") if isinstance(schema.get("items"), Mapping) else {}
        said += [str(o) for o in (schema.get("enum") or (items or {}).get("enum") or ())]
    return _stems(" ".join(said))


def _nouns(spec: _Tool) -> frozenset[str]:
    """The stems of the tool name's words that are not its verb."""
    said = label(re.sub(r"[.]", "_", spec.name)).split()
    return frozenset(
        stem(w) for w in said if w not in VERB_SYNONYMS and w not in _EXTRA_STOP and len(w) > 2
    )


def _naming(spec: _Tool) -> frozenset[str]:
    """The stems of the tool's and its parameters' names."""
    said = [re.sub(r"[.]", "_", spec.name), *(n for n, _, _ in spec.props)]
    return frozenset(stem(w) for name in said for w in words(label(name)))


def _strict(param: _Param) -> bool:
    items = param.schema.get("items") if isinstance(param.schema.get("items"), Mapping) else {}
    return "enum" in param.schema or "enum" in (items or {})


_CLOSED = re.compile(r"\b(?:can be|can be either|either|one of|must be)\s*:?\s*['\"]", re.I)


def _closed(param: _Param) -> bool:
    """Whether a description closes its parameter's values to the quoted ones it lists
    ("Can be 'summary' or 'detailed'")."""
    return bool(_CLOSED.search(str(param.schema.get("description", ""))))


_DEFAULTING = re.compile(r"\b(?:defaults?|if not (?:provided|specified|given))\b[^.]*", re.I)


def undefaulted(schema: Mapping[str, Any]) -> str:
    """A description without what it says of the default ("If not provided, will default
    to that of water at room temperature"): that says nothing of what a request ties to
    the parameter."""
    return _DEFAULTING.sub(" ", str(schema.get("description", "")))
