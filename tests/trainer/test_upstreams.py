"""Where the trainer may pull from and publish to, and who gets its API key.

Two fake planners run in real uvicorn servers behind a :class:`Recorder` that notes every
request with its Authorization header: ``configured`` is ``REFINERY_PLANNER_URL``, ``other``
is one a caller names. The trainer holds the key ``svc-key`` (and ``REFINERY_API_KEY`` is
set in its environment, which a keyless client would otherwise pick up).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Response
from fastapi.testclient import TestClient

from services.trainer.app import build_app
from services.trainer.config import TrainerSettings
from services.trainer.store import ModelRow
from tests.servers import Recorder, serve_in_thread

KEY = "svc-key"


def _fake_planner() -> Recorder:
    app = FastAPI()

    @app.get("/v1/records")
    def records() -> Response:
        line = b'{"record_id": 1, "plan_id": "", "task_id": "t"}\n'
        return Response(line, media_type="application/x-ndjson", headers={"X-Next-Cursor": "1"})

    @app.post("/v1/proposers", status_code=201)
    def register(body: dict[str, Any]) -> dict[str, Any]:
        return {"name": f"hf:{body['id']}", "kind": "hf", "available": True}

    return Recorder(app)


@pytest.fixture(scope="module")
def planners() -> Iterator[dict[str, tuple[Recorder, str]]]:
    configured, other = _fake_planner(), _fake_planner()
    with serve_in_thread(configured) as first, serve_in_thread(other) as second:
        yield {"configured": (configured, first), "other": (other, second)}


@pytest.fixture
def fakes(
    planners: dict[str, tuple[Recorder, str]], monkeypatch: pytest.MonkeyPatch
) -> dict[str, tuple[Recorder, str]]:
    monkeypatch.setenv("REFINERY_API_KEY", "env-key")
    for recorder, _ in planners.values():
        recorder.seen.clear()
    return planners


def _trainer(tmp_path: Path, database_url: str, planner_url: str, **settings: Any) -> TestClient:
    config = TrainerSettings(
        data_dir=tmp_path / "trainer",
        database_url=database_url,
        planner_url=planner_url,
        api_keys=[KEY],
        log_level="WARNING",
        **settings,
    )
    return TestClient(build_app(config, worker=False), headers={"Authorization": f"Bearer {KEY}"})


def _model(client: TestClient, tmp_path: Path) -> str:
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    (checkpoint / "config.json").write_text("{}")
    row = ModelRow(
        id="sft-1", kind="sft", base="tiny", dataset_id="d", job_id="j1", path=str(checkpoint)
    )
    client.app.state.store.add(row)  # type: ignore[attr-defined]
    return row.id


def test_unlisted_urls_are_refused_before_any_request(
    tmp_path: Path, database_url: str, fakes: dict[str, tuple[Recorder, str]]
) -> None:
    (configured, url), (other, other_url) = fakes["configured"], fakes["other"]
    with _trainer(tmp_path, database_url, url) as trainer:
        sources = [{"service": "planner"}, {"service": "planner", "url": other_url}]
        pulled = trainer.post("/v1/sources:pull", json={"sources": sources})
        assert pulled.status_code == 422, pulled.text
        error = pulled.json()["error"]
        assert error["code"] == "upstream_not_allowed" and error["param"] == "sources[1].url"
        build = {"kind": "repair_sft", "sources": sources}
        built = trainer.post("/v1/datasets:build", json=build)
        assert built.json()["error"]["param"] == "sources[1].url"
        model_id = _model(trainer, tmp_path)
        published = trainer.post(f"/v1/models/{model_id}/publish", json={"planner_url": other_url})
        assert published.status_code == 422, published.text
        assert published.json()["error"]["param"] == "planner_url"
    assert other.seen == [] and configured.seen == []


def test_the_key_goes_to_the_configured_planner_only(
    tmp_path: Path, database_url: str, fakes: dict[str, tuple[Recorder, str]]
) -> None:
    (configured, url), (other, other_url) = fakes["configured"], fakes["other"]
    with _trainer(tmp_path, database_url, url, allowed_upstreams=[other_url]) as trainer:
        sources = [{"service": "planner"}, {"service": "planner", "url": other_url + "/"}]
        pulled = trainer.post("/v1/sources:pull", json={"sources": sources})
        assert pulled.status_code == 200, pulled.text
        assert [r["fetched"] for r in pulled.json()["results"]] == [1, 1]
        model_id = _model(trainer, tmp_path)
        to_other = trainer.post(f"/v1/models/{model_id}/publish", json={"planner_url": other_url})
        assert to_other.status_code == 200, to_other.text
        assert trainer.post(f"/v1/models/{model_id}/publish").status_code == 200
        named_configured = {"planner_url": url + "/"}
        assert trainer.post(f"/v1/models/{model_id}/publish", json=named_configured).is_success
    assert {path for _, path, _ in other.seen} == {"/v1/records", "/v1/proposers"}
    assert other.authorizations == [None] * len(other.seen)
    assert len(configured.seen) == 3
    assert configured.authorizations == [f"Bearer {KEY}"] * 3


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:1/\x00", "http://127.0.0.1:1/\n", "javascript:alert(1)", "http://a:0x1"],
)
def test_a_malformed_url_is_a_422_naming_it(
    tmp_path: Path, database_url: str, fakes: dict[str, tuple[Recorder, str]], url: str
) -> None:
    configured, configured_url = fakes["configured"]
    with _trainer(tmp_path, database_url, configured_url) as trainer:
        pulled = trainer.post(
            "/v1/sources:pull", json={"sources": [{"service": "synth", "url": url}]}
        )
        assert pulled.status_code == 422, pulled.text
        assert pulled.json()["error"]["param"] == "sources[0].url"
        published = trainer.post("/v1/models/m/publish", json={"planner_url": url})
        assert published.status_code == 422 and published.json()["error"]["param"] == "planner_url"
    assert configured.seen == []
