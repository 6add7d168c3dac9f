"""TrainerClient / AsyncTrainerClient against a real trainer app fed by a real planner."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from clients import NotFoundError, UnprocessableEntityError
from clients.trainer import AsyncTrainerClient, TrainerClient
from tests.trainer.trainer_apps import plan_repairs, planner_app, trainer_app


def test_sync_client_builds_trains_and_publishes(tmp_path: Path, database_url: str) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner) as http:
            client = TrainerClient(http_client=http)
            pulled = client.pull([{"service": "planner"}])
            assert pulled.results[0].new > 0
            data = client.build_dataset("evo_pairs", [{"service": "planner"}], pull=False)
            assert data.rows == data.stats["pairs"] > 0
            assert client.dataset(data.dataset_id) == data
            assert [d.dataset_id for d in client.datasets()] == [data.dataset_id]
            with pytest.raises(UnprocessableEntityError) as mismatch:
                client.train("sft", data.dataset_id)
            assert mismatch.value.code == "dataset_kind_mismatch"
            rows = [json.loads(line) for line in client.download(data.dataset_id).splitlines()]
            assert all(r["margin"] >= 0.1 for r in rows)
            sft = client.build_dataset("repair_sft", [{"service": "planner"}], pull=False)
            hyper = {"max_steps": 1, "batch_size": 2, "max_length": 2048}
            job = client.wait(client.train("sft", sft.dataset_id, hyper=hyper).job_id, poll_s=0.1)
            assert job.status == "succeeded", job.error
            model_id = job.result["model_id"]
            assert [m.model_id for m in client.models()] == [model_id]
            assert client.publish(model_id).proposer == f"hf:{model_id}"
            assert client.model(model_id).published_as == f"hf:{model_id}"
            with pytest.raises(UnprocessableEntityError) as caught:
                client.train("dpo", data.dataset_id, hyper={"nope": 1})
            assert caught.value.param == "hyper.nope"
            with pytest.raises(NotFoundError):
                client.job("missing")
            assert client.health()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_async_client_reads_what_the_sync_one_built(
    tmp_path: Path, database_url: str
) -> None:
    with planner_app(tmp_path, database_url) as planner:
        plan_repairs(planner)
        with trainer_app(tmp_path, database_url, planner) as http:
            transport = httpx.ASGITransport(app=http.app)
            async with AsyncTrainerClient("http://trainer", transport=transport) as client:
                data = await client.build_dataset("repair_sft", [{"service": "planner"}])
                assert (await client.dataset(data.dataset_id)).rows == data.rows
                assert len((await client.download(data.dataset_id)).splitlines()) == data.rows
                assert await client.models() == []
                with pytest.raises(NotFoundError):
                    await client.publish("missing")
                assert await client.health()
