"""The GUI policy decodes under the action schema: even an untrained checkpoint's samples and
greedy answers all parse into actions on their screens."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("xgrammar")

from benchmarks.trainer_bench_gui import CandidateCache, generate_many, step_sr
from services.planner.proposers import hf
from services.trainer.episodes import (
    Observation,
    action_schema,
    episode_rows,
    generate_episodes,
    parse_action,
    render_messages,
)
from services.trainer.models import build_tiny, save_checkpoint
from services.trainer.solar import SolarConfig


@pytest.fixture(scope="module")
def episodes():
    return generate_episodes(2, seed=3, alternatives=0)


@pytest.fixture(scope="module")
def checkpoint(episodes, tmp_path_factory: pytest.TempPathFactory):
    texts = [m["content"] for r in episode_rows(episodes) for m in r["prompt"] + r["completion"]]
    model, tokenizer = build_tiny(texts, seed=0)
    path = str(save_checkpoint(model, tokenizer, tmp_path_factory.mktemp("gui") / "ckpt"))
    yield path
    hf.clear_cache(path)


def test_untrained_samples_all_parse(episodes, checkpoint) -> None:
    cache = CandidateCache(checkpoint, seed=0)
    wire = [episode.to_dict() for episode in episodes]
    cache.prefetch(wire, 3, 1.0)
    steps = sum(len(e.steps) for e in episodes)
    assert cache.drawn == 3 * steps and cache.parsed == cache.drawn
    for samples in cache.samples.values():
        assert all(sample["type"] != "unparsed" for sample in samples)
    # one step asked on its own decodes under the same schema
    fresh = CandidateCache(checkpoint, seed=1)
    assert all(s["type"] != "unparsed" for s in fresh(wire[0], 1, 2, 1.0))


def test_without_schemas_generation_is_unconstrained(episodes, checkpoint) -> None:
    wire = episodes[0].to_dict()
    messages = [render_messages(wire, i, s) for i, s in enumerate(wire["steps"])]
    observations = [Observation.model_validate(s["observation"]) for s in wire["steps"]]
    schemas = [action_schema(o) for o in observations]
    free = generate_many(checkpoint, messages, n=2, temperature=1.0, seed=0)
    held = generate_many(checkpoint, messages, n=2, temperature=1.0, seed=0, schemas=schemas)
    parses = [
        parse_action(text, o) is not None
        for answers, o in zip(held, observations, strict=True)
        for text in answers
    ]
    assert all(parses)
    assert free != held


def test_greedy_evaluation_decodes_under_the_schema(episodes, checkpoint) -> None:
    figures = step_sr(checkpoint, episodes, SolarConfig())
    assert figures["steps"] == sum(len(e.steps) for e in episodes)
    assert figures["parsed_rate"] == 1.0 and 0.0 <= figures["step_sr"] <= 1.0
