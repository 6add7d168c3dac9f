"""The call checker: do these calls answer the ground truth? Pure, and fast.

Two layers decide. The *schema* layer checks each call against its tool's JSON Schema
(known function, required parameters, no unknown ones, types — nested —, enums, ranges).
The *answer* layer compares the calls with the ground truth under BFCL's AST matching rules:
strings compared after :func:`standardize_string`, an int accepted for a float/number,
dicts and lists of dicts compared key by key, parallel calls matched order-free (greedily, in
answer order, as BFCL does), irrelevance answered by no call. A verdict is ok only when both
layers find nothing; every :class:`Issue` names the call and the parameter and says what to
change, because it is the feedback the next refinement round receives.

:func:`check_calls` takes OpenAI tools and a :class:`GroundTruth`; :func:`check_bfcl` takes
BFCL's own function docs, decoded model output and possible answer.

Issue codes. Schema: ``unknown_function``, ``missing_required``, ``unknown_parameter``,
``wrong_type``, ``bad_enum``, ``out_of_range`` (bounds, lengths, item counts),
``bad_format`` (``pattern``, ``format``), ``duplicate_items``. Answer: ``wrong_value``,
``missing_optional`` (the answer sets an optional parameter the call leaves out),
``unexpected_parameter`` (a declared parameter the answer does not use), ``wrong_function``,
``wrong_count``, ``missing_call``, ``unexpected_call``. ``param`` is a path into the
arguments (``party.size``, ``tags[0]``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from services.synth.bfcl.rules import Options, equivalent, first_type, standardize_string
from services.synth.calls import Call, GroundTruth, Issue, Verdict, parameters, tool_name

__all__ = ["check_bfcl", "check_calls", "possible_answer", "standardize_string"]

Answer = dict[str, dict[str, Options]]
"""One expected call in BFCL form: ``{function name: {parameter: options}}``."""

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "float": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "tuple": (list, tuple),
    "object": (dict,),
    "dict": (dict,),
    "null": (type(None),),
}
_JSON_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_JSON_NAMES.update({list: "array", tuple: "array", dict: "object", type(None): "null"})
_DICT_TYPES = ("object", "dict")
_LIST_TYPES = ("array", "tuple")


# ---------------------------------------------------------------- possible answer


def possible_answer(truth: GroundTruth) -> list[Answer]:
    """The ground truth in BFCL's possible-answer form, one entry per call.

    A parameter the call sets → ``[value]`` (a dict value becomes ``{key: [value]}``, as
    BFCL's dict matcher expects, and so does each dict of a list of dicts); an optional
    parameter it leaves out → ``["", default]`` or ``[""]``. Irrelevance → ``[]``.
    """
    schemas = {tool_name(tool): parameters(tool) for tool in truth.tools}
    return [
        {call.name: _options(call.arguments, schemas.get(call.name, {}), nested=True)}
        for call in truth.calls
    ]


def _options(args: Mapping[str, Any], schema: Mapping[str, Any], *, nested: bool) -> dict:
    props: Mapping[str, Any] = schema.get("properties") or {}
    out: dict[str, Options] = {}
    for name, sub in props.items():
        if name in args:
            out[name] = [_option(args[name], sub) if nested else args[name]]
        else:
            out[name] = ["", sub["default"]] if "default" in sub else [""]
    for name, value in args.items():
        if name not in props:
            out[name] = [value]
    return out


def _option(value: Any, schema: Mapping[str, Any]) -> Any:
    kind = first_type(schema)
    if kind in _DICT_TYPES and type(value) is dict:
        return _options(value, schema, nested=False)
    if kind in _LIST_TYPES and type(value) is list:
        items = schema.get("items") or {}
        if first_type(items) in _DICT_TYPES:
            return [_options(v, items, nested=False) if type(v) is dict else v for v in value]
    return value


# ---------------------------------------------------------------- entry points


def check_calls(calls: Sequence[Call], truth: GroundTruth) -> Verdict:
    """Check ``calls`` against ``truth``: schema layer, then BFCL-equivalence to the answer."""
    specs = {tool_name(tool): parameters(tool) for tool in truth.tools}
    pairs = [(call[0], call[1]) for call in calls]
    return _check(specs, pairs, possible_answer(truth), truth.category)


def check_bfcl(
    functions: list[dict[str, Any]],
    output: list[dict[str, dict[str, Any]]],
    answer: list[dict[str, Any]],
    category: str,
) -> Verdict:
    """The same rules on BFCL-form inputs (``dict``/``float``/``tuple``/``any`` types allowed).

    ``category`` is a BFCL test category (``simple_python``, ``live_multiple``, …) or ours.
    String constraints follow BFCL's leniency: an enum member matches after
    :func:`standardize_string`, and ``format`` (descriptive in BFCL docs) is not enforced.
    """
    specs = {f["name"]: f.get("parameters") or {} for f in functions}
    pairs = [next(iter(item.items())) if item else ("", {}) for item in output]
    return _check(specs, pairs, answer, _category(category), lenient=True)


def _category(name: str) -> str:
    if "parallel" in name:
        return "parallel"
    if "irrelevance" in name:
        return "irrelevance"
    return "multiple" if "multiple" in name else "simple"


def _check(
    specs: Mapping[str, Mapping[str, Any]],
    pairs: Sequence[tuple[str, Any]],
    answers: Sequence[Mapping[str, Any]],
    category: str,
    *,
    lenient: bool = False,
) -> Verdict:
    issues: list[Issue] = []
    bad = [
        _validate_call(i, name, args, specs, issues, lenient)
        for i, (name, args) in enumerate(pairs)
    ]
    if category == "irrelevance":
        for i, (name, _) in enumerate(pairs):
            text = f"call {i}: no tool fits this request; answer without calling {name!r}"
            issues.append(Issue("unexpected_call", text, i))
    elif len(pairs) != len(answers):
        _count_issues(pairs, answers, specs, issues)
    else:
        _match(specs, pairs, answers, bad, issues)
    return Verdict.of(issues)


# ---------------------------------------------------------------- schema layer


class _Scope:
    """Where a schema check is (call index and name) and what it found so far."""

    __slots__ = ("bad", "index", "issues", "lenient", "where")

    def __init__(self, index: int, name: str, issues: list[Issue], lenient: bool) -> None:
        self.index = index
        self.where = f"call {index} ({name})"
        self.issues = issues
        self.lenient = lenient
        self.bad: set[str] = set()

    def add(self, code: str, text: str, path: str | None = None) -> None:
        self.issues.append(Issue(code, f"{self.where}: {text}", self.index, path))
        if path is not None:
            self.bad.add(path.split(".", 1)[0].split("[", 1)[0])


def _validate_call(
    index: int,
    name: str,
    args: Any,
    specs: Mapping[str, Mapping[str, Any]],
    issues: list[Issue],
    lenient: bool,
) -> set[str] | None:
    """Schema issues of one call; returns its ill-formed parameters (``None``: unknown name)."""
    schema = specs.get(name)
    if schema is None:
        known = ", ".join(specs) or "none"
        text = f"call {index}: no tool is named {name!r}; call one of: {known}"
        issues.append(Issue("unknown_function", text, index))
        return None
    scope = _Scope(index, name, issues, lenient)
    if type(args) is not dict:
        scope.add("wrong_type", f"arguments must be a JSON object, got {_json_type(args)}")
        return {""}
    _validate_object(args, schema, scope, "")
    return scope.bad


def _validate_object(value: dict, schema: Mapping[str, Any], scope: _Scope, prefix: str) -> None:
    props: Mapping[str, Any] = schema.get("properties") or {}
    for key in schema.get("required") or ():
        if key not in value:
            described = _describe(props.get(key) or {})
            text = f"add required parameter {prefix + key!r} ({described})"
            scope.add("missing_required", text, prefix + key)
    closed = bool(props) and not schema.get("additionalProperties")
    for key, item in value.items():
        sub = props.get(key)
        if sub is not None:
            _validate_value(item, sub, scope, prefix + key)
        elif closed or not prefix:
            known = ", ".join(props) or "none"
            text = f"{prefix + key!r} is not a parameter; use only: {known}"
            scope.add("unknown_parameter", text, prefix + key)


def _validate_value(value: Any, schema: Mapping[str, Any], scope: _Scope, path: str) -> None:
    kind = schema.get("type")
    if kind is not None and not _has_type(value, kind):
        text = f"{path!r} must be {_describe(schema)}, got {_json_type(value)} {value!r}"
        scope.add("wrong_type", text, path)
        return
    enum = schema.get("enum")
    if enum is not None and not _in_enum(value, enum, scope.lenient):
        allowed = ", ".join(repr(v) for v in enum)
        scope.add("bad_enum", f"{path!r} is {value!r}; it must be one of {allowed}", path)
        return
    problem = _range_problem(value, schema)
    if problem:
        scope.add("out_of_range", f"{path!r} {problem}", path)
        return
    problem = None if scope.lenient else _format_problem(value, schema)
    if problem:
        scope.add(problem[0], f"{path!r} is {value!r}; {problem[1]}", path)
        return
    if type(value) is dict and schema.get("properties"):
        _validate_object(value, schema, scope, path + ".")
    elif type(value) in (list, tuple):
        items = schema.get("items")
        if isinstance(items, Mapping):
            before = len(scope.issues)
            for i, item in enumerate(value):
                _validate_value(item, items, scope, f"{path}[{i}]")
                if len(scope.issues) > before:
                    return


def _in_enum(value: Any, enum: Sequence[Any], loose: bool) -> bool:
    """Exact membership; ``loose`` (BFCL inputs) compares strings as BFCL does."""
    if value in enum:
        return True
    if not loose or type(value) is not str:
        return False
    wanted = standardize_string(value)
    return any(type(v) is str and standardize_string(v) == wanted for v in enum)


def _has_type(value: Any, kind: Any) -> bool:
    if isinstance(kind, list):
        return any(_has_type(value, k) for k in kind)
    allowed = _PYTHON_TYPES.get(kind)
    return allowed is None or type(value) in allowed


def _range_problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    kind = type(value)
    if kind is int or kind is float:
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and value < low:
            return f"is {value}; it must be ≥ {low}"
        if high is not None and value > high:
            return f"is {value}; it must be ≤ {high}"
        low, high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if type(low) in (int, float) and value <= low:
            return f"is {value}; it must be > {low}"
        if type(high) in (int, float) and value >= high:
            return f"is {value}; it must be < {high}"
    elif kind is str or kind is list:
        unit = "characters" if kind is str else "items"
        low_key, high_key = ("minLength", "maxLength") if kind is str else ("minItems", "maxItems")
        low, high = schema.get(low_key), schema.get(high_key)
        if low is not None and len(value) < low:
            return f"has {len(value)} {unit}; it needs at least {low}"
        if high is not None and len(value) > high:
            return f"has {len(value)} {unit}; it allows at most {high}"
    return None


_FORMATS = {
    "date": r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
    "date-time": r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?$",
    "time": r"^\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?$",
    "email": r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
}
_FORMAT_HINTS = {"date": "YYYY-MM-DD", "date-time": "ISO 8601 like 2026-05-03T09:30:00Z"}


@cache
def _regex(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _format_problem(value: Any, schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """``pattern`` / ``format`` (date, date-time, time, email) of strings; ``uniqueItems``."""
    if type(value) is str:
        pattern = schema.get("pattern")
        regex = _regex(pattern) if isinstance(pattern, str) else None
        if regex is not None and not regex.search(value):
            return "bad_format", f"it must match {pattern}"
        name = schema.get("format")
        regex = _regex(_FORMATS[name]) if name in _FORMATS else None
        if regex is not None and not regex.search(value):
            return "bad_format", f"it must be a {name} ({_FORMAT_HINTS.get(name, name)})"
    elif type(value) is list and schema.get("uniqueItems"):
        seen = [repr(v) for v in value]
        if len(set(seen)) < len(seen):
            return "duplicate_items", "its items must be distinct"
    return None


def _describe(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    names = kind if isinstance(kind, list) else [kind or "any value"]
    words = " or ".join({"dict": "object", "float": "number"}.get(k, k) for k in names)
    items = schema.get("items")
    if isinstance(items, Mapping) and items.get("type"):
        words += f" of {_describe(items)}"
    return f"a JSON {words}" if kind else "any value"


def _json_type(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


# ---------------------------------------------------------------- answer layer


def _count_issues(
    pairs: Sequence[tuple[str, Any]],
    answers: Sequence[Mapping[str, Any]],
    specs: Mapping[str, Any],
    issues: list[Issue],
) -> None:
    want = Counter(next(iter(answer)) for answer in answers)
    got = Counter(name for name, _ in pairs)
    text = f"expected {len(answers)} call(s) ({_tally(want)}), got {len(pairs)} ({_tally(got)})"
    issues.append(Issue("wrong_count", text))
    for name, count in want.items():
        if got[name] < count:
            text = f"call {name!r} {count - got[name]} more time(s) ({count} in all)"
            issues.append(Issue("missing_call", text))
    seen: Counter[str] = Counter()
    for i, (name, _) in enumerate(pairs):
        seen[name] += 1
        if name in specs and seen[name] > want[name]:
            text = f"call {i}: drop this call to {name!r}; the request needs {want[name]}"
            issues.append(Issue("unexpected_call", text, i))


def _tally(counts: Counter[str]) -> str:
    return ", ".join(f"{name} ×{n}" for name, n in counts.items()) or "none"


def _match(
    specs: Mapping[str, Mapping[str, Any]],
    pairs: Sequence[tuple[str, Any]],
    answers: Sequence[Mapping[str, Any]],
    bad: Sequence[set[str] | None],
    issues: list[Issue],
) -> None:
    """BFCL's order-free matching: each answer, in order, takes the first call that fits."""
    taken = [False] * len(pairs)
    unmatched: list[int] = []
    for i, answer in enumerate(answers):
        name, options = next(iter(answer.items()))
        schema = specs.get(name) or {}
        for j, (called, args) in enumerate(pairs):
            if taken[j] or called != name or bad[j] is None or bad[j]:
                continue
            if not _compare(j, name, args, options, schema, set(), stop=True):
                taken[j] = True
                break
        else:
            unmatched.append(i)
    if unmatched:
        _explain(specs, pairs, answers, bad, taken, unmatched, issues)


def _explain(
    specs: Mapping[str, Mapping[str, Any]],
    pairs: Sequence[tuple[str, Any]],
    answers: Sequence[Mapping[str, Any]],
    bad: Sequence[set[str] | None],
    taken: list[bool],
    unmatched: list[int],
    issues: list[Issue],
) -> None:
    """Feedback for unmatched answers: the nearest same-name call's differences, else why not."""
    left = [j for j, used in enumerate(taken) if not used]
    missing: list[str] = []
    for i in unmatched:
        name, options = next(iter(answers[i].items()))
        schema = specs.get(name) or {}
        same = [j for j in left if pairs[j][0] == name and bad[j] is not None]
        if not same:
            missing.append(name)
            continue
        found = [
            (_compare(j, name, pairs[j][1], options, schema, bad[j] or set()), j) for j in same
        ]
        found.sort(key=lambda pair: len(pair[0]))
        issues.extend(found[0][0])
        left.remove(found[0][1])
    known = [j for j in left if bad[j] is not None]
    for name, j in zip(missing, known, strict=False):
        text = f"call {j}: called {pairs[j][0]!r}, but the request needs {name!r}"
        issues.append(Issue("wrong_function", text, j))
    for name in missing[len(known) :]:
        issues.append(Issue("missing_call", f"add a call to {name!r}"))


def _compare(
    index: int,
    name: str,
    args: Mapping[str, Any],
    options: Mapping[str, Options],
    schema: Mapping[str, Any],
    skip: set[str],
    *,
    stop: bool = False,
) -> list[Issue]:
    """How ``args`` differ from one expected call (``stop``: the first difference only)."""
    props: Mapping[str, Any] = schema.get("properties") or {}
    where = f"call {index} ({name})"
    found: list[Issue] = []
    for key, value in args.items():
        if key in skip:
            continue
        accepted = options.get(key)
        if accepted is None:
            text = f"{where}: drop {key!r}; the request does not call for it"
            found.append(Issue("unexpected_parameter", text, index, key))
        elif not equivalent(value, accepted, props.get(key) or {}):
            text = f"{where}: {key!r} is {value!r}; expected {_wanted(accepted)}"
            found.append(Issue("wrong_value", text, index, key))
        if found and stop:
            return found
    required = schema.get("required") or ()
    for key, accepted in options.items():
        if key not in args and "" not in accepted and key not in required:
            text = f"{where}: add {key!r} = {_wanted(accepted)}; the request sets it"
            found.append(Issue("missing_optional", text, index, key))
            if stop:
                return found
    return found


def _wanted(options: Options) -> str:
    shown = [repr(_plain(o)) for o in options if o != ""]
    text = " or ".join(shown) if shown else "nothing"
    return text + " (or leave it out)" if "" in options and shown else text


def _plain(option: Any) -> Any:
    """An option as the value a call would carry (dict options hold lists of options)."""
    if type(option) is dict:
        return {k: v[0] for k, v in option.items() if type(v) is list and v and v[0] != ""}
    if type(option) is list:
        return [_plain(o) if type(o) is dict else o for o in option]
    return option
