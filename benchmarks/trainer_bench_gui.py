"""The trainer benchmark's GUI side: SFT a tiny text policy on episodes, then SOLAR vs sparse.

The policy is a checkpoint on disk, asked through its chat template exactly as the
training rows were rendered (:func:`services.trainer.episodes.render_step_messages`).
Evaluation is teacher-forced and greedy; rollout candidates are sampled once per train
step at the configured temperature and cached, so SOLAR's dense rows and the sparse
baseline's rows are built from the very same candidates. Both decode under the step's
action schema (:func:`services.trainer.episodes.action_schema`, xgrammar as a logits
processor, the machinery the ``hf:`` proposers use), so every answer parses into an action
on that screen unless the token budget cuts it.
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.planner.proposers.hf import load, prompt_text
from services.trainer.episodes import (
    Episode,
    Observation,
    action_schema,
    parse_action,
    render_messages,
    render_step_messages,
    step_success_rate,
)
from services.trainer.solar import SolarConfig, step_validity

__all__ = ["CandidateCache", "greedy_policy", "step_sr"]

MAX_ACTION_TOKENS = 48
"""Longest action answer generated (the longest reference action is well under this)."""


def _generate_options(tokenizer: Any, *, n: int, temperature: float) -> dict[str, Any]:
    """``generate`` keywords: ``n`` samples at ``temperature``, or one greedy answer at 0."""
    sample = temperature > 0
    options: dict[str, Any] = {
        "max_new_tokens": MAX_ACTION_TOKENS,
        "do_sample": sample,
        "num_return_sequences": n if sample else 1,
        "pad_token_id": tokenizer.pad_token_id,
    }
    if sample:
        options.update(temperature=temperature, top_p=1.0)
    return options


def _generate(
    path: str,
    messages: list[dict[str, str]],
    *,
    n: int,
    temperature: float,
    seed: int,
    schema: dict[str, Any] | None = None,
) -> list[str]:
    """``n`` answers of the checkpoint at ``path`` (greedy when ``temperature`` is 0), under
    ``schema`` when given."""
    import torch

    loaded = load(path)
    tokenizer, model = loaded.tokenizer, loaded.model
    inputs = tokenizer(prompt_text(tokenizer, messages), return_tensors="pt")
    options = _generate_options(tokenizer, n=n, temperature=temperature)
    if schema is not None:
        options["logits_processor"] = [loaded.grammar.processor(schema)]
    with torch.random.fork_rng(devices=[]), torch.inference_mode():
        torch.manual_seed(seed)
        output = model.generate(**inputs, **options)
    return tokenizer.batch_decode(
        output[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
    )


BATCH = 16
"""Prompts generated together (left-padded): several times faster than one at a time."""


def generate_many(
    path: str,
    conversations: Sequence[list[dict[str, str]]],
    *,
    n: int,
    temperature: float,
    seed: int,
    batch: int = BATCH,
    schemas: Sequence[dict[str, Any]] | None = None,
) -> list[list[str]]:
    """``n`` answers per conversation (greedy, one, when ``temperature`` is 0), generated
    ``batch`` prompts at a time; prompts are grouped by length to keep padding small.
    With ``schemas`` (one per conversation), each conversation's answers decode under its
    schema."""
    import torch

    loaded = load(path)
    tokenizer, model = loaded.tokenizer, loaded.model
    texts = [prompt_text(tokenizer, m) for m in conversations]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    options = _generate_options(tokenizer, n=n, temperature=temperature)
    out: list[list[str]] = [[] for _ in texts]
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    try:
        for start in range(0, len(order), batch):
            chunk = order[start : start + batch]
            inputs = tokenizer([texts[i] for i in chunk], return_tensors="pt", padding=True)
            per = options["num_return_sequences"]
            if schemas is not None:  # generate repeats each prompt's row ``per`` times
                rows = [schemas[i] for i in chunk for _ in range(per)]
                options["logits_processor"] = [loaded.grammar.batch_processor(rows)]
            with torch.random.fork_rng(devices=[]), torch.inference_mode():
                torch.manual_seed(seed + start)
                output = model.generate(**inputs, **options)
            decoded = tokenizer.batch_decode(
                output[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True
            )
            for k, index in enumerate(chunk):
                out[index] = decoded[k * per : (k + 1) * per]
    finally:
        tokenizer.padding_side = side
    return out


def greedy_policy(path: str) -> Any:
    """``messages → answer`` of the checkpoint at ``path``, greedy and unconstrained (it sees
    no observation, hence no schema): :func:`step_sr`'s fallback for a prompt it did not
    generate up front."""

    def policy(messages: list[dict[str, str]]) -> str:
        return _generate(path, messages, n=1, temperature=0.0, seed=0)[0]

    return policy


def _key(messages: list[dict[str, str]]) -> str:
    return json.dumps(messages, sort_keys=True)


def step_sr(path: str, episodes: Sequence[Episode], config: SolarConfig) -> dict[str, Any]:
    """Teacher-forced step success of the checkpoint on ``episodes`` (validity = SOLAR's Φ);
    every step's greedy answer is generated up front, in batches."""
    validity = functools.partial(step_validity, config=config)
    prompts, schemas = [], []
    for episode in episodes:  # the prompts step_success_rate asks, in its order
        history: list[Any] = []
        for step in episode.steps:
            prompts.append(render_step_messages(episode.goal, step.observation, history))
            schemas.append(action_schema(step.observation))
            history.append(step.action)
    answers = generate_many(path, prompts, n=1, temperature=0.0, seed=0, schemas=schemas)
    known = {_key(m): a[0] for m, a in zip(prompts, answers, strict=True)}
    fallback = greedy_policy(path)

    def policy(messages: list[dict[str, str]]) -> str:
        found = known.get(_key(messages))
        return found if found is not None else fallback(messages)

    figures = step_success_rate(policy, episodes, validity=validity)
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}


