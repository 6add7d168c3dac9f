"""A byte-level BPE tokenizer trained on the run's own rows, with the planner's chat format.

The chat template renders every message as ``"{role}:\\n{content}\\n\\n"`` and opens the
assistant turn with ``"assistant:\\n"``: exactly :func:`services.planner.proposers.hf.plain_prompt`,
so a checkpoint published from here and loaded by the planner's ``HFProposer`` (which applies
the template) sees the same text it was trained on. Assistant turns end with the eos token
inside ``{% generation %}`` markers, so assistant-only loss also teaches the model to stop.

Tools: the template renders the tool list (one JSON schema a line) into the system message
(a ``system`` turn is opened when the conversation has none), and an assistant's tool calls as
one ``{"name": …, "arguments": …}`` JSON line each after its content.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "CHAT_TEMPLATE",
    "EOS",
    "PAD",
    "build_tokenizer",
    "corpus_texts",
    "normalise_messages",
]

EOS = "<eos>"
PAD = "<pad>"

CHAT_TEMPLATE = (
    # newlines only inside expressions: the template environment trims them after tags
    "{% if tools %}{% set tool_text = 'Tools:\\n' ~ (tools | map('tojson') | join('\\n')) %}"
    "{% endif %}"
    "{% if tools and (messages | length == 0 or messages[0].role != 'system') %}"
    "{{ 'system:\\n' ~ tool_text ~ '\\n\\n' }}"
    "{% endif %}"
    "{% for m in messages %}"
    "{% if m.role == 'assistant' %}"
    "{{ 'assistant:\\n' }}{% generation %}{{ m.content or '' }}"
    "{% if m.tool_calls %}{% for c in m.tool_calls %}"
    "{% if m.content or not loop.first %}{{ '\\n' }}{% endif %}"
    "{{ '{\"name\": ' ~ (c.function.name | tojson) ~ ', \"arguments\": ' }}"
    "{% if c.function.arguments is string %}{{ c.function.arguments }}"
    "{% else %}{{ c.function.arguments | tojson }}{% endif %}{{ '}' }}"
    "{% endfor %}{% endif %}"
    # no separator after the last turn: prompt/completion SFT trains on everything after the
    # prompt, and a trailing blank line there teaches the model to answer with newlines
    "{{ eos_token }}{% endgeneration %}{% if not loop.last %}{{ '\\n\\n' }}{% endif %}"
    "{% else %}"
    "{{ m.role ~ ':\\n' ~ (m.content or '') }}"
    "{% if loop.first and m.role == 'system' and tools %}{{ '\\n\\n' ~ tool_text }}{% endif %}"
    "{{ '\\n\\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ 'assistant:\\n' }}{% endif %}"
)


def build_tokenizer(corpus: Iterable[str], *, vocab_size: int = 1024) -> Any:
    """A ``PreTrainedTokenizerFast`` (byte-level BPE: any text encodes, nothing is unknown)
    with ``<pad>``/``<eos>`` and :data:`CHAT_TEMPLATE`; deterministic for a given corpus."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = list(corpus)
    # the template's own scaffolding gets merges too
    texts += ["system:\n", "user:\n", "assistant:\n", "tool:\n", "Tools:\n", '{"name": ']
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token=PAD, eos_token=EOS)
    fast.chat_template = CHAT_TEMPLATE
    return fast


def normalise_messages(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages with tool-call arguments as JSON strings (the OpenAI wire form): Arrow
    tables would otherwise merge every call's argument keys into one struct."""
    out = []
    for message in messages:
        item = dict(message)
        if item.get("tool_calls"):
            item["tool_calls"] = [_call(call) for call in item["tool_calls"]]
        out.append(item)
    return out


def _call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function") or call)
    arguments = function.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"type": "function", "function": {"name": function["name"], "arguments": arguments}}


def corpus_texts(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every text a row holds (prompts, completions, chosen/rejected, messages, tools)."""
    texts: list[str] = []
    for row in rows:
        for key in ("prompt", "completion", "chosen", "rejected", "messages"):
            value = row.get(key)
            if isinstance(value, str):
                texts.append(value)
            elif isinstance(value, list):
                texts.extend(_message_texts(value))
        if row.get("tools"):
            tools = row["tools"]
            texts.append(tools if isinstance(tools, str) else json.dumps(tools, ensure_ascii=False))
    return texts


def _message_texts(messages: list[Any]) -> list[str]:
    texts = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        if message.get("content"):
            texts.append(str(message["content"]))
        for call in message.get("tool_calls") or []:
            texts.append(json.dumps(_call(call)["function"], ensure_ascii=False))
    return texts
