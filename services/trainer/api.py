"""HTTP routes of the trainer; each parses, calls a service function, answers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from protocol.common import ERROR_RESPONSES, error_responses
from protocol.trainer import (
    BuildDatasetRequest,
    DatasetOut,
    JobOut,
    ModelOut,
    PublishOut,
    PublishRequest,
    PullOut,
    PullRequest,
    PullResponse,
    TrainRequest,
)
from services.common.errors import NotFoundError
from services.common.jobs import Job
from services.common.responses import NDJSON
from services.trainer import service, training
from services.trainer.jobs import TRAIN_KINDS, job_view, train_kind
from services.trainer.store import DatasetRow, new_id

router = APIRouter(prefix="/v1", tags=["trainer"], responses=ERROR_RESPONSES)
_NDJSON_FILE = {200: {"description": "JSON Lines", "content": {NDJSON: {}}}}


@router.post("/sources:pull", response_model=PullResponse, responses=error_responses(503))
async def pull_sources(body: PullRequest, request: Request) -> PullResponse:
    """Pull new records from each service, from its stored cursor; keep them with provenance."""
    state = request.app.state
    params = [f"sources[{index}]" for index in range(len(body.sources))]
    results = await run_in_threadpool(
        lambda: service.pull_sources(state.store, state.upstreams, body.sources, params=params)
    )
    return PullResponse(results=[PullOut(**r.wire()) for r in results])


@router.post(
    "/datasets:build",
    response_model=DatasetOut,
    status_code=201,
    responses=error_responses(503),
)
async def build_dataset(body: BuildDatasetRequest, request: Request) -> DatasetOut:
    """Pull (unless ``pull: false``), build, and store a dataset; an empty one is a 422."""
    state = request.app.state
    row = await run_in_threadpool(service.build_dataset, state.store, state.upstreams, body)
    return service.dataset_out(row)


@router.get("/datasets", response_model=list[DatasetOut])
async def list_datasets(request: Request) -> list[DatasetOut]:
    rows = await run_in_threadpool(request.app.state.store.datasets)
    return [service.dataset_out(row) for row in rows]


def _dataset(request: Request, dataset_id: str) -> DatasetRow:
    row = request.app.state.store.dataset(dataset_id)
    if row is None:
        raise NotFoundError(
            f"no dataset {dataset_id!r}", code="dataset_not_found", param="dataset_id"
        )
    return row


@router.get("/datasets/{dataset_id}", response_model=DatasetOut, responses=error_responses(404))
async def get_dataset(dataset_id: str, request: Request) -> DatasetOut:
    """A dataset's statistics, sources (with provenance) and filters."""
    return service.dataset_out(await run_in_threadpool(_dataset, request, dataset_id))


@router.get(
    "/datasets/{dataset_id}/download",
    response_class=FileResponse,
    responses={**_NDJSON_FILE, **error_responses(404)},
)
async def download_dataset(dataset_id: str, request: Request) -> FileResponse:
    """The dataset's rows as JSONL, to inspect before training."""
    row = await run_in_threadpool(_dataset, request, dataset_id)
    return FileResponse(row.path, media_type="application/x-ndjson", filename=f"{row.id}.jsonl")


@router.post("/train", response_model=JobOut, status_code=202, responses=error_responses(404, 409))
async def train(body: TrainRequest, request: Request) -> JobOut:
    """Check everything that can refuse the run (4xx), then queue it; poll ``/v1/jobs/{id}``."""
    state = request.app.state
    payload = await run_in_threadpool(
        lambda: training.preflight(state.store, body, data_dir=state.settings.data_dir)
    )
    payload["model_id"] = new_id(body.kind.replace("_", "-"))
    kind = train_kind(body.device)
    job = await run_in_threadpool(state.jobs.submit, kind, payload, max_attempts=2)
    return job_view(job, state.settings)


async def _job(request: Request, job_id: str) -> Job:
    job = await run_in_threadpool(request.app.state.jobs.get, job_id)
    if job is None or job.kind not in TRAIN_KINDS:
        raise NotFoundError(f"no job {job_id!r}", param="job_id", code="job_not_found")
    return job


@router.get("/jobs/{job_id}", response_model=JobOut, responses=error_responses(404))
async def get_job(job_id: str, request: Request) -> JobOut:
    """A train job: status, progress (step, loss curve, last checkpoint), result or error."""
    return job_view(await _job(request, job_id), request.app.state.settings)


@router.post("/jobs/{job_id}/cancel", response_model=JobOut, responses=error_responses(404))
async def cancel_job(job_id: str, request: Request) -> JobOut:
    """Stop a queued or running job; the runner saves the last step's checkpoint and stops."""
    await _job(request, job_id)
    job = await run_in_threadpool(request.app.state.jobs.cancel, job_id)
    return job_view(job, request.app.state.settings)


@router.get("/models", response_model=list[ModelOut])
async def list_models(request: Request) -> list[ModelOut]:
    """Trained checkpoints, newest first."""
    rows = await run_in_threadpool(request.app.state.store.models)
    return [training.model_out(row) for row in rows]


@router.get("/models/{model_id}", response_model=ModelOut, responses=error_responses(404))
async def get_model(model_id: str, request: Request) -> ModelOut:
    row = await run_in_threadpool(request.app.state.store.model, model_id)
    if row is None:
        raise NotFoundError(f"no model {model_id!r}", code="model_not_found", param="model_id")
    return training.model_out(row)


@router.post(
    "/models/{model_id}/publish",
    response_model=PublishOut,
    responses=error_responses(404, 409, 503),
)
async def publish_model(
    model_id: str, request: Request, body: PublishRequest | None = None
) -> PublishOut:
    """Register the checkpoint with the planner as proposer ``hf:<model_id>`` (and, with a
    vLLM configured, load its LoRA adapter there as ``llm:<model_id>``)."""
    state = request.app.state
    url = body.planner_url if body is not None else None

    def run() -> PublishOut:
        with state.upstreams.client("planner", url, param="planner_url") as planner:
            return training.publish(state.store, model_id, planner, state.settings)

    return await run_in_threadpool(run)
