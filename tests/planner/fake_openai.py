"""An in-process fake of an OpenAI-compatible chat endpoint (``POST /v1/chat/completions``,
``GET /v1/models``), served by a real uvicorn on a free localhost port.

It honours ``n`` (that many choices), ``response_format`` (json_schema: bare JSON content;
otherwise the JSON comes wrapped in prose and a code fence, as an unconstrained model
writes it), ``temperature`` (0: every choice is the same greedy answer) and ``seed`` (the same
seed gives the same answers). Valid answers are real edits of the prompt's own timeline: it
reads the ```json block (Timeline.1) and the clip table of the user message.

Modes: ``valid``, ``mixed`` (valid and garbage alternate), ``garbage`` (prose, broken JSON,
schema violations, unknown ids, empty content), ``error`` (HTTP 500), ``flaky`` (500 for the
first ``fail_first`` requests, then valid), ``slow`` (valid after ``delay_s``), ``no_choices``
(200 without a ``choices`` list). An endpoint that is down is just a closed port.

``thinking`` imitates a hybrid-reasoning model (Qwen3): ``"never"`` (the default) answers
plainly; ``"default"`` wraps each text answer in ``<think>…</think>`` (with a decoy JSON
object inside) unless the request sends ``chat_template_kwargs: {"enable_thinking": false}``;
``"always"`` wraps it whatever the request says.

``POST /v1/load_lora_adapter {lora_name, lora_path}`` imitates vLLM's runtime LoRA loading:
a folder with ``adapter_config.json`` joins the served models under its name (a name
already loaded is a 400, as vLLM answers); ``loaded`` records what was loaded.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import jsonschema
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, Field, ValidationError, model_validator

from tests.servers import serve_in_thread

Mode = Literal["valid", "mixed", "garbage", "error", "flaky", "slow", "no_choices"]
Thinking = Literal["never", "default", "always"]

THOUGHT = (
    "<think>\nThe user wants an edit. Maybe "
    '{"schema":"Patch.1","ops":[{"op":"explode","shot":0}]} would do? No.\n</think>\n\n'
)

GARBAGE = (
    "I would add the sunset shot at the end and tighten the opening.",
    '{"schema":"Patch.1","ops":[{"op":"trim","shot":0,',
    '{"schema":"Patch.1","ops":[{"op":"explode","shot":0}]}',
    '{"schema":"Patch.1","ops":[{"op":"insert","at":0,"clip_id":"zz-404","in_s":0,"out_s":1}]}',
    '{"schema":"Patch.1","ops":[]}',
    '{"schema":"Patch.1","ops":[{"op":"remove","shot":-1}]}',
    "",
    None,
)

_FENCE = re.compile(r"```json\n(.*?)\n```", re.S)
_CLIP = re.compile(r"^(\S+) \| ([0-9.]+)s \| ", re.M)
_SHOT = re.compile(r"^(\d+) \| (\S+) \| ([0-9.]+)–([0-9.]+)s \|", re.M)
_COUNT = re.compile(r"timeline (\d+) shots")


def _prompt_shots(prompt: str) -> list[dict[str, Any]]:
    """The timeline's shots the prompt shows: the full prompt's ```json block, or the
    compact prompt's ``SHOTS`` lines (shots it does not show are known only by index)."""
    match = _FENCE.search(prompt)
    if match:
        return json.loads(match.group(1))["shots"]
    count = _COUNT.search(prompt)
    shots: list[dict[str, Any]] = [{} for _ in range(int(count.group(1)) if count else 0)]
    for index, clip_id, in_s, out_s in _SHOT.findall(prompt):
        shots[int(index)] = {"clip_id": clip_id, "in_s": float(in_s), "out_s": float(out_s)}
    return shots


def draft_from_prompt(prompt: str, schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A Timeline.1 first cut of 2–5 shots from the prompt's clip table (ids the request's
    schema allows), with the first track the schema allows."""
    branches = schema["$defs"]["ShotIn"]["anyOf"]  # one per clip the task offers
    allowed = {branch["properties"]["clip_id"]["const"] for branch in branches}
    clips = [(cid, float(d)) for cid, d in _CLIP.findall(prompt.split("\nMUSIC")[0])]
    clips = [(cid, d) for cid, d in clips if cid in allowed]
    shots = []
    for _ in range(rng.randint(2, 5)):
        clip_id, duration = rng.choice(clips)
        shots.append({"clip_id": clip_id, "in_s": 0.0, "out_s": round(min(duration, 2.0), 3)})
    music = schema["$defs"].get("MusicPlacementIn")
    placed = {"track_id": music["properties"]["track_id"]["enum"][0]} if music else None
    return {
        "schema": "Timeline.1",
        "fps": schema["properties"]["fps"]["const"],
        "shots": shots,
        "music": placed,
    }


class _Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class _JsonSchema(BaseModel):
    name: str = Field(min_length=1)
    schema_: dict[str, Any] = Field(alias="schema")
    strict: bool | None = None


class _ResponseFormat(BaseModel):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: _JsonSchema | None = None

    @model_validator(mode="after")
    def _schema_given(self) -> _ResponseFormat:
        if self.type == "json_schema" and self.json_schema is None:
            raise ValueError("response_format json_schema needs json_schema")
        return self


class _ChatRequest(BaseModel):
    model: str
    messages: list[_Message] = Field(min_length=1)
    n: int = Field(1, ge=1, le=64)
    temperature: float = Field(1.0, ge=0, le=2)
    seed: int | None = None
    max_tokens: int | None = Field(None, ge=1)
    response_format: _ResponseFormat | None = None


class FakeChatEndpoint:
    """What every fake OpenAI-compatible endpoint shares: the served models, every request
    body and Authorization header seen, and an app with ``GET /v1/models`` and
    ``POST /v1/chat/completions``; subclasses write :meth:`_answer`."""

    def __init__(self, models: tuple[str, ...]) -> None:
        self.models = models
        self.fail_first = 1
        self.thinking: Thinking = "never"
        self.requests: list[dict[str, Any]] = []
        self.authorization: list[str | None] = []
        self.loaded: dict[str, str] = {}
        self.app = self._build()

    def reset(self) -> None:
        self.fail_first = 1
        self.thinking = "never"
        self.requests.clear()
        self.authorization.clear()

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]}

        @app.post("/v1/load_lora_adapter")
        async def load_lora_adapter(request: Request) -> Any:
            body = await request.json()
            name, path = body.get("lora_name"), body.get("lora_path")
            if not isinstance(name, str) or not isinstance(path, str):
                return _error(400, "BadRequestError", "lora_name and lora_path are required")
            if name in self.models:
                message = f"The lora adapter '{name}' has already been loaded."
                return _error(400, "InvalidUserInput", message)
            if not Path(path, "adapter_config.json").is_file():
                return _error(400, "BadRequestError", f"No adapter found for {path}")
            self.loaded[name] = path
            self.models = (*self.models, name)
            return PlainTextResponse(f"Success: LoRA adapter '{name}' added successfully.")

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            self.requests.append(body)
            self.authorization.append(request.headers.get("authorization"))
            return await self._answer(body)

        return app

    async def _answer(self, body: dict[str, Any]) -> JSONResponse:
        raise NotImplementedError

    def think(self, body: dict[str, Any], text: str | None) -> str | None:
        """``text`` as the model writes it under :attr:`thinking` for this request."""
        if text is None or self.thinking == "never":
            return text
        kwargs = body.get("chat_template_kwargs") or {}
        if self.thinking == "default" and kwargs.get("enable_thinking", True) is False:
            return text
        return THOUGHT + text


class FakeOpenAI(FakeChatEndpoint):
    """The fake's state (mode, knobs, every request body and Authorization seen) and its app."""

    def __init__(self, models: tuple[str, ...] = ("fake-planner",)) -> None:
        self.mode: Mode = "valid"
        self.delay_s = 0.5
        super().__init__(models)

    def reset(self, mode: Mode = "valid") -> None:
        super().reset()
        self.mode = mode
        self.delay_s = 0.5

    async def _answer(self, body: dict[str, Any]) -> JSONResponse:
        try:
            chat = _ChatRequest.model_validate(body)
        except ValidationError as error:
            return _error(400, "invalid_request_error", str(error.errors()[0]["msg"]))
        if chat.model not in self.models:
            return _error(404, "NotFoundError", f"The model `{chat.model}` does not exist.")
        mode = self.mode
        if mode == "error" or (mode == "flaky" and len(self.requests) <= self.fail_first):
            return _error(500, "InternalServerError", "the fake fell over")
        if mode == "slow":
            await asyncio.sleep(self.delay_s)
        if mode == "no_choices":
            return JSONResponse({"id": "chatcmpl-fake", "object": "chat.completion"})
        texts = [self.think(body, self._text(chat, index)) for index in range(chat.n)]
        return JSONResponse(_completion(chat, texts))

    def _text(self, chat: _ChatRequest, index: int) -> str | None:
        rng = _rng(chat, index)
        if self.mode == "garbage" or (self.mode == "mixed" and index % 2 == 1):
            return rng.choice(GARBAGE)
        structured = chat.response_format is not None and chat.response_format.type != "text"
        schema = chat.response_format.json_schema if chat.response_format else None
        prompt = chat.messages[-1].content
        if schema is not None and "shots" in schema.schema_.get("properties", {}):
            answer = draft_from_prompt(prompt, schema.schema_, rng)
        else:
            answer = propose_from_prompt(prompt, rng)
        if schema is not None:  # what a structured-output server guarantees
            jsonschema.validate(answer, schema.schema_)
        text = json.dumps(answer, separators=(",", ":"))
        return text if structured else f"Here is my patch:\n```json\n{text}\n```\nIt should help."


def _rng(chat: _ChatRequest, index: int) -> random.Random:
    """Greedy (temperature 0): one answer for every choice; else one stream per choice."""
    if chat.seed is None:
        return random.Random()
    choice = 0 if chat.temperature == 0 else index
    return random.Random(f"{chat.seed}:{choice}")


def propose_from_prompt(prompt: str, rng: random.Random) -> dict[str, Any]:
    """A Patch.1 that applies to the prompt's timeline: trim, swap, move, remove or insert."""
    shots = _prompt_shots(prompt)
    clips = [(cid, float(dur)) for cid, dur in _CLIP.findall(prompt.split("\nMUSIC")[0])]
    options = ["insert"] if clips else []
    if any(shots):
        options.append("trim")
    if len(shots) >= 2:
        options += ["swap", "move", "remove"]
    kind = rng.choice(options)
    if kind == "insert":
        clip_id, duration = rng.choice(clips)
        out_s = round(min(duration, rng.uniform(0.5, 2.0)), 3)
        op = {"op": "insert", "at": rng.randint(0, len(shots)), "clip_id": clip_id}
        op.update(in_s=0.0, out_s=out_s)
    elif kind == "trim":
        i = rng.choice([i for i, shot in enumerate(shots) if shot])
        in_s, out_s = shots[i]["in_s"], shots[i]["out_s"]
        keep = max(0.1, round((out_s - in_s) * rng.uniform(0.5, 0.9), 3))
        op = {"op": "trim", "shot": i, "in_s": in_s, "out_s": round(in_s + keep, 3)}
    elif kind == "remove":
        op = {"op": "remove", "shot": rng.randrange(len(shots))}
    else:
        a, b = rng.sample(range(len(shots)), 2)
        op = (
            {"op": "swap", "a": a, "b": b} if kind == "swap" else {"op": "move", "from": a, "to": b}
        )
    return {"schema": "Patch.1", "ops": [op]}


def _completion(chat: _ChatRequest, texts: list[str | None]) -> dict[str, Any]:
    prompt_tokens = sum(len(m.content) for m in chat.messages) // 4
    completion_tokens = sum(len(t or "") for t in texts) // 4
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": chat.model,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
            for i, text in enumerate(texts)
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": status}}, status_code=status
    )


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free port in a thread; yields the ``/v1`` base URL."""
    with serve_in_thread(app) as url:
        yield f"{url}/v1"


def closed_port_url() -> str:
    """A ``/v1`` base URL nothing listens on (a port bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
