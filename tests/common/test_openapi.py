"""Every service's OpenAPI document: valid OpenAPI 3.1, every ``$ref`` resolves, the error
envelope on every 4xx/5xx, and the real media types of streams and downloads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from openapi_spec_validator import validate

from services.planner.app import build_app as build_planner
from services.planner.config import PlannerSettings
from services.synth.app import build_app as build_synth
from services.synth.config import SynthSettings
from services.trainer.app import build_app as build_trainer
from services.trainer.config import TrainerSettings
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings

ENVELOPE = {"$ref": "#/components/schemas/ErrorOut"}
NDJSON = "application/x-ndjson"


def _apps(folder: Path) -> dict[str, Callable[[], FastAPI]]:
    return {
        "verifier": lambda: build_verifier(VerifierSettings(data_dir=folder)),
        "planner": lambda: build_planner(
            PlannerSettings(data_dir=folder, media_root=folder, relevance="tfidf")
        ),
        "synth": lambda: build_synth(SynthSettings(data_dir=folder, synth_workers=0)),
        "trainer": lambda: build_trainer(TrainerSettings(data_dir=folder)),
    }


@pytest.fixture(params=["verifier", "planner", "synth", "trainer"])
def document(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return _apps(tmp_path)[request.param]().openapi()


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), f"{ref} is not a local reference"
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        assert isinstance(node, dict) and part in node, f"{ref} does not resolve"
        node = node[part]
    return node


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_the_document_is_valid_openapi(document: dict[str, Any]) -> None:
    validate(document)  # raises on the first violation


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    refs = set(_refs(document))
    assert refs  # the documents do use components
    for ref in refs:
        _resolve(document, ref)
    assert not any("$defs" in ref for ref in refs)


def _keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key != "properties":  # property names are the models' own
                yield from _keys(value)
            else:
                for sub in value.values():
                    yield from _keys(sub)
    elif isinstance(node, list):
        for value in node:
            yield from _keys(value)


def test_bounds_are_json_schema_keywords(document: dict[str, Any]) -> None:
    leaked = {"ge", "le", "gt", "lt"} & set(_keys(document["components"]["schemas"]))
    assert not leaked  # Pydantic's names: JSON Schema ignores them, so clients would too


def test_every_error_status_documents_the_envelope(document: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in document["components"]["schemas"]
    for label, operation in _operations(document):
        statuses = {int(s) for s in operation["responses"] if s.isdigit()}
        assert {401, 500} <= statuses, label
        if operation.get("requestBody"):
            assert {413, 422} <= statuses, label
        for status, entry in operation["responses"].items():
            if int(status) >= 400:
                assert entry["content"] == {"application/json": {"schema": ENVELOPE}}, (
                    label,
                    status,
                )


def test_database_backed_services_document_503(tmp_path: Path) -> None:
    for name, build in _apps(tmp_path).items():
        for label, operation in _operations(build().openapi()):
            assert ("503" in operation["responses"]) == (name != "verifier"), label


def _content(document: dict[str, Any], label: str, status: str = "200") -> set[str]:
    operations = dict(_operations(document))
    return set(operations[label]["responses"][status]["content"])


def test_streams_and_downloads_declare_their_media_types(tmp_path: Path) -> None:
    apps = _apps(tmp_path)
    planner = apps["planner"]().openapi()
    assert NDJSON in _content(planner, "POST /v1/plan")
    assert _content(planner, "GET /v1/records") == {NDJSON}
    assert "video/mp4" in _content(planner, "GET /v1/jobs/{job_id}/output")
    otio = dict(_operations(planner))["GET /v1/plans/{plan_id}/otio"]["responses"]["200"]
    assert otio["content"]["application/json"]["schema"]["required"] == ["OTIO_SCHEMA"]
    synth = apps["synth"]().openapi()
    assert _content(synth, "GET /v1/jobs/{job_id}/export") == {NDJSON}
    assert _content(synth, "GET /v1/records") == {NDJSON}
    trainer = apps["trainer"]().openapi()
    assert _content(trainer, "GET /v1/datasets/{dataset_id}/download") == {NDJSON}


def test_a_405_names_every_method_the_path_serves(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    client = TestClient(_apps(tmp_path)["synth"]())
    for path, allowed in [
        ("/v1/catalogs", "GET, POST"),  # two routes, one path
        ("/v1/jobs/abc", "DELETE, GET"),
        ("/v1/jobs/abc:retry", "POST"),  # not the GET route that /v1/jobs/{job_id} also matches
    ]:
        answer = client.options(path)
        assert answer.status_code == 405
        assert answer.headers["allow"] == allowed, path
        assert answer.json()["error"]["code"] == "method_not_allowed"
