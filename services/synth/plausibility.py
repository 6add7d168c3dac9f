"""Stage 1's check and refinement: is a sampled ground truth something a person would ask?

The schema says what is *valid*; this says what is *plausible*. Issues (codes):

- ``start_after_end``: a range whose start is not before its end (``check_in`` /
  ``check_out``, ``start_time`` / ``end_time``, ``min_price`` / ``max_price``).
- ``date_before_reference``: a booking-like call (book, reserve, rent, schedule, buy,
  order, create, send, set…) dated before the example's reference date (``meta.features.
  reference_date``: the "today" the request is written on).
- ``currency_mismatch``: a call naming a country and a currency that is not the
  country's own.
- ``implausible_quantity``: a number outside a sane range for its unit (a unit said by the
  parameter's name, ``distance_km``, or by a unit enum in the same call, ``800 ounces``).
- ``duplicate_call``: two identical calls in a parallel answer.

:func:`refine_truth` answers each issue the way a careful writer would (swap the range,
move the date past the reference, use the country's currency, bring the quantity into range,
vary the repeated call) and checks again; each round is one trace entry, stage ``truth``.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from services.synth.calls import Call, GroundTruth, Issue, Verdict, parameters, tool_name
from services.synth.catalog import pools

__all__ = ["REFERENCE_DATE", "check_truth", "refine_truth"]

REFERENCE_DATE = pools.FIRST_DAY - dt.timedelta(days=1)
"""The day every built-in example is written on (its dates all lie after it)."""

_BOOKING = re.compile(
    r"^(?:book|reserve|rent|schedule|buy|order|create|send|set|place|add|make|plan)_"
)
_PAIRS = (
    ("start", "end"), ("check_in", "check_out"), ("pickup", "return"), ("departure", "return"),
    ("earliest", "latest"), ("min", "max"), ("trip_start", "trip_end"), ("first", "last"),
    ("since", "until"), ("from", "to"),
)  # fmt: skip
_CURRENCY = {
    "united states": "USD", "usa": "USD", "us": "USD", "united kingdom": "GBP", "uk": "GBP",
    "germany": "EUR", "france": "EUR", "spain": "EUR", "italy": "EUR", "netherlands": "EUR",
    "portugal": "EUR", "ireland": "EUR", "austria": "EUR", "japan": "JPY", "china": "CNY",
    "india": "INR", "canada": "CAD", "australia": "AUD", "switzerland": "CHF",
    "brazil": "BRL", "mexico": "MXN", "south korea": "KRW", "singapore": "SGD",
    "thailand": "THB", "sweden": "SEK", "norway": "NOK", "denmark": "DKK",
    "south africa": "ZAR", "turkey": "TRY", "argentina": "ARS", "kenya": "KES",
    "new zealand": "NZD", "egypt": "EGP", "morocco": "MAD", "poland": "PLN",
}  # fmt: skip
_RANGES = {
    "km": (0.0, 20_000.0), "meters": (0.0, 100_000.0), "minutes": (0.0, 24 * 60.0),
    "hours": (0.0, 24 * 14.0), "seconds": (0.0, 24 * 3600.0), "days": (0.0, 366.0),
    "months": (0.0, 600.0), "years": (0.0, 150.0), "percent": (0.0, 100.0),
    "celsius": (-60.0, 60.0), "kg": (0.0, 500.0), "cm": (0.0, 300.0), "grams": (0.0, 5000.0),
    "ounce": (0.0, 160.0), "cup": (0.0, 50.0), "teaspoon": (0.0, 100.0),
    "tablespoon": (0.0, 100.0), "ml": (0.0, 10_000.0), "gram": (0.0, 5000.0),
    "pound": (0.0, 100.0), "liter": (0.0, 50.0),
}  # fmt: skip


def check_truth(truth: GroundTruth, reference: dt.date = REFERENCE_DATE) -> Verdict:
    """Plausibility issues of ``truth``'s calls (irrelevance: of its intent)."""
    calls = truth.calls
    issues: list[Issue] = []
    for index, call in enumerate(calls):
        issues += _ranges(index, call)
        issues += _dated(index, call, reference)
        issues += _currency(index, call)
        issues += _quantities(index, call)
    seen: dict[str, int] = {}
    for index, call in enumerate(calls):
        key = call.name + json.dumps(call.arguments, sort_keys=True, default=str)
        if key in seen:
            text = f"call {index} repeats call {seen[key]} exactly; vary one of its values"
            issues.append(Issue("duplicate_call", text, index))
        seen.setdefault(key, index)
    return Verdict.of(issues)


def _ranges(index: int, call: Call) -> list[Issue]:
    out = []
    args = call.arguments
    for start_word, end_word in _PAIRS:
        for key in args:
            if not _has(key, start_word):
                continue
            other = _partner(key, start_word, end_word, args)
            if other is None or not _comparable(args[key], args[other]):
                continue
            if not args[key] < args[other]:
                text = (
                    f"call {index}: {key} ({args[key]!r}) is not before {other} ({args[other]!r})"
                )
                out.append(Issue("start_after_end", text, index, key))
    return out


def _has(key: str, word: str) -> bool:
    return key == word or key.startswith(word + "_") or key.endswith("_" + word)


def _partner(key: str, start: str, end: str, args: Mapping[str, Any]) -> str | None:
    for candidate in (key.replace(start, end, 1), end):
        if candidate != key and candidate in args:
            return candidate
    return None


