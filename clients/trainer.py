"""Typed clients for the trainer service (sources, datasets, train jobs, models, publish).

::

    from clients import TrainerClient

    with TrainerClient() as trainer:                 # REFINERY_TRAINER_URL or :8104
        data = trainer.build_dataset("repair_sft", [{"service": "planner"}])
        job = trainer.train("sft", data.dataset_id, hyper={"max_steps": 20})
        job = trainer.wait(job.job_id)
        trainer.publish(job.result["model_id"])     # the planner's proposer hf:<id>
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from clients.base import (
    AsyncAPIClient,
    Call,
    SyncAPIClient,
    healthy,
    parse_model,
    poll_job,
    poll_job_async,
)
from clients.errors import RefineryClientError
from protocol.jobs import JobOut
from protocol.trainer import DatasetOut, ModelOut, PublishOut, PullResponse

__all__ = ["DEFAULT_TRAINER_URL", "AsyncTrainerClient", "TrainerClient"]

DEFAULT_TRAINER_URL = "http://127.0.0.1:8104"
TRAINER_TIMEOUT = httpx.Timeout(300.0, connect=5.0)

Source = Mapping[str, Any]


def _bytes(response: httpx.Response) -> bytes:
    return response.content


def _models(response: httpx.Response) -> list[ModelOut]:
    return [ModelOut.model_validate(item) for item in response.json()]


def _datasets(response: httpx.Response) -> list[DatasetOut]:
    return [DatasetOut.model_validate(item) for item in response.json()]


def _q(value: str) -> str:
    return quote(value, safe="")


class _Calls:
    @staticmethod
    def pull(sources: Sequence[Source]) -> Call[PullResponse]:
        body = {"sources": [dict(s) for s in sources]}
        return Call("POST", "/v1/sources:pull", parse_model(PullResponse), body, retry=False)

    @staticmethod
    def build(
        kind: str, sources: Sequence[Source], filters: Mapping[str, Any], pull: bool
    ) -> Call[DatasetOut]:
        body = {
            "kind": kind,
            "sources": [dict(s) for s in sources],
            "filters": dict(filters),
            "pull": pull,
        }
        return Call("POST", "/v1/datasets:build", parse_model(DatasetOut), body, retry=False)

    @staticmethod
    def dataset(dataset_id: str) -> Call[DatasetOut]:
        return Call("GET", f"/v1/datasets/{_q(dataset_id)}", parse_model(DatasetOut))

    @staticmethod
    def datasets() -> Call[list[DatasetOut]]:
        return Call("GET", "/v1/datasets", _datasets)

    @staticmethod
    def download(dataset_id: str) -> Call[bytes]:
        return Call("GET", f"/v1/datasets/{_q(dataset_id)}/download", _bytes)

    @staticmethod
    def train(kind: str, data: str, base: str, hyper: Mapping[str, Any]) -> Call[JobOut]:
        body = {"kind": kind, "data": data, "base": base, "hyper": dict(hyper)}
        return Call("POST", "/v1/train", parse_model(JobOut), body, retry=False)

    @staticmethod
    def job(job_id: str) -> Call[JobOut]:
        return Call("GET", f"/v1/jobs/{_q(job_id)}", parse_model(JobOut))

    @staticmethod
    def cancel(job_id: str) -> Call[JobOut]:
        return Call("POST", f"/v1/jobs/{_q(job_id)}/cancel", parse_model(JobOut))

    @staticmethod
    def retry(job_id: str) -> Call[JobOut]:
        return Call("POST", f"/v1/jobs/{_q(job_id)}:retry", parse_model(JobOut))

    @staticmethod
    def models() -> Call[list[ModelOut]]:
        return Call("GET", "/v1/models", _models)

    @staticmethod
    def model(model_id: str) -> Call[ModelOut]:
        return Call("GET", f"/v1/models/{_q(model_id)}", parse_model(ModelOut))

    @staticmethod
    def publish(model_id: str, planner_url: str | None) -> Call[PublishOut]:
        body = {"planner_url": planner_url} if planner_url else {}
        return Call("POST", f"/v1/models/{_q(model_id)}/publish", parse_model(PublishOut), body)

    @staticmethod
    def health() -> Call[bool]:
        return Call("GET", "/healthz", healthy, retry=False)


class TrainerClient(SyncAPIClient):
    """Blocking trainer client; see :class:`clients.base.SyncAPIClient` for options."""

    base_url_env = "REFINERY_TRAINER_URL"
    default_base_url = DEFAULT_TRAINER_URL

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("timeout", TRAINER_TIMEOUT)
        super().__init__(base_url, **kwargs)

    def pull(self, sources: Sequence[Source]) -> PullResponse:
        """Pull new records of each ``{"service": "planner"|"synth", "url"?}`` source."""
        return self._call(_Calls.pull(sources))

    def build_dataset(
        self,
        kind: str,
        sources: Sequence[Source],
        *,
        filters: Mapping[str, Any] | None = None,
        pull: bool = True,
    ) -> DatasetOut:
        """Build a dataset (repair_sft, tool_sft, evo_pairs, solar, grpo_sparse, gui_sft)."""
        return self._call(_Calls.build(kind, sources, filters or {}, pull))

    def dataset(self, dataset_id: str) -> DatasetOut:
        return self._call(_Calls.dataset(dataset_id))

    def datasets(self) -> list[DatasetOut]:
        return self._call(_Calls.datasets())

    def download(self, dataset_id: str) -> bytes:
        """The dataset's rows as JSONL bytes."""
        return self._call(_Calls.download(dataset_id))

    def train(
        self,
        kind: str,
        data: str,
        *,
        base: str = "tiny",
        hyper: Mapping[str, Any] | None = None,
    ) -> JobOut:
        """Queue a train job (202); follow it with :meth:`job` or :meth:`wait`."""
        return self._call(_Calls.train(kind, data, base, hyper or {}))

    def job(self, job_id: str) -> JobOut:
        return self._call(_Calls.job(job_id))

    def cancel(self, job_id: str) -> JobOut:
        return self._call(_Calls.cancel(job_id))

    def retry(self, job_id: str) -> JobOut:
        """Train a failed job again, from the start (409 if it is not failed)."""
        return self._call(_Calls.retry(job_id))

    def wait(
        self,
        job_id: str,
        *,
        poll_s: float = 0.5,
        timeout: float | None = None,
        on_progress: Callable[[JobOut], None] | None = None,
    ) -> JobOut:
        """Poll until the job finishes (any status); ``on_progress`` sees every poll."""
        return poll_job(
            lambda: self.job(job_id),
            job_id,
            poll_s=poll_s,
            timeout=timeout,
            on_progress=on_progress,
        )

    def models(self) -> list[ModelOut]:
        return self._call(_Calls.models())

    def model(self, model_id: str) -> ModelOut:
        return self._call(_Calls.model(model_id))

    def publish(self, model_id: str, *, planner_url: str | None = None) -> PublishOut:
        """Register the checkpoint with the planner as proposer ``hf:<model_id>``."""
        return self._call(_Calls.publish(model_id, planner_url))

    def health(self) -> bool:
        try:
            return self._call(_Calls.health())
        except RefineryClientError:
            return False


