"""The synth service's HTTP API end to end, in process, with its worker thread running."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.synth.app import build_app
from services.synth.catalog import builtin_catalog
from services.synth.config import SynthSettings
from services.synth.generators.template import TemplateGenerator
from tests.synth.fake_openai_tools import FakeToolsOpenAI, closed_port_url, serve

MODEL = "fake-synth"

PING = {
    "type": "function",
    "function": {
        "name": "ping_host",
        "description": "Check that a host answers.",
        "parameters": {
            "type": "object",
            "properties": {
                "host": {"type": "string", "description": "Host name to ping"},
                "count": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            "required": ["host"],
        },
    },
}


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[tuple[FakeToolsOpenAI, str]]:
    fake = FakeToolsOpenAI(models=(MODEL,))
    with serve(fake.app) as url:
        yield fake, url


def _client(tmp_path: Path, database_url: str, **settings: Any) -> Iterator[TestClient]:
    config = SynthSettings(data_dir=tmp_path / "data", database_url=database_url, **settings)
    with TestClient(build_app(config)) as client:
        yield client


@pytest.fixture
def synth(tmp_path: Path, database_url: str) -> Iterator[TestClient]:
    yield from _client(tmp_path, database_url, synth_max_n=500)


def _wait(client: TestClient, job_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.05)


def _error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json()["error"]


def test_catalogs(synth: TestClient) -> None:
    listed = synth.get("/v1/catalogs").json()
    assert listed[0]["name"] == "builtin" and listed[0]["builtin"] and listed[0]["size"] > 10
    assert "tools" not in listed[0]
    created = synth.post("/v1/catalogs", json={"name": "net", "tools": [PING]})
    assert created.status_code == 201 and created.json()["functions"] == ["ping_host"]
    assert synth.post("/v1/catalogs", json={"name": "net", "tools": [PING]}).status_code == 200
    assert synth.get("/v1/catalogs/net").json()["tools"] == [PING]
    assert [c["name"] for c in synth.get("/v1/catalogs").json()] == ["builtin", "net"]
    other = {**PING, "function": {**PING["function"], "name": "ping2"}}
    assert (
        _error(synth.post("/v1/catalogs", json={"name": "net", "tools": [other]}), 409)["code"]
        == "catalog_exists"
    )
    read_only = _error(synth.post("/v1/catalogs", json={"name": "builtin", "tools": [PING]}), 409)
    assert read_only["code"] == "catalog_read_only"
    bad = _error(synth.post("/v1/catalogs", json={"name": "x", "tools": [{"type": "fn"}]}), 422)
    assert bad["code"] == "invalid_catalog" and bad["param"] == "tools[0].type"
    assert _error(synth.get("/v1/catalogs/nope"), 404)["code"] == "catalog_not_found"


def test_synthesize_progress_examples_export_records(synth: TestClient) -> None:
    answer = synth.post("/v1/synthesize", json={"n": 6, "seed": 3, "catalog": "builtin"})
    assert answer.status_code == 202, answer.text
    job = _wait(synth, answer.json()["job_id"])
    assert job["status"] == "succeeded", job["error"]
    assert job["request"]["n"] == 6 and job["request"]["catalog"] == "builtin"
    progress = job["progress"]
    assert progress["accepted"] == 6 and progress["stage3"]["passes"] == 6
    assert set(progress["stage2"]) == {"passes", "refines", "failures"}
    assert progress["stage1"]["sampled"] >= 6 and 0 < progress["acceptance_rate"] <= 1

    first = synth.get(f"/v1/jobs/{job['job_id']}/examples?limit=4").json()
    assert len(first["examples"]) == 4 and first["has_more"]
    rest = synth.get(f"/v1/jobs/{job['job_id']}/examples?after={first['next_cursor']}").json()
    assert len(rest["examples"]) == 2 and not rest["has_more"]
    examples = first["examples"] + rest["examples"]
    assert len({e["seq"] for e in examples}) == 6

    trl = synth.get(f"/v1/jobs/{job['job_id']}/export?format=trl")
    assert trl.headers["content-type"].startswith("application/x-ndjson")
    rows = [json.loads(line) for line in trl.text.splitlines()]
    assert rows == [{k: e[k] for k in ("messages", "tools", "meta")} for e in examples]
    assert rows[0]["messages"][-1]["role"] == "assistant"
    bfcl = synth.get(f"/v1/jobs/{job['job_id']}/export?format=bfcl")
    bfcl_rows = [json.loads(line) for line in bfcl.text.splitlines()]
    assert len(bfcl_rows) == 6 and all("ground_truth" in row for row in bfcl_rows)
    assert _error(synth.get(f"/v1/jobs/{job['job_id']}/export?format=csv"), 422)["param"] == (
        "format"
    )

    page = synth.get("/v1/records?after=0&limit=5")
    records = [json.loads(line) for line in page.text.splitlines()]
    assert len(records) == 5 and records[0]["job_id"] == job["job_id"]
    cursor = int(page.headers["x-next-cursor"])
    assert cursor == records[-1]["record_id"]
    tail = synth.get(f"/v1/records?after={cursor}").text.splitlines()
    assert len(tail) == 1
    last = json.loads(tail[0])["record_id"]  # ids skip the rows that were not accepted
    empty = synth.get(f"/v1/records?after={last}")
    assert empty.text == "" and empty.headers["x-next-cursor"] == str(last)


def test_inline_catalog_mix_and_idempotency(synth: TestClient) -> None:
    body = {"catalog": [PING], "n": 3, "mix": {"simple": 1.0}, "seed": 9}
    headers = {"Idempotency-Key": "k-1"}
    first = synth.post("/v1/synthesize", json=body, headers=headers)
    again = synth.post("/v1/synthesize", json=body, headers=headers)
    assert first.status_code == again.status_code == 202
    assert first.json()["job_id"] == again.json()["job_id"]
    other = synth.post("/v1/synthesize", json={**body, "n": 4}, headers=headers)
    assert _error(other, 409)["code"] == "idempotency_conflict"
    job = _wait(synth, first.json()["job_id"])
    assert job["status"] == "succeeded" and job["request"]["catalog"] == "inline"
    page = synth.get(f"/v1/jobs/{job['job_id']}/examples").json()["examples"]
    assert {e["meta"]["category"] for e in page} == {"simple"}
    assert all(json.loads(e["tools"])[0]["function"]["name"] == "ping_host" for e in page)


@pytest.mark.parametrize(
    ("body", "status", "code", "param"),
    [
        ({"n": 0}, 422, "invalid_request", "n"),
        ({"n": 501}, 422, "n_too_large", "n"),
        ({"generator": "gpt"}, 422, "unknown_generator", "generator"),
        ({"mix": {"simple": 1, "weird": 1}}, 422, "unknown_category", "mix.weird"),
        ({"mix": {"simple": 0}}, 422, "invalid_request", "mix"),
        ({"catalog": "nope"}, 404, "catalog_not_found", "catalog"),
        ({"catalog": [PING, {"type": "function"}]}, 422, "invalid_catalog", "catalog[1].function"),
        ({"catalog": []}, 422, "invalid_catalog", "catalog"),
        ({"generator": "llm"}, 422, "llm_not_configured", "generator"),
        ({"max_refine_rounds": 99}, 422, "invalid_request", "max_refine_rounds"),
    ],
)
def test_bad_requests(
    synth: TestClient, body: dict[str, Any], status: int, code: str, param: str
) -> None:
    error = _error(synth.post("/v1/synthesize", json=body), status)
    assert (error["code"], error["param"]) == (code, param), error


def test_isolate_drops_bfcl_tools_and_reports_them(synth: TestClient) -> None:
    body = {"n": 4, "seed": 1, "isolate": True}
    job = _wait(synth, synth.post("/v1/synthesize", json=body).json()["job_id"])
    assert job["status"] == "succeeded" and job["request"]["isolate"] is True
    dropped = {d["name"]: d for d in job["dropped"]}
    assert dropped["book_hotel"] == {
        "name": "book_hotel", "reason": "name", "bfcl_function": "book_hotel", "score": 1.0
    }  # fmt: skip
    assert all(d["score"] >= 0.6 for d in job["dropped"] if d["reason"] == "similar")
    examples = synth.get(f"/v1/jobs/{job['job_id']}/examples").json()["examples"]
    used = {t["function"]["name"] for e in examples for t in json.loads(e["tools"])}
    assert used and not used & set(dropped)
    hotel = [t for t in builtin_catalog() if t["function"]["name"] == "book_hotel"]
    only_bfcl = {"catalog": hotel, "isolate": True, "mix": {"simple": 1}}
    error = _error(synth.post("/v1/synthesize", json=only_bfcl), 422)
    assert (error["code"], error["param"]) == ("catalog_empty", "isolate")


def test_unknown_job(synth: TestClient) -> None:
    for method, path in [
        ("GET", "/v1/jobs/nope"),
        ("DELETE", "/v1/jobs/nope"),
        ("GET", "/v1/jobs/nope/examples"),
        ("GET", "/v1/jobs/nope/export"),
    ]:
        assert _error(synth.request(method, path), 404)["code"] == "job_not_found"


def test_cancel_queued_job(tmp_path: Path, database_url: str) -> None:
    for client in _client(tmp_path, database_url, synth_workers=0):
        job = client.post("/v1/synthesize", json={"n": 5}).json()
        assert job["status"] == "queued"
        cancelled = client.delete(f"/v1/jobs/{job['job_id']}")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        page = client.get(f"/v1/jobs/{job['job_id']}/examples").json()
        assert page["examples"] == [] and not page["has_more"]
        assert client.get(f"/v1/jobs/{job['job_id']}/export").text == ""


class _Breaks(TemplateGenerator):
    """Fails on its 8th stage-3 answer: the job fails after writing a batch."""

    answers = 0

    def calls(self, query: str, tools: Any, **kwargs: Any) -> Any:
        self.answers += 1
        if self.answers >= 8:
            raise RuntimeError("generator fell over")
        return super().calls(query, tools, **kwargs)


def test_failed_job_leaves_examples_readable(tmp_path: Path, database_url: str) -> None:
    config = SynthSettings(
        data_dir=tmp_path / "data", database_url=database_url, synth_batch_size=2
    )
    with TestClient(build_app(config, generators=lambda _name: _Breaks())) as client:
        job = client.post("/v1/synthesize", json={"n": 50, "seed": 1}).json()
        done = _wait(client, job["job_id"])
        assert done["status"] == "failed" and "generator fell over" in done["error"]["message"]
        examples = client.get(f"/v1/jobs/{job['job_id']}/examples").json()["examples"]
        assert 0 < len(examples) == done["progress"]["accepted"]


def test_llm_generator_end_to_end(
    tmp_path: Path, database_url: str, fake_llm: tuple[FakeToolsOpenAI, str]
) -> None:
    fake, url = fake_llm
    fake.reset()
    for client in _client(tmp_path, database_url, llm_base_url=url, llm_model=MODEL):
        body = {"generator": "llm", "n": 3, "seed": 2, "catalog": [PING], "mix": {"simple": 1}}
        job = _wait(client, client.post("/v1/synthesize", json=body).json()["job_id"])
        assert job["status"] == "succeeded", job["error"]
        assert job["result"]["generator_stats"]["malformed"] == 0
        assert job["progress"]["accepted"] == 3
        assert any("tools" in r for r in fake.requests)

        fake.reset("malformed")
        body = {**body, "n": 2, "max_refine_rounds": 0}
        job = _wait(client, client.post("/v1/synthesize", json=body).json()["job_id"])
        assert job["status"] == "succeeded" and job["progress"]["accepted"] == 0
        assert job["result"]["generator_stats"]["malformed"] == job["result"]["max_samples"]


def test_llm_endpoint_down_is_503(tmp_path: Path, database_url: str) -> None:
    for client in _client(tmp_path, database_url, llm_base_url=closed_port_url(), llm_model="m"):
        error = _error(client.post("/v1/synthesize", json={"generator": "llm"}), 503)
        assert error["code"] == "llm_unavailable" and "unreachable" in error["message"]
        down = client.post("/v1/evaluate", json={"categories": ["simple"], "limit": 1})
        assert _error(down, 503)["code"] == "llm_unavailable"


def test_evaluate_needs_an_endpoint(synth: TestClient) -> None:
    error = _error(synth.post("/v1/evaluate", json={"categories": ["simple"]}), 422)
    assert error["code"] == "llm_not_configured" and error["param"] == "base_url"


def test_evaluate_scores_an_endpoint(
    tmp_path: Path, database_url: str, fake_llm: tuple[FakeToolsOpenAI, str]
) -> None:
    fake, url = fake_llm
    fake.reset()
    for synth in _client(tmp_path, database_url, allowed_upstreams=[url]):
        body = {"base_url": url, "model": MODEL, "categories": ["simple"], "limit": 2}
        answer = synth.post("/v1/evaluate", json=body)
        assert answer.status_code == 200, answer.text
        report = answer.json()
        assert report["base_url"] == url and report["model"] == MODEL
        simple = report["results"]["categories"]["simple"]
        assert simple["total"] == 2 and simple["no_calls"] == 2 and simple["accuracy"] == 0.0
        assert len(fake.requests) == 2 and all("tools" in r for r in fake.requests)
        unknown = synth.post("/v1/evaluate", json={**body, "categories": ["poetry"]})
        assert _error(unknown, 422)["param"] == "categories"


class _FailsWhileBroken(TemplateGenerator):
    """Fails on its 8th stage-3 answer while ``state["broken"]``, with an error that carries
    SQL text and an absolute path, as a driver error would."""

    def __init__(self, state: dict[str, bool]) -> None:
        self.state = state
        self.answers = 0

    def calls(self, query: str, tools: Any, **kwargs: Any) -> Any:
        self.answers += 1
        if self.state["broken"] and self.answers >= 8:
            raise RuntimeError(
                "write failed in /srv/refinery/data/synth.db\n"
                "[SQL: INSERT INTO synth_examples (job_id, seq) VALUES (%(job_id)s, %(seq)s)]\n"
                "[parameters: {'job_id': 'x', 'seq': 3}]"
            )
        return super().calls(query, tools, **kwargs)


def test_a_failed_job_is_retried_and_resumes_from_its_stored_examples(
    tmp_path: Path, database_url: str
) -> None:
    state = {"broken": True}
    config = SynthSettings(
        data_dir=tmp_path / "data", database_url=database_url, synth_batch_size=2
    )
    build = build_app(config, generators=lambda _name: _FailsWhileBroken(state))
    with TestClient(build) as client:
        job_id = client.post("/v1/synthesize", json={"n": 30, "seed": 1}).json()["job_id"]
        failed = _wait(client, job_id)
        assert failed["status"] == "failed" and failed["error"]["code"] == "handler_error"
        message = failed["error"]["message"]
        assert "[SQL" not in message and "parameters" not in message, message
        assert "/srv/" not in message and "…/synth.db" in message, message
        stored = failed["progress"]["stage1"]["sampled"]
        assert stored > 0

        state["broken"] = False
        retried = client.post(f"/v1/jobs/{job_id}:retry")
        assert retried.status_code == 202, retried.text
        assert retried.json()["status"] == "queued" and retried.json()["error"] is None
        done = _wait(client, job_id)
        assert done["status"] == "succeeded", done
        assert done["result"]["resumed_from"] == stored and done["result"]["accepted"] == 30
        rows = client.get(f"/v1/jobs/{job_id}/examples", params={"limit": 100}).json()
        seqs = [row["seq"] for row in rows["examples"]]
        assert len(seqs) == len(set(seqs)) == 30

        again = _error(client.post(f"/v1/jobs/{job_id}:retry"), 409)
        assert again["code"] == "job_not_failed" and again["status"] == "succeeded"
        assert _error(client.post("/v1/jobs/nope:retry"), 404)["code"] == "job_not_found"
