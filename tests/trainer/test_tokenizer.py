"""The locally trained tokenizer renders chats exactly as the planner prompts its models."""

from __future__ import annotations

import pytest

pytest.importorskip("tokenizers")

from services.planner.proposers.hf import plain_prompt, prompt_text
from services.trainer.tokenizer import build_tokenizer, corpus_texts, normalise_messages

MESSAGES = [
    {"role": "system", "content": "You repair timelines."},
    {"role": "user", "content": "shot 2 is too long"},
]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
CALL = {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"x": 1}}}]}


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer(corpus_texts([{"prompt": MESSAGES}]) * 4, vocab_size=400)


def test_prompts_render_like_the_planner(tokenizer) -> None:
    assert prompt_text(tokenizer, MESSAGES) == plain_prompt(MESSAGES)
    assert prompt_text(tokenizer, MESSAGES[1:]) == plain_prompt(MESSAGES[1:])


def test_assistant_turns_end_with_eos_inside_the_loss_mask(tokenizer) -> None:
    answer = {"role": "assistant", "content": "trim 2"}
    text = tokenizer.apply_chat_template([*MESSAGES, answer], tokenize=False)
    assert text == plain_prompt(MESSAGES) + "trim 2<eos>"
    follow_up = {"role": "user", "content": "again"}
    text = tokenizer.apply_chat_template([*MESSAGES, answer, follow_up], tokenize=False)
    assert text == plain_prompt([*MESSAGES, answer, follow_up])[: -len("assistant:\n")].replace(
        "trim 2\n\n", "trim 2<eos>\n\n"
    )
    out = tokenizer.apply_chat_template(
        [*MESSAGES, answer], tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    kept = [i for i, m in zip(out["input_ids"], out["assistant_masks"], strict=True) if m]
    assert tokenizer.decode(kept) == "trim 2<eos>"


def test_tools_go_into_the_system_message_and_calls_render_as_json(tokenizer) -> None:
    with_system = tokenizer.apply_chat_template(MESSAGES, tools=TOOLS, tokenize=False)
    assert with_system.startswith('system:\nYou repair timelines.\n\nTools:\n{"type": "function"')
    calls = normalise_messages([MESSAGES[1], CALL])
    assert calls[1]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'
    text = tokenizer.apply_chat_template(calls, tools=TOOLS, tokenize=False)
    assert text.startswith("system:\nTools:\n")
    assert text.endswith('assistant:\n{"name": "f", "arguments": {"x": 1}}<eos>')


def test_tokenizer_is_deterministic_and_byte_level(tokenizer) -> None:
    again = build_tokenizer(corpus_texts([{"prompt": MESSAGES}]) * 4, vocab_size=400)
    text = "unseen: ünïcödé ✂"
    assert tokenizer.encode(text) == again.encode(text)
    assert tokenizer.decode(tokenizer.encode(text)) == text
    assert tokenizer.pad_token == "<pad>" and tokenizer.eos_token == "<eos>"