def _comparable(a: Any, b: Any) -> bool:
    both_numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    both_text = all(isinstance(v, str) and re.fullmatch(r"[\d:T\-Z]+", v) for v in (a, b))
    return both_numbers or (both_text and len(a) == len(b))


def _dated(index: int, call: Call, reference: dt.date) -> list[Issue]:
    if not _BOOKING.match(call.name):
        return []
    out = []
    for key, value in call.arguments.items():
        day = _day(value)
        if day is not None and day <= reference:
            text = f"call {index}: {key} {value} is not after the reference date {reference}"
            out.append(Issue("date_before_reference", text, index, key))
    return out


def _day(value: Any) -> dt.date | None:
    if not isinstance(value, str) or not re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _currency(index: int, call: Call) -> list[Issue]:
    country = next((v for k, v in call.arguments.items() if "country" in k), None)
    if not isinstance(country, str) or country.lower() not in _CURRENCY:
        return []
    want = _CURRENCY[country.lower()]
    out = []
    for key, value in call.arguments.items():
        if "currency" in key and isinstance(value, str) and value.upper() != want:
            text = f"call {index}: {key} {value} is not the currency of {country} ({want})"
            out.append(Issue("currency_mismatch", text, index, key))
    return out


def _unit_of(key: str, call: Call) -> str | None:
    last = key.lower().split("_")[-1]
    if last in _RANGES:
        return last
    for other, value in call.arguments.items():
        if "unit" in other and isinstance(value, str) and other.startswith(("from", "unit")):
            said = value.lower().rstrip("s")
            return said if said in _RANGES else None
    return None


def _quantities(index: int, call: Call) -> list[Issue]:
    out = []
    for key, value in call.arguments.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        unit = _unit_of(key, call)
        if unit is None:
            continue
        low, high = _RANGES[unit]
        if not low <= value <= high:
            text = f"call {index}: {key} = {value} {unit} is outside {low:g}…{high:g}"
            out.append(Issue("implausible_quantity", text, index, key))
    return out


def refine_truth(
    truth: GroundTruth,
    *,
    rounds: int,
    seed: int,
    trace: list[dict[str, Any]],
    reference: dt.date = REFERENCE_DATE,
) -> tuple[GroundTruth, bool, int]:
    """(refined truth, plausible?, refinement rounds used): check, fix what the issues
    name, check again, at most ``rounds`` times. Every check is one ``truth`` trace entry."""
    rng = random.Random(seed ^ 0x5EED)
    features = {**truth.features, "reference_date": reference.isoformat()}
    truth = replace(truth, features=features)
    for round_ in range(rounds + 1):
        verdict = check_truth(truth, reference)
        trace.append(
            {
                "stage": "truth",
                "round": round_,
                "output": [c.wire() for c in truth.calls],
                "verdict": {"ok": verdict.ok, "issues": [i._asdict() for i in verdict.issues]},
            }
        )
        if verdict.ok:
            return truth, True, round_
        if round_ == rounds:
            break
        truth = _fixed(truth, verdict.issues, rng, reference)
    return truth, False, rounds


def _fixed(
    truth: GroundTruth, issues: Sequence[Issue], rng: random.Random, reference: dt.date
) -> GroundTruth:
    calls = [Call(c.name, dict(c.arguments)) for c in truth.calls]
    for issue in issues:
        if issue.call is None:
            continue
        args = calls[issue.call].arguments
        key = issue.param
        if issue.code == "start_after_end" and key:
            _swap(args, key)
        elif issue.code == "date_before_reference" and key:
            day = reference + dt.timedelta(days=rng.randint(1, 60))
            args[key] = day.isoformat() + str(args[key])[10:]
        elif issue.code == "currency_mismatch" and key:
            country = next(v for k, v in args.items() if "country" in k)
            args[key] = _CURRENCY[country.lower()]
        elif issue.code == "implausible_quantity" and key:
            low, high = _RANGES[_unit_of(key, calls[issue.call]) or "km"]
            value = rng.uniform(max(low, 1.0), min(high, max(low, 1.0) * 50))
            args[key] = int(value) if isinstance(args[key], int) else round(value, 1)
        elif issue.code == "duplicate_call":
            _vary(calls[issue.call], _schema(truth, calls[issue.call].name), rng)
    return replace(truth, calls=tuple(calls))


def _swap(args: dict[str, Any], key: str) -> None:
    for start, end in _PAIRS:
        if _has(key, start):
            other = _partner(key, start, end, args)
            if other is not None:
                args[key], args[other] = args[other], args[key]
                return


def _schema(truth: GroundTruth, name: str) -> Mapping[str, Any]:
    tool = next((t for t in truth.tools if tool_name(t) == name), None)
    return parameters(tool).get("properties", {}) if tool else {}


def _vary(call: Call, props: Mapping[str, Any], rng: random.Random) -> None:
    """Change one value of a repeated call: a number nudged, an enum moved to another option."""
    from services.synth.values import sample_value

    for key in sorted(call.arguments, key=lambda k: rng.random()):
        schema = props.get(key, {})
        if schema.get("type") in ("integer", "number", "string") or "enum" in schema:
            for _ in range(8):
                value = sample_value(schema, rng, name=key)
                if value != call.arguments[key]:
                    call.arguments[key] = value
                    return
