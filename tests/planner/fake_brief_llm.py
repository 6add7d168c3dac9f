"""An in-process fake of a chat endpoint that compiles briefs: it answers ``POST
/v1/chat/completions`` with the ledger a test scripted (``answer``), as bare JSON when the
request asks for ``response_format`` json_schema, else wrapped in prose the way an
unconstrained model writes it. ``status`` other than 200 answers that error instead."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse

from tests.planner.fake_openai import FakeChatEndpoint


class FakeBriefLLM(FakeChatEndpoint):
    def __init__(self, models: tuple[str, ...] = ("fake-compiler",)) -> None:
        self.answer: dict[str, Any] | str = {"ledger": [], "provenance": []}
        self.status = 200
        super().__init__(models)

    async def _answer(self, body: dict[str, Any]) -> JSONResponse:
        if self.status != 200:
            error = {"message": "the fake fell over", "type": "error", "code": self.status}
            return JSONResponse({"error": error}, status_code=self.status)
        if body.get("model") not in self.models:
            return JSONResponse({"error": {"message": "no such model"}}, status_code=404)
        text = self.answer if isinstance(self.answer, str) else json.dumps(self.answer)
        structured = (body.get("response_format") or {}).get("type") == "json_schema"
        content = text if structured else f"Here is the ledger:\n```json\n{text}\n```"
        return JSONResponse(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            }
        )