class AsyncTrainerClient(AsyncAPIClient):
    """Async trainer client; see :class:`clients.base.AsyncAPIClient` for options."""

    base_url_env = "REFINERY_TRAINER_URL"
    default_base_url = DEFAULT_TRAINER_URL

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("timeout", TRAINER_TIMEOUT)
        super().__init__(base_url, **kwargs)

    async def pull(self, sources: Sequence[Source]) -> PullResponse:
        return await self._call(_Calls.pull(sources))

    async def build_dataset(
        self,
        kind: str,
        sources: Sequence[Source],
        *,
        filters: Mapping[str, Any] | None = None,
        pull: bool = True,
    ) -> DatasetOut:
        return await self._call(_Calls.build(kind, sources, filters or {}, pull))

    async def dataset(self, dataset_id: str) -> DatasetOut:
        return await self._call(_Calls.dataset(dataset_id))

    async def datasets(self) -> list[DatasetOut]:
        return await self._call(_Calls.datasets())

    async def download(self, dataset_id: str) -> bytes:
        return await self._call(_Calls.download(dataset_id))

    async def train(
        self,
        kind: str,
        data: str,
        *,
        base: str = "tiny",
        hyper: Mapping[str, Any] | None = None,
    ) -> JobOut:
        return await self._call(_Calls.train(kind, data, base, hyper or {}))

    async def job(self, job_id: str) -> JobOut:
        return await self._call(_Calls.job(job_id))

    async def cancel(self, job_id: str) -> JobOut:
        return await self._call(_Calls.cancel(job_id))

    async def retry(self, job_id: str) -> JobOut:
        """Train a failed job again, from the start (409 if it is not failed)."""
        return await self._call(_Calls.retry(job_id))

    async def wait(
        self, job_id: str, *, poll_s: float = 0.5, timeout: float | None = None
    ) -> JobOut:
        """Poll until the job finishes (any status)."""
        return await poll_job_async(
            lambda: self.job(job_id), job_id, poll_s=poll_s, timeout=timeout
        )

    async def models(self) -> list[ModelOut]:
        return await self._call(_Calls.models())

    async def model(self, model_id: str) -> ModelOut:
        return await self._call(_Calls.model(model_id))

    async def publish(self, model_id: str, *, planner_url: str | None = None) -> PublishOut:
        return await self._call(_Calls.publish(model_id, planner_url))

    async def health(self) -> bool:
        try:
            return await self._call(_Calls.health())
        except RefineryClientError:
            return False
