"""An in-process fake of an OpenAI-compatible chat endpoint that answers with ``tool_calls``.

Served by a real uvicorn on a free localhost port (``serve`` / ``closed_port_url`` come
from the planner's fake). A request without ``tools`` is stage 2: the fake reads the calls
from the prompt's ```json block after "Calls that must answer" and writes a user message
stating every argument value verbatim (remembering which calls it stands for). A request
with ``tools`` is stage 3: it answers the calls remembered for that message.

Modes: ``valid``; ``malformed`` (arguments that are not JSON); ``wrong_first`` (stage 3 gets
one argument wrong unless the system prompt carries checker feedback); ``no_calls`` (plain
text, no ``tool_calls``); ``error`` (HTTP 500); ``flaky`` (500 for the first
``fail_first`` requests, then valid); ``no_choices`` (200 without ``choices``).

Like vLLM, it refuses ``tool_choice: "auto"`` with a 400 unless :attr:`auto_tool_choice`
is on (vLLM's ``--enable-auto-tool-choice --tool-call-parser …``); ``thinking`` (see the
planner's fake) wraps stage-2 messages in ``<think>…</think>``.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Literal

from fastapi.responses import JSONResponse

from tests.planner.fake_openai import FakeChatEndpoint, closed_port_url, serve

__all__ = ["FakeToolsOpenAI", "closed_port_url", "serve"]

Mode = Literal["valid", "malformed", "wrong_first", "no_calls", "error", "flaky", "no_choices"]

_CALLS = re.compile(r"Calls that must answer the message:\n```json\n(.*?)\n```", re.S)
AUTO_REFUSED = (
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
)
IRRELEVANT_QUERY = "What is the airspeed velocity of an unladen swallow?"


def _say(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def query_for(calls: list[dict[str, Any]]) -> str:
    """A message naming every argument value of ``calls`` verbatim."""
    parts = []
    for call in calls:
        args = ", ".join(f"{key} {_say(value)}" for key, value in call["arguments"].items())
        action = call["name"].replace("_", " ")
        parts.append(f"{action} with {args}" if args else action)
    return "Please " + "; and also ".join(parts) + "."


class FakeToolsOpenAI(FakeChatEndpoint):
    """The fake's state (mode, every request body, the messages it wrote) and its app."""

    def __init__(self, models: tuple[str, ...] = ("fake-synth",)) -> None:
        self.mode: Mode = "valid"
        self.written: dict[str, list[dict[str, Any]]] = {}
        self.auto_tool_choice = True
        super().__init__(models)

    def reset(self, mode: Mode = "valid") -> None:
        super().reset()
        self.mode = mode
        self.auto_tool_choice = True

    async def _answer(self, body: dict[str, Any]) -> JSONResponse:
        if body.get("model") not in self.models:
            return _error(404, f"The model `{body.get('model')}` does not exist.")
        if not isinstance(body.get("messages"), list) or not body["messages"]:
            return _error(400, "messages must be a non-empty list")
        if self.mode == "error" or (self.mode == "flaky" and len(self.requests) <= self.fail_first):
            return _error(500, "the fake fell over")
        if self.mode == "no_choices":
            return JSONResponse({"id": "chatcmpl-fake", "object": "chat.completion"})
        if body.get("tool_choice") == "auto" and not self.auto_tool_choice:
            return _error(400, AUTO_REFUSED)
        if "tools" in body:
            return JSONResponse(_completion(body, self._tool_message(body)))
        content = self.think(body, self._query(body))
        return JSONResponse(_completion(body, {"role": "assistant", "content": content}))

    def _query(self, body: dict[str, Any]) -> str:
        match = _CALLS.search(body["messages"][-1]["content"])
        if match is None:
            return IRRELEVANT_QUERY
        calls = json.loads(match.group(1))
        text = query_for(calls)
        self.written[text] = calls
        return text

    def _tool_message(self, body: dict[str, Any]) -> dict[str, Any]:
        query = body["messages"][-1]["content"]
        calls = self.written.get(query)
        if self.mode == "no_calls" or not calls:
            return {"role": "assistant", "content": "No function fits.", "tool_calls": None}
        feedback = "A checker found" in body["messages"][0]["content"]
        items = []
        for index, call in enumerate(calls):
            arguments = json.dumps(call["arguments"])
            if self.mode == "malformed":
                arguments = arguments[:-1]
            elif self.mode == "wrong_first" and not feedback and index == 0:
                arguments = json.dumps({k: _wrong(v) for k, v in call["arguments"].items()})
            function = {"name": call["name"], "arguments": arguments}
            items.append({"id": f"call_{index}", "type": "function", "function": function})
        return {"role": "assistant", "content": None, "tool_calls": items}


def _wrong(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return value


def _completion(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "code": status}}, status_code=status)
