"""SynthClient / AsyncSynthClient against a real synth app (in process, worker running)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from clients import (
    AsyncSynthClient,
    ConflictError,
    NotFoundError,
    SynthClient,
    UnavailableError,
    UnprocessableEntityError,
)
from services.synth.app import build_app
from services.synth.config import SynthSettings
from tests.planner.fake_openai import closed_port_url

ECHO = {
    "type": "function",
    "function": {
        "name": "echo_text",
        "description": "Repeat a text back.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Text to repeat"}},
            "required": ["text"],
        },
    },
}


@pytest.fixture
def synth_app(tmp_path: Path, database_url: str) -> FastAPI:
    return build_app(SynthSettings(data_dir=tmp_path, database_url=database_url, llm_max_retries=0))


@pytest.fixture
def synth(synth_app: FastAPI) -> Iterator[SynthClient]:
    with TestClient(synth_app) as http, SynthClient(http_client=http, max_retries=0) as client:
        yield client


def test_catalogs_jobs_examples_export_records(synth: SynthClient) -> None:
    assert [c.name for c in synth.catalogs()] == ["builtin"]
    created = synth.create_catalog("echo", [ECHO])
    assert created.functions == ["echo_text"] and synth.catalog("echo").tools == [ECHO]
    job = synth.synthesize("builtin", n=4, seed=11, mix={"simple": 1, "multiple": 1})
    assert job.status in ("queued", "running", "succeeded") and job.request["n"] == 4
    seen: list[str] = []
    done = synth.wait(
        job.job_id, poll_s=0.05, timeout_s=60, on_progress=lambda j: seen.append(j.status)
    )
    assert done.status == "succeeded" and done.progress["accepted"] == 4 and seen[-1] == "succeeded"

    page = synth.examples(job.job_id, limit=3)
    assert len(page.examples) == 3 and page.has_more
    rest = synth.examples(job.job_id, after=page.next_cursor)
    assert len(rest.examples) == 1 and not rest.has_more

    whole = synth.export(job.job_id)
    buffer = io.BytesIO()
    assert synth.stream_export(job.job_id, buffer) == len(whole)
    assert buffer.getvalue() == whole
    rows = [json.loads(line) for line in whole.splitlines()]
    assert [r["messages"] for r in rows] == [e["messages"] for e in page.examples + rest.examples]

    records = synth.records(after=0, limit=2)
    assert len(records.records) == 2 and records.next_cursor == records.records[-1]["record_id"]
    assert synth.health()


def test_idempotency_key_and_cancel(synth: SynthClient) -> None:
    one = synth.synthesize([ECHO], n=50_000, mix={"simple": 1}, idempotency_key="same")
    two = synth.synthesize([ECHO], n=50_000, mix={"simple": 1}, idempotency_key="same")
    assert one.job_id == two.job_id
    with pytest.raises(ConflictError) as conflict:
        synth.synthesize([ECHO], n=3, mix={"simple": 1}, idempotency_key="same")
    assert conflict.value.code == "idempotency_conflict"
    other = synth.synthesize([ECHO], n=1, mix={"simple": 1})  # a fresh key: a new job
    assert other.job_id != one.job_id
    cancelled = synth.cancel(one.job_id)
    assert cancelled.status == "cancelled"
    assert synth.wait(one.job_id, poll_s=0.05).status == "cancelled"
    with pytest.raises(ConflictError) as not_failed:  # only a failed job can be retried
        synth.retry(one.job_id)
    assert not_failed.value.code == "job_not_failed"
    with pytest.raises(NotFoundError):
        synth.retry("missing")


def test_errors_are_typed(synth: SynthClient) -> None:
    with pytest.raises(UnprocessableEntityError) as invalid:
        synth.synthesize([{"type": "function", "function": {"name": "bad name"}}])
    assert invalid.value.code == "invalid_catalog"
    assert invalid.value.param == "catalog[0].function.name"
    with pytest.raises(NotFoundError):
        synth.job("missing")
    with pytest.raises(NotFoundError):
        synth.stream_export("missing", io.BytesIO())
    with pytest.raises(UnprocessableEntityError) as unconfigured:
        synth.synthesize(generator="llm")
    assert unconfigured.value.code == "llm_not_configured"


def test_an_endpoint_that_is_down_is_a_typed_503(tmp_path: Path, database_url: str) -> None:
    settings = SynthSettings(
        data_dir=tmp_path,
        database_url=database_url,
        llm_max_retries=0,
        llm_base_url=closed_port_url(),
        llm_model="m",
    )
    with (
        TestClient(build_app(settings)) as http,
        SynthClient(http_client=http) as synth,
        pytest.raises(UnavailableError) as down,
    ):
        synth.synthesize(generator="llm")
    assert down.value.code == "llm_unavailable"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_async_client(synth_app: FastAPI) -> None:
    with TestClient(synth_app):  # runs the lifespan: tables, worker thread
        transport = httpx.ASGITransport(app=synth_app)
        async with AsyncSynthClient("http://synth", transport=transport) as client:
            assert (await client.catalogs())[0].builtin
            await client.create_catalog("echo", [ECHO])
            job = await client.synthesize("echo", n=2, mix={"simple": 1}, seed=4)
            for _ in range(600):
                job = await client.job(job.job_id)
                if job.status == "succeeded":
                    break
                await _sleep()
            assert job.status == "succeeded" and job.progress["accepted"] == 2
            page = await client.examples(job.job_id)
            assert len(page.examples) == 2
            buffer = io.BytesIO()
            assert await client.stream_export(job.job_id, buffer) > 0
            assert buffer.getvalue() == await client.export(job.job_id)
            assert len((await client.records()).records) == 2
            assert (await client.cancel(job.job_id)).status == "succeeded"
            assert await client.health()


async def _sleep() -> None:
    import anyio

    await anyio.sleep(0.05)
