"""OpenAPI details FastAPI does not derive: bodies read by hand, and the error envelope.

A route that reads its body by hand (to check caps or reuse a cached part) declares it
with :func:`request_body` in ``openapi_extra``, and the app
calls :func:`register_bodies` once, so the body's models land in
``#/components/schemas`` where the ``$ref`` points (a model's own ``$defs`` would not
resolve inside an OpenAPI document).

:func:`document_errors` then states the envelope ``{"error": {"code", "message", "param"}}``
for every status the shared middleware and handlers may answer on any route (401 with API
keys, 413 for bodies, 422 for parameters, 500, 503 with a database), in place of
FastAPI's ``{detail}`` validation schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

REF = "#/components/schemas/{model}"
ENVELOPE = {"application/json": {"schema": {"$ref": REF.format(model="ErrorOut")}}}
_FASTAPI_422 = REF.format(model="HTTPValidationError")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
_SHARED = {
    401: "Missing or wrong API key (when REFINERY_API_KEYS is set)",
    413: "Request body larger than REFINERY_MAX_BODY_BYTES",
    422: "Invalid request: the error names the field and what to do",
    500: "Internal error; the message carries the request id",
    503: "The database is unavailable; retry after Retry-After seconds",
}


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` documenting a required JSON body of ``model``."""
    schema = {"$ref": REF.format(model=model.__name__)}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


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
        document_errors(document, database=getattr(app.state, "engine", None) is not None)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]


def _shared_statuses(operation: dict[str, Any], database: bool) -> list[int]:
    statuses = [401, 500]
    if operation.get("requestBody"):
        statuses.append(413)
    if operation.get("requestBody") or operation.get("parameters"):
        statuses.append(422)
    if database:
        statuses.append(503)
    return statuses


def document_errors(document: dict[str, Any], *, database: bool) -> None:
    """Every operation documents the envelope for the shared error statuses.

    FastAPI's own 422 (``HTTPValidationError``, a ``{detail}`` body the handlers never
    send) is replaced; statuses a route already documents keep their description.
    """
    for item in document.get("paths", {}).values():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for status in _shared_statuses(operation, database):
                entry = responses.setdefault(str(status), {"description": _SHARED[status]})
                entry["content"] = ENVELOPE
            for entry in responses.values():
                schema = entry.get("content", {}).get("application/json", {}).get("schema", {})
                if schema.get("$ref") == _FASTAPI_422:
                    entry["content"] = ENVELOPE
    schemas = document.get("components", {}).get("schemas", {})
    if _FASTAPI_422 not in repr(document.get("paths")):
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
