"""Stage 1 sampler: category invariants, determinism, mix shares, balance, speed."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from services.synth.calls import CATEGORIES, GroundTruth, parameters, tool_name
from services.synth.catalog import BUILTIN_DOMAINS, builtin_catalog
from services.synth.sampling import (
    Sampler,
    UnrealisableCatalogError,
    normalise_mix,
    normalised_entropy,
)

TOOLS = builtin_catalog()
BY_NAME = {tool_name(tool): tool for tool in TOOLS}


@pytest.fixture(scope="module")
def samples() -> list[GroundTruth]:
    return [truth for truth, _ in zip(Sampler(TOOLS, seed=42), range(2000), strict=False)]


def _usage(truths: list[GroundTruth]) -> Counter[str]:
    """How often each function is what a sample asks for (calls, or the irrelevant intent)."""
    use: Counter[str] = Counter()
    for truth in truths:
        use.update(call.name for call in truth.calls)
        if truth.category == "irrelevance":
            use[truth.features["intent"]["name"]] += 1
    return use


def _signature(truth: GroundTruth) -> tuple[Any, ...]:
    return (
        truth.category,
        [tool_name(tool) for tool in truth.tools],
        [(call.name, call.arguments) for call in truth.calls],
    )


def test_same_seed_replays_the_same_sequence() -> None:
    first = [_signature(t) for t, _ in zip(Sampler(TOOLS, seed=7), range(300), strict=False)]
    again = [_signature(t) for t, _ in zip(Sampler(TOOLS, seed=7), range(300), strict=False)]
    other = [_signature(t) for t, _ in zip(Sampler(TOOLS, seed=8), range(300), strict=False)]
    assert first == again
    assert first != other


def test_every_sample_keeps_its_category_contract(samples: list[GroundTruth]) -> None:
    for truth in samples:
        names = [tool_name(tool) for tool in truth.tools]
        called = [call.name for call in truth.calls]
        assert len(set(names)) == len(names)
        assert set(called) <= set(names)
        keys = [repr(sorted(call.arguments.items())) for call in truth.calls]
        assert len(set(keys)) == len(keys), "calls of one sample must differ"
        if truth.category == "simple":
            assert len(names) == 1 and len(called) == 1
        elif truth.category == "multiple":
            assert 2 <= len(names) <= 4 and len(called) == 1
        elif truth.category == "parallel":
            assert 2 <= len(called) <= 4 and len(set(called)) == 1
        elif truth.category == "parallel_multiple":
            assert 2 <= len(set(called)) <= 3
            assert max(Counter(called).values()) >= 2
        else:
            _check_irrelevance(truth, names)


def _check_irrelevance(truth: GroundTruth, names: list[str]) -> None:
    intent = truth.features["intent"]
    assert truth.calls == ()
    assert intent["name"] not in names
    assert tool_name(truth.features["intent_tool"]) == intent["name"]
    assert 1 <= len(names) <= 3
    domain = BUILTIN_DOMAINS[intent["name"]]
    assert all(BUILTIN_DOMAINS[name] != domain for name in names)
    schema = parameters(truth.features["intent_tool"])
    assert Draft202012Validator(schema).is_valid(intent["arguments"])


def test_every_call_is_valid_for_its_tool(samples: list[GroundTruth]) -> None:
    validators = {
        name: Draft202012Validator(
            parameters(tool), format_checker=Draft202012Validator.FORMAT_CHECKER
        )
        for name, tool in BY_NAME.items()
    }
    for truth in samples:
        for call in truth.calls:
            assert validators[call.name].is_valid(call.arguments), call


def test_features_describe_the_sample(samples: list[GroundTruth]) -> None:
    for truth in samples[:300]:
        features = truth.features
        assert features["functions"] == list(truth.functions)
        assert features["size"] == len(truth.calls)
        assert features["candidates"] == len(truth.tools)
        assert set(features["param_types"]) <= {
            "string",
            "integer",
            "number",
            "boolean",
            "enum",
            "array",
            "object",
        }
        assert features["optional_used"] >= 0
        assert features["domain"] in set(BUILTIN_DOMAINS.values())
        if truth.category != "irrelevance":
            assert features["domains"] == sorted({BUILTIN_DOMAINS[n] for n in truth.functions})


def test_candidate_order_is_shuffled(samples: list[GroundTruth]) -> None:
    positions = Counter(
        [tool_name(t) for t in truth.tools].index(truth.calls[0].name)
        for truth in samples
        if truth.category == "multiple"
    )
    assert len(positions) >= 3
    assert max(positions.values()) < 0.6 * sum(positions.values())


def test_default_mix_is_even(samples: list[GroundTruth]) -> None:
    shares = Counter(truth.category for truth in samples)
    for category in CATEGORIES:
        assert abs(shares[category] / len(samples) - 0.2) <= 0.03


def test_custom_mix_is_normalised_and_followed() -> None:
    mix = {"simple": 2, "parallel": 1, "irrelevance": 1}
    sampler = Sampler(TOOLS, seed=3, mix=mix)
    truths = [sampler.sample() for _ in range(2000)]
    shares = Counter(truth.category for truth in truths)
    assert sampler.mix["simple"] == pytest.approx(0.5)
    assert shares["multiple"] == shares["parallel_multiple"] == 0
    for category, weight in mix.items():
        assert abs(shares[category] / 2000 - weight / 4) <= 0.03


@pytest.mark.parametrize(
    ("mix", "message"),
    [
        ({"simple": 1, "chatty": 1}, "unknown category \\['chatty'\\]"),
        ({"simple": -1}, "finite number >= 0"),
        ({"simple": float("nan")}, "finite number"),
        ({"simple": 0, "multiple": 0}, "at least one"),
    ],
)
def test_bad_mix_is_a_clear_value_error(mix: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        normalise_mix(mix)
    with pytest.raises(ValueError, match=message):
        Sampler(TOOLS, seed=0, mix=mix)


def test_function_usage_is_balanced_and_beats_uniform(samples: list[GroundTruth]) -> None:
    use = _usage(samples)
    balanced = normalised_entropy(use, len(TOOLS))
    rng = random.Random(0)
    names = list(BY_NAME)
    uniform = Counter(rng.choice(names) for _ in range(sum(use.values())))
    assert balanced >= 0.95
    assert balanced >= normalised_entropy(uniform, len(TOOLS))
    assert max(use.values()) - min(use.values()) <= 0.25 * max(use.values())


def test_sizes_and_optional_use_are_balanced(samples: list[GroundTruth]) -> None:
    for category, sizes in (("parallel", (2, 3, 4)), ("multiple", (2, 3, 4))):
        key = "size" if category == "parallel" else "candidates"
        counts = Counter(t.features[key] for t in samples if t.category == category)
        assert set(counts) == set(sizes)
        assert normalised_entropy(counts, len(sizes)) >= 0.98
    optional = Counter(
        min(t.features["optional_used"], 3) for t in samples if t.category == "simple"
    )
    assert len(optional) == 4
    types = Counter(p for t in samples for p in t.features["param_types"])
    assert set(types) == {"string", "integer", "number", "boolean", "enum", "array", "object"}


def test_infeasible_categories_are_refused_with_a_hint() -> None:
    one = [BY_NAME["get_current_weather"]]
    with pytest.raises(ValueError, match="'multiple' needs at least 2 tools"):
        Sampler(one, seed=0)
    truths = [
        t
        for t, _ in zip(
            Sampler(one, seed=0, mix={"simple": 1, "parallel": 1}), range(20), strict=False
        )
    ]
    assert {t.category for t in truths} == {"simple", "parallel"}
    weather = [BY_NAME[n] for n in ("get_current_weather", "get_weather_forecast")]
    with pytest.raises(ValueError, match="'irrelevance' needs tools from at least 2 domains"):
        Sampler(weather, seed=0)


def test_custom_domains_drive_irrelevance() -> None:
    tools = [BY_NAME[n] for n in ("get_current_weather", "get_weather_forecast", "book_hotel")]
    domains = {"get_current_weather": "sky", "get_weather_forecast": "sky", "book_hotel": "stay"}
    sampler = Sampler(tools, seed=5, mix={"irrelevance": 1}, domains=domains)
    for _ in range(50):
        truth = sampler.sample()
        intent = truth.features["intent"]["name"]
        assert all(domains[tool_name(t)] != domains[intent] for t in truth.tools)


def test_normalised_entropy() -> None:
    assert normalised_entropy({"a": 5, "b": 5, "c": 5}, 3) == pytest.approx(1.0)
    assert normalised_entropy({"a": 9}, 3) == 0.0
    assert normalised_entropy({"a": 1, "b": 0}, 2) == 0.0
    assert normalised_entropy({}, 4) == 0.0
    assert normalised_entropy({"a": 3}, 1) == 1.0
    assert 0 < normalised_entropy({"a": 9, "b": 1}, 2) < 1


def test_sequence_does_not_depend_on_hash_randomisation() -> None:
    """A resumed job replays the sequence in a new process, with a new string-hash seed."""
    script = (
        "from services.synth.catalog import builtin_catalog\n"
        "from services.synth.sampling import Sampler\n"
        "s = Sampler(builtin_catalog(), seed=9)\n"
        "truths = [s.sample() for _ in range(200)]\n"
        "print(repr([(t.category, list(t.calls)) for t in truths]))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    sampler = Sampler(TOOLS, seed=9)
    here = repr([(t.category, list(t.calls)) for t in (sampler.sample() for _ in range(200))])
    assert outputs == {here + "\n"}


_UNDRAWABLE = {  # three distinct items from a two-value enum: a valid schema, no valid value
    "type": "array",
    "items": {"type": "string", "enum": ["red", "blue"]},
    "minItems": 3,
    "uniqueItems": True,
}


def _tool(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"Does {name}.",
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def test_an_unrealisable_function_is_reported_by_name_and_reason_never_drawn() -> None:
    paint = _tool("paint_wall", {"colours": _UNDRAWABLE}, ["colours"])
    tools = [*TOOLS[:6], paint]
    sampler = Sampler(tools, seed=0, mix={"simple": 1, "multiple": 1})
    assert [u["name"] for u in sampler.unrealisable] == ["paint_wall"]
    assert "3 distinct items" in sampler.unrealisable[0]["reason"]
    assert "paint_wall" not in sampler.functions and len(sampler.functions) == 6
    drawn = [sampler.sample() for _ in range(200)]
    assert all(tool_name(t) != "paint_wall" for truth in drawn for t in truth.tools)
    assert set(_usage(drawn)) == set(sampler.functions)


def test_an_unrealisable_optional_parameter_is_left_out_and_reported() -> None:
    shade = _tool("shade_window", {"level": {"type": "integer"}, "colours": _UNDRAWABLE}, ["level"])
    sampler = Sampler([shade, *TOOLS[:3]], seed=1, mix={"simple": 1})
    assert sampler.functions[0] == "shade_window"
    assert sampler.unrealisable == [
        {"name": "shade_window", "reason": sampler.unrealisable[0]["reason"]}
    ]
    assert "optional parameter 'colours'" in sampler.unrealisable[0]["reason"]
    calls = [c for _ in range(100) for c in sampler.sample().calls if c.name == "shade_window"]
    assert calls and all("colours" not in c.arguments for c in calls)


def test_a_catalog_with_nothing_realisable_is_refused() -> None:
    with pytest.raises(UnrealisableCatalogError, match="paint_wall"):
        Sampler([_tool("paint_wall", {"colours": _UNDRAWABLE}, ["colours"])], seed=0)
