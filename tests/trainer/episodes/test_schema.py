"""The action schema of one screen: every reference action is a sentence of it, and it admits
only actions that parse on that screen."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")
pytest.importorskip("xgrammar")

from services.planner.proposers.grammar import GrammarDecoder
from services.trainer.episodes import (
    action_schema,
    action_text,
    episode_rows,
    generate_episodes,
    parse_action,
)
from services.trainer.episodes.schema import MAX_TEXT
from services.trainer.models import build_tiny


@pytest.fixture(scope="module")
def episodes():
    return generate_episodes(4, seed=5, alternatives=0)


@pytest.fixture(scope="module")
def grammar(episodes) -> GrammarDecoder:
    texts = [m["content"] for r in episode_rows(episodes) for m in r["prompt"] + r["completion"]]
    model, tokenizer = build_tiny(texts, seed=0)
    return GrammarDecoder(tokenizer, model.get_output_embeddings().weight.shape[0])


def test_the_schema_names_only_the_screens_elements(episodes) -> None:
    observation = episodes[0].steps[0].observation
    click = action_schema(observation)["anyOf"][0]["properties"]
    assert click["target_id"]["enum"] == [e.id for e in observation.ui]
    assert click["x"]["maximum"] == observation.width - 1
    assert click["y"]["maximum"] == observation.height - 1


def test_every_reference_action_is_a_sentence_of_its_screens_schema(episodes, grammar) -> None:
    for episode in episodes:
        for step in episode.steps:
            text = action_text(step.action)
            assert grammar.accepts(action_schema(step.observation), text), text
            assert parse_action(text, step.observation) == step.action


def _text(answer: dict) -> str:
    return json.dumps(answer, separators=(",", ":"))


def test_answers_that_would_not_parse_are_not_sentences(episodes, grammar) -> None:
    observation = episodes[0].steps[0].observation
    schema = action_schema(observation)
    x, y = observation.ui[0].centre
    rejected = [
        {"type": "click", "target_id": "nowhere", "x": x, "y": y},
        {"type": "click", "target_id": observation.ui[0].id, "x": observation.width, "y": y},
        {"type": "open_app", "app_name": " Clock"},
        {"type": "type", "text": "a" * (MAX_TEXT + 1)},
        {"type": "scroll", "direction": "sideways"},
        {"type": "wait", "x": 1},
    ]
    for answer in rejected:
        assert not grammar.accepts(schema, _text(answer)), answer
    assert grammar.accepts(schema, _text({"type": "type", "text": "a" * MAX_TEXT}))
