"""A fake OpenAI-compatible endpoint that answers BFCL questions with ``tool_calls``.

It knows BFCL's possible answers: ``truth`` answers every case with its possible answer's
first alternatives (names spelled as sent, arguments as a JSON string); ``wrong`` adds a
parameter no function has; ``flaky`` fails every other request with HTTP 500;
``no_calls`` answers in prose; ``garbage`` sends arguments that are not JSON. It rejects
(HTTP 400) tools an OpenAI endpoint would: names outside ``^[a-zA-Z0-9_-]{1,64}$`` and types
outside JSON Schema's. Served by uvicorn in a thread (``serve`` from the planner's fake).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from services.synth.bfcl.data import AST_CATEGORIES, Case, load_cases

__all__ = ["FakeBfclEndpoint", "answer_output"]

Mode = Literal["truth", "wrong", "flaky", "no_calls", "garbage"]
Output = list[dict[str, dict[str, Any]]]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object", "null"}


def _pick(options: list[Any], last: bool) -> Any:
    """First alternative (``None`` when that is "leave it out"), or the last given value."""
    values = [o for o in options if o != ""]
    if not values or (not last and options[0] == ""):
        return None
    value = values[-1] if last else values[0]
    if isinstance(value, dict):
        return {k: v for k, o in value.items() if (v := _pick(o, last)) is not None}
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        return [{k: v for k, o in x.items() if (v := _pick(o, last)) is not None} for x in value]
    return value


def answer_output(case: Case, *, last: bool = False) -> Output:
    """A model output built from the possible answer (first or last alternatives)."""
    output = []
    for item in case.answer:
        name, options = next(iter(item.items()))
        args = {k: v for k, o in options.items() if (v := _pick(o, last)) is not None}
        output.append({name: args})
    return output


def _bad_types(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    found = [] if schema.get("type", "string") in _JSON_TYPES else [str(schema.get("type"))]
    for sub in (schema.get("properties") or {}).values():
        found += _bad_types(sub)
    return found + _bad_types(schema.get("items"))


class FakeBfclEndpoint:
    """The fake's state (mode, requests seen) and its FastAPI app."""

    def __init__(self, model: str = "fake-fc") -> None:
        self.model = model
        self.mode: Mode = "truth"
        self.requests: list[dict[str, Any]] = []
        self.cases = {
            (c.messages[-1]["content"], len(c.functions)): c
            for category in AST_CATEGORIES
            for c in load_cases(category)
        }
        self.app = FastAPI()
        self.app.post("/v1/chat/completions")(self._chat)

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.requests.append(body)
        tools = body.get("tools") or []
        names = [t["function"]["name"] for t in tools]
        bad = [n for n in names if not _NAME.match(n)]
        bad += [t for tool in tools for t in _bad_types(tool["function"]["parameters"])]
        if body.get("model") != self.model or bad:
            return JSONResponse({"error": {"message": f"bad request {bad}"}}, status_code=400)
        if self.mode == "flaky" and len(self.requests) % 2 == 0:
            return JSONResponse({"error": {"message": "the fake fell over"}}, status_code=500)
        case = self.cases[(body["messages"][-1]["content"], len(tools))]
        return JSONResponse(self._completion(case))

    def _completion(self, case: Case) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if self.mode == "no_calls":
            message["content"] = "I would call a function for that."
        else:
            message["tool_calls"] = [
                self._call(i, call) for i, call in enumerate(answer_output(case))
            ]
        return {
            "id": "chatcmpl-bfcl",
            "object": "chat.completion",
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        }

    def _call(self, index: int, call: dict[str, dict[str, Any]]) -> dict[str, Any]:
        name, args = next(iter(call.items()))
        if self.mode == "wrong":
            args = {**args, "qqq_unknown": 1}
        arguments = "{'not': json" if self.mode == "garbage" else json.dumps(args)
        return {
            "id": f"call_{index}",
            "type": "function",
            "function": {"name": name.replace(".", "_"), "arguments": arguments},
        }