@dataclass
class CandidateCache:
    """SOLAR's ``policy(episode, step, n, temperature)``: samples of the checkpoint at
    ``path`` under the step's action schema, drawn once per (episode, step) and replayed on
    every later call. An answer
    that parses becomes its action (with the raw text as ``completion``, what training
    reinforces); one that does not is an action of type ``unparsed``, whose Φ is 0."""

    path: str
    seed: int
    samples: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    parsed: int = 0
    drawn: int = 0

    def __call__(
        self, episode: Mapping[str, Any], index: int, n: int, temperature: float
    ) -> list[dict[str, Any]]:
        key = (str(episode["episode_id"]), index)
        if key not in self.samples:
            step = episode["steps"][index]
            messages = render_messages(episode, index, step)
            seed = zlib.crc32(f"{self.seed}:{key[0]}:{index}".encode())
            observation = Observation.model_validate(step["observation"])
            schema = action_schema(observation)
            texts = _generate(
                self.path, messages, n=n, temperature=temperature, seed=seed, schema=schema
            )
            self.samples[key] = [self._action(text, observation) for text in texts]
        return self.samples[key][:n]

    def prefetch(self, episodes: Sequence[Mapping[str, Any]], n: int, temperature: float) -> None:
        """Draw ``n`` samples for every step of ``episodes`` not drawn yet, in batches."""
        keys, prompts, observations = [], [], []
        for episode in episodes:
            for index, step in enumerate(episode["steps"]):
                key = (str(episode["episode_id"]), index)
                if key not in self.samples:
                    keys.append(key)
                    prompts.append(render_messages(episode, index, step))
                    observations.append(Observation.model_validate(step["observation"]))
        seed = zlib.crc32(f"{self.seed}:batch".encode())
        schemas = [action_schema(observation) for observation in observations]
        texts = generate_many(
            self.path, prompts, n=n, temperature=temperature, seed=seed, schemas=schemas
        )
        for key, answers, observation in zip(keys, texts, observations, strict=True):
            self.samples[key] = [self._action(text, observation) for text in answers]

    def _action(self, text: str, observation: Observation) -> dict[str, Any]:
        self.drawn += 1
        action = parse_action(text, observation)
        if action is None:
            return {"type": "unparsed", "completion": text}
        self.parsed += 1
        return {**action.to_dict(), "completion": text}
