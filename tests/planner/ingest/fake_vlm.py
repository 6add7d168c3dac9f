"""An in-process fake of a vision-language model behind an OpenAI-compatible endpoint.

It checks what a real server would need: a user message whose content has a text part and
one or more ``image_url`` parts carrying base64 JPEG data URLs that decode, and a
``response_format`` json_schema. Its answer is read from the pixels: the first keyframe's
brightness and dominant colour become the caption and tags (``{"caption", "tags"}``).
Modes: ``valid``, ``garbage`` (prose instead of JSON), ``error`` (HTTP 500).
"""

from __future__ import annotations

import base64
import json
from typing import Any, Literal

import cv2
import numpy as np
from fastapi.responses import JSONResponse

from tests.planner.fake_openai import FakeChatEndpoint, _error

Mode = Literal["valid", "garbage", "error"]
PREFIX = "data:image/jpeg;base64,"


class FakeVision(FakeChatEndpoint):
    def __init__(self, models: tuple[str, ...] = ("fake-vlm",)) -> None:
        self.mode: Mode = "valid"
        self.images_seen = 0
        super().__init__(models)

    async def _answer(self, body: dict[str, Any]) -> JSONResponse:
        if self.mode == "error":
            return _error(500, "server_error", "the model fell over")
        try:
            images = _images(body)
        except ValueError as exc:
            return _error(400, "invalid_request_error", str(exc))
        self.images_seen += len(images)
        content = "A lovely shot, I think." if self.mode == "garbage" else _describe(images[0])
        choice = {"index": 0, "message": {"role": "assistant", "content": content},
                  "finish_reason": "stop"}  # fmt: skip
        return JSONResponse({"id": "fake", "object": "chat.completion", "choices": [choice]})


def _images(body: dict[str, Any]) -> list[np.ndarray]:
    if body.get("response_format", {}).get("type") != "json_schema":
        raise ValueError("response_format json_schema is required")
    (message,) = body["messages"]
    parts = message["content"]
    if not isinstance(parts, list) or parts[0].get("type") != "text":
        raise ValueError("content must be a list starting with a text part")
    images = []
    for part in parts[1:]:
        url = part["image_url"]["url"]
        if part["type"] != "image_url" or not url.startswith(PREFIX):
            raise ValueError("images must be image_url parts with JPEG data URLs")
        raw = np.frombuffer(base64.b64decode(url[len(PREFIX) :]), np.uint8)
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError("an image_url does not decode as JPEG")
        images.append(image)
    if not images:
        raise ValueError("no image_url part")
    return images


def _describe(image: np.ndarray) -> str:
    blue, green, red = (float(image[..., c].mean()) for c in range(3))
    light = "bright" if (blue + green + red) / 3 > 80 else "dark"
    colour = max((red, "red"), (green, "green"), (blue, "blue"))[1]
    return json.dumps({"caption": f"a {light} frame, mostly {colour}", "tags": [light, colour]})
