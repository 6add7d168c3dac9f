"""OpenAPI for request bodies a route reads by hand (to check caps or reuse a cached part).

Such a route declares its body with :func:`request_body` in ``openapi_extra``, and the app
calls :func:`register_bodies` once, so the body's models land in
``#/components/schemas`` where the ``$ref`` points (a model's own ``$defs`` would not
resolve inside an OpenAPI document).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

REF = "#/components/schemas/{model}"


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` documenting a required JSON body of ``model``."""
    schema = {"$ref": REF.format(model=model.__name__)}
    return {
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}
    }


def register_bodies(app: FastAPI, models: Iterable[type[BaseModel]]) -> None:
    """Add ``models`` and every model they use to the app's OpenAPI components."""
    models = list(models)
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = generate()
        components = document.setdefault("components", {}).setdefault("schemas", {})
        for model in models:
            schema = model.model_json_schema(by_alias=True, ref_template=REF)
            components.update(schema.pop("$defs", {}))
            components[model.__name__] = schema
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]
