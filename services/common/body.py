"""Reading JSON bodies by hand, for routes that parse in parts (e.g. to reuse a cached part).

Errors come out exactly as FastAPI's own body parsing would raise them, so the one
validation handler of :mod:`services.common.app` turns them into the usual envelopes.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

Model = TypeVar("Model", bound=BaseModel)


async def json_object(request: Request) -> dict[str, Any]:
    """The request body as a JSON object; malformed JSON or a non-object is a 422."""
    return parse_object(await request.body())


def parse_object(raw: bytes) -> dict[str, Any]:
    """``raw`` as a JSON object (for a threadpool: parsing a large body takes a while)."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise RequestValidationError(
            [
                {
                    "type": "json_invalid",
                    "loc": ("body", error.pos),
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": error.msg},
                }
            ]
        ) from None
    if not isinstance(data, dict):
        raise RequestValidationError(
            [
                {
                    "type": "dict_type",
                    "loc": ("body",),
                    "msg": "the body must be a JSON object",
                    "input": data,
                }
            ]
        )
    return data


def validate(model: type[Model], data: Any, *, loc: tuple[str | int, ...] = ()) -> Model:
    """``model.model_validate(data)``, with errors located under ``body`` + ``loc``."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [{**err, "loc": ("body", *loc, *err["loc"])} for err in error.errors()]
        ) from None
