"""Stage 3 by a language model: the calls a query asks for, decoded under their schema.

The model reads the query beneath a compact listing of the candidate tools (one signature
line each, then a line per described parameter) and writes a JSON list of calls. xgrammar
constrains the list to the candidates (:func:`calls_schema`): every item names one of them
and carries arguments its parameters schema accepts, so every answer parses and names only
offered functions. Whether it is the *right* call stays the check's business, as for any
reader. Questions are decoded in batches, greedily, the shortest prompts together.

A refinement round (:func:`retry_messages`) continues the chat: the earlier answer as the
assistant's turn, then a user line with the check's issues asking for another answer. When
the request is written on a known day, the system turn ends with ``Today is <date>.``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from services.synth.calls import Call, Issue, Tool, parameters, tool_name

__all__ = [
    "SPACED",
    "SYSTEM",
    "ModelReader",
    "answer_text",
    "calls_schema",
    "complete_items",
    "parse_calls",
    "prompt_messages",
    "repeats",
    "retry_messages",
    "tool_listing",
    "training_row",
]

SYSTEM = "You call functions. Answer with a JSON list of calls to these functions:"
_DESCRIPTION_CHARS = 200
SPACED = (", ", ": ")
"""``json.dumps``' own separators, the JSON a pretrained model has read most: after a bare
``":"`` SmolLM2-135M starts numbers with the wrong digit (36 read as 1, 200000 as 100000)."""


def _arguments_schema(tool: Tool) -> dict[str, Any]:
    """The tool's parameters as a closed object schema (no property it does not name)."""
    schema = copy.deepcopy(parameters(tool))
    schema["type"] = "object"
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def calls_schema(tools: Sequence[Tool], *, min_calls: int = 0, max_calls: int = 8) -> dict:
    """A JSON list of ``{"name", "arguments"}`` items, each naming one of ``tools`` with
    arguments its schema accepts; ``min_calls`` 0 lets the answer be no call at all."""
    items = [
        {
            "type": "object",
            "properties": {
                "name": {"const": tool_name(tool)},
                "arguments": _arguments_schema(tool),
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    return {
        "type": "array",
        "items": {"anyOf": items},
        "minItems": min_calls,
        "maxItems": max_calls,
    }


def _kind(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return "|".join(json.dumps(value) for value in spec["enum"])
    kind = spec.get("type", "any")
    if kind == "array" and isinstance(spec.get("items"), dict):
        return f"array of {_kind(spec['items'])}"
    return kind if isinstance(kind, str) else "|".join(kind)


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _DESCRIPTION_CHARS else text[: _DESCRIPTION_CHARS - 1] + "…"


def tool_listing(tool: Tool) -> str:
    """``- name(a: string, b?: integer): what it does`` and one line per described
    parameter (``?`` marks an optional one)."""
    schema = parameters(tool)
    required = set(schema.get("required", ()))
    properties: dict[str, Any] = schema.get("properties", {})
    signature = ", ".join(
        f"{name}{'' if name in required else '?'}: {_kind(spec)}"
        for name, spec in properties.items()
    )
    description = _short(tool["function"].get("description", ""))
    lines = [f"- {tool_name(tool)}({signature}): {description}"]
    lines += [
        f"    {name}: {_short(spec['description'])}"
        for name, spec in properties.items()
        if spec.get("description")
    ]
    return "\n".join(lines)


def prompt_messages(
    query: str, tools: Sequence[Tool], *, reference: date | None = None
) -> list[dict[str, str]]:
    """The system turn listing ``tools`` (and the day, when ``reference`` is given), then the
    query."""
    listing = "\n".join(tool_listing(tool) for tool in tools)
    today = f"\nToday is {reference.isoformat()}." if reference is not None else ""
    return [
        {"role": "system", "content": f"{SYSTEM}\n{listing}{today}"},
        {"role": "user", "content": query},
    ]


def retry_messages(
    query: str,
    tools: Sequence[Tool],
    previous: Sequence[Call],
    issues: Sequence[Issue],
    *,
    reference: date | None = None,
) -> list[dict[str, str]]:
    """A refinement round's chat: the first prompt, the earlier answer as the assistant's
    turn, and the check's issues as the user's reply."""
    problems = " ".join(issue.message.rstrip(".") + "." for issue in issues)
    reply = f"That answer was wrong: {problems} Answer again." if issues else "Answer again."
    return [
        *prompt_messages(query, tools, reference=reference),
        {"role": "assistant", "content": answer_text(previous, tools)},
        {"role": "user", "content": reply},
    ]


def answer_text(calls: Sequence[Call], tools: Sequence[Tool]) -> str:
    """The calls as the reader decodes them: JSON with ``json.dumps``' own separators (a
    small model writes numbers right after ``": "`` and wrong after a bare ``":"``), keys in
    their schema's order: what the grammar lets the model write, so what training should
    show it."""
    order = {tool_name(t): list(parameters(t).get("properties", {})) for t in tools}

    def arguments(call: Call) -> dict[str, Any]:
        keys = order.get(call.name, [])
        ranked = sorted(call.arguments, key=lambda k: keys.index(k) if k in keys else len(keys))
        return {key: call.arguments[key] for key in ranked}

    items = [{"name": call.name, "arguments": arguments(call)} for call in calls]
    return json.dumps(items, ensure_ascii=False, separators=SPACED)


def training_row(query: str, tools: Sequence[Tool], calls: Sequence[Call]) -> dict[str, Any]:
    """A prompt/completion SFT row in the reader's own format."""
    return {
        "prompt": prompt_messages(query, tools),
        "completion": [{"role": "assistant", "content": answer_text(calls, tools)}],
    }


def complete_items(text: str) -> list[Any]:
    """The JSON values of a list written so far, up to the last complete one."""
    decoder = json.JSONDecoder()
    position = text.find("[") + 1
    items: list[Any] = []
    while 0 < position < len(text):
        while position < len(text) and text[position] in " ,\n":
            position += 1
        try:
            item, position = decoder.raw_decode(text, position)
        except ValueError:
            break
        items.append(item)
    return items


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True)


def repeats(text: str) -> bool:
    """Whether the list written so far holds one call twice (small models, left alone,
    repeat their first call until the token budget runs out)."""
    keys = [_key(item) for item in complete_items(text)]
    return len(keys) != len(set(keys))


def parse_calls(text: str) -> tuple[Call, ...]:
    """The distinct calls of a decoded answer, in order; an answer cut short keeps the
    calls it completed."""
    calls: dict[str, Call] = {}
    for item in complete_items(text):
        if isinstance(item, dict) and isinstance(item.get("arguments"), dict):
            calls.setdefault(_key(item), Call(str(item.get("name")), item["arguments"]))
    return tuple(calls.values())


@dataclass
class ModelReader:
    """Reads queries into calls with one loaded causal LM (see
    :func:`services.planner.proposers.hf.load`): ``loaded`` has ``model``, ``tokenizer``,
    ``grammar`` and ``lock``."""

    loaded: Any
    batch_size: int = 8
    max_new_tokens: int = 256
    min_calls: int = 0

    def read(self, query: str, tools: Sequence[Tool]) -> tuple[Call, ...]:
        return self.read_many([(query, tools)])[0]

    def read_many(
        self,
        items: Sequence[tuple[str, Sequence[Tool]]],
        *,
        on_batch: Callable[[int], None] | None = None,
    ) -> list[tuple[Call, ...]]:
        """One answer per ``(query, tools)``, in order; ``on_batch`` hears each batch's size
        once it is read."""
        chats = [(prompt_messages(query, tools), tools) for query, tools in items]
        return self.answer_many(chats, on_batch=on_batch)

    def answer(self, messages: list[dict[str, str]], tools: Sequence[Tool]) -> tuple[Call, ...]:
        """The calls the model writes after ``messages`` (e.g. :func:`retry_messages`),
        decoded under ``tools``' schema."""
        return self.answer_many([(messages, tools)])[0]

    def answer_many(
        self,
        items: Sequence[tuple[list[dict[str, str]], Sequence[Tool]]],
        *,
        on_batch: Callable[[int], None] | None = None,
    ) -> list[tuple[Call, ...]]:
        """One answer per ``(chat, tools)``, in order (see :meth:`read_many`)."""
        tokenizer = self.loaded.tokenizer
        prompts = [
            tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            for messages, _ in items
        ]
        order = sorted(range(len(items)), key=lambda i: len(prompts[i]))
        answers: list[tuple[Call, ...]] = [()] * len(items)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            schemas = [calls_schema(items[i][1], min_calls=self.min_calls) for i in batch]
            texts = self._generate([prompts[i] for i in batch], schemas)
            for i, text in zip(batch, texts, strict=True):
                answers[i] = parse_calls(text)
            if on_batch is not None:
                on_batch(len(batch))
        return answers

    def _generate(self, prompts: list[str], schemas: list[dict[str, Any]]) -> list[str]:
        import torch

        tokenizer, model = self.loaded.tokenizer, self.loaded.model
        with self.loaded.lock, torch.inference_mode():
            side, tokenizer.padding_side = tokenizer.padding_side, "left"
            try:
                inputs = tokenizer(
                    prompts, return_tensors="pt", padding=True, add_special_tokens=False
                ).to(model.device)
            finally:
                tokenizer.padding_side = side
            output = model.generate(
                **inputs,
                logits_processor=[
                    _CallListProcessor(
                        [
                            self.loaded.grammar.compile(schema, separators=SPACED)
                            for schema in schemas
                        ],
                        tokenizer,
                        inputs["input_ids"].shape[1],
                    )
                ],
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id
                if tokenizer.pad_token_id is not None
                else tokenizer.eos_token_id,
            )
        new = output[:, inputs["input_ids"].shape[1] :]
        return tokenizer.batch_decode(new, skip_special_tokens=True)


class _CallListProcessor:
    """xgrammar's masking, row by row, plus an end: a row whose list holds a call twice is
    closed with eos (``generate``'s logits processor; one per call)."""

    def __init__(self, grammars: list[Any], tokenizer: Any, prompt_length: int) -> None:
        import xgrammar as xgr

        self.matchers = [xgr.GrammarMatcher(grammar) for grammar in grammars]
        self.mask = xgr.allocate_token_bitmask(len(grammars), grammars[0].tokenizer_info.vocab_size)
        self.tokenizer, self.prompt_length = tokenizer, prompt_length
        self.closed: set[int] = set()

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import xgrammar as xgr

        written = input_ids.shape[1] > self.prompt_length
        texts = self.tokenizer.batch_decode(
            input_ids[:, self.prompt_length :], skip_special_tokens=True
        )
        for row, matcher in enumerate(self.matchers):
            if row in self.closed or matcher.is_terminated():
                continue
            if written and not matcher.accept_token(int(input_ids[row, -1])):
                raise ValueError(f"row {row} wrote a token its grammar refuses")
            if matcher.is_terminated():
                continue
            if repeats(texts[row]):
                self.closed.add(row)
            else:
                matcher.fill_next_token_bitmask(self.mask, row)
        masked = scores.to("cpu") if scores.device.type != "cuda" else scores
        xgr.apply_token_bitmask_inplace(masked, self.mask.to(masked.device))
        for row in self.closed:
            masked[row, :] = float("-inf")
            masked[row, self.tokenizer.eos_token_id] = 0.0
        return masked.to(scores.device)
