"""Checks before a train job is queued, what the job runs, and publishing to the planner.

Everything that can refuse a run refuses it here, as a 4xx, before anything is queued: an
unknown dataset, one of the wrong kind or with no rows, an unknown hyper-parameter, a base
that does not exist, a tokenizer that cannot serve training or rows that cannot fit. The
worker runs the same checks again (the job may run in another process), cheaply. No FastAPI.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from protocol.trainer import TRAINS_ON, ModelOut, PublishOut, TrainRequest
from services.common.errors import ConflictError, NotFoundError, RefineryError, UnavailableError
from services.trainer.config import TrainerSettings
from services.trainer.configs import Hyper, hyper_from_dict
from services.trainer.launch import ACCELERATE_CONFIGS, launched_runner
from services.trainer.runner_kinds import HYPER_KIND, runner_for
from services.trainer.store import DatasetRow, ModelRow, Store

__all__ = [
    "check_tokenizer",
    "dataset_rows",
    "model_out",
    "preflight",
    "prepare_job",
    "publish",
]


def dataset_rows(row: DatasetRow) -> list[dict[str, Any]]:
    """The dataset's rows, read back from its JSONL file."""
    path = Path(row.path)
    if not path.is_file():
        raise ConflictError(
            f"dataset {row.id}'s file {path} is gone; build it again",
            code="dataset_missing",
            param="data",
        )
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _dataset(store: Store, data: str, kind: str) -> DatasetRow:
    row = store.dataset(data)
    if row is None:
        raise NotFoundError(f"no dataset {data!r}", code="dataset_not_found", param="data")
    accepted = TRAINS_ON[kind]
    if row.kind not in accepted:
        raise RefineryError(
            f"dataset {data} is {row.kind}; {kind} trains on {', '.join(sorted(accepted))}",
            code="dataset_kind_mismatch",
            param="data",
            status_code=422,
        )
    if row.rows == 0:
        raise RefineryError(
            f"dataset {data} has no rows: nothing to train on",
            code="empty_dataset",
            param="data",
            status_code=422,
        )
    return row


def _fit_rows(kind: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as the runner tokenises them (SFT reduces them to TRL's fields first)."""
    if kind == "sft":
        from services.trainer.runners.sft import sft_rows

        return sft_rows(rows)[0]
    return rows


def check_tokenizer(
    kind: str,
    base: str,
    rows: list[dict[str, Any]],
    hyper: Hyper,
    *,
    data_dir: Path | None = None,
) -> None:
    """422 when the base is unknown or missing, its tokenizer unusable, or no row fits
    ``max_length``. A named base is materialised under ``data_dir`` first (once)."""
    from services.trainer.models import base_tokenizer, check_fits, named_source

    fit = _fit_rows(kind, rows)
    if not all(("messages" in r) or ("prompt" in r) for r in fit):
        named_source(base, data_dir)  # the runner checks the rows; the base is checked here
        return  # rows the runner shapes itself (e.g. step rows); it checks them
    check_fits(base_tokenizer(base, fit, data_dir=data_dir), fit, hyper.max_length)


def _check_launch(request: TrainRequest) -> None:
    """422 for a launch the chosen launcher cannot do."""
    if request.launcher == "local" and request.num_processes != 1:
        raise RefineryError(
            "num_processes > 1 needs launcher 'accelerate'",
            code="bad_launch",
            param="num_processes",
            status_code=422,
        )
    config = request.accelerate_config
    if config is not None:
        if request.launcher != "accelerate":
            raise RefineryError(
                "accelerate_config needs launcher 'accelerate'",
                code="bad_launch",
                param="accelerate_config",
                status_code=422,
            )
        if not (ACCELERATE_CONFIGS / f"{config}.yaml").is_file():
            shipped = sorted(p.stem for p in ACCELERATE_CONFIGS.glob("*.yaml"))
            raise RefineryError(
                f"no accelerate config {config!r}; shipped: {', '.join(shipped)}",
                code="bad_launch",
                param="accelerate_config",
                status_code=422,
            )


def preflight(
    store: Store, request: TrainRequest, *, data_dir: Path | None = None
) -> dict[str, Any]:
    """Every check that can refuse ``request``; the job payload when all pass. A named base
    is materialised under ``data_dir`` (default ``REFINERY_DATA_DIR``) here, on first use."""
    _check_launch(request)
    dataset = _dataset(store, request.data, request.kind)
    hyper = hyper_from_dict(HYPER_KIND[request.kind], request.hyper)
    rows = dataset_rows(dataset)
    check_tokenizer(request.kind, request.base, rows, hyper, data_dir=data_dir)
    return {
        "kind": request.kind,
        "base": request.base,
        "data": request.data,
        "hyper": dict(request.hyper),
        "device": request.device,
        "launcher": request.launcher,
        "num_processes": request.num_processes,
        "accelerate_config": request.accelerate_config,
    }


def prepare_job(
    store: Store, *, data_dir: Path | None = None
) -> Callable[[Mapping[str, Any]], tuple[Any, list, str, Hyper]]:
    """What :func:`services.trainer.jobs.train_handler` calls to start a job. A named base
    reaches the runner as its checkpoint directory under ``data_dir``."""
    from services.trainer.models import named_source

    def prepare(payload: Mapping[str, Any]) -> tuple[Any, list, str, Hyper]:
        kind = payload["kind"]
        dataset = _dataset(store, payload["data"], kind)
        hyper = hyper_from_dict(HYPER_KIND[kind], payload["hyper"])
        runner = runner_for(kind)
        if payload.get("launcher") == "accelerate":
            runner = launched_runner(
                kind,
                num_processes=int(payload.get("num_processes", 1)),
                device=payload.get("device", "cpu"),
                config=payload.get("accelerate_config"),
            )
        return runner, dataset_rows(dataset), named_source(payload["base"], data_dir), hyper

    return prepare


def model_out(row: ModelRow) -> ModelOut:
    return ModelOut(
        model_id=row.id,
        kind=row.kind,
        base=row.base,
        dataset_id=row.dataset_id,
        job_id=row.job_id,
        path=row.path,
        metrics=row.metrics,
        created_at=row.created_at,
        published_as=row.published_as,
        published_at=row.published_at,
    )


def publish(
    store: Store, model_id: str, planner: Any, settings: TrainerSettings | None = None
) -> PublishOut:
    """Register the checkpoint with the planner (``POST /v1/proposers``) as ``hf:<id>``.

    With ``settings.vllm_url`` set, a LoRA run's adapter (``<checkpoint>/adapter``) is first
    loaded into vLLM under the model id, so the planner can also ask for ``llm:<id>`` on the
    GPU; a vLLM refusal is a 502 and nothing is published."""
    row = store.model(model_id)
    if row is None:
        raise NotFoundError(f"no model {model_id!r}", code="model_not_found", param="model_id")
    if not (Path(row.path) / "config.json").is_file():
        raise ConflictError(
            f"model {model_id}'s checkpoint {row.path} is gone",
            code="checkpoint_missing",
            param="model_id",
        )
    served = _serve_adapter(row, settings) if settings is not None else None
    registered = _register(planner, row.id, row.path)
    row = store.mark_published(row.id, registered.name)
    return PublishOut(model=model_out(row), proposer=registered.name, llm_proposer=served)


def _register(planner: Any, model_id: str, path: str) -> Any:
    """``POST /v1/proposers`` on the planner: its refusal is a 422, its absence a 503."""
    from clients.errors import APIError, RefineryClientError

    where = getattr(planner, "base_url", "the planner")
    try:
        return planner.register_proposer(model_id, path)
    except APIError as error:
        if error.status_code >= 500:
            raise UnavailableError(
                f"the planner at {where} failed: {error}", code="planner_unavailable"
            ) from None
        raise RefineryError(
            f"the planner at {where} refused the checkpoint: {error}",
            code="planner_refused",
            param="planner_url",
            status_code=422,
        ) from None
    except RefineryClientError as error:
        raise UnavailableError(
            f"the planner at {where} is unreachable: {error}",
            code="planner_unavailable",
            param="planner_url",
        ) from None


def _serve_adapter(row: ModelRow, settings: TrainerSettings) -> str | None:
    """Load the model's LoRA adapter into vLLM when one is configured; ``llm:<id>``."""
    adapter = Path(row.path) / "adapter"
    if not settings.vllm_url or not (adapter / "adapter_config.json").is_file():
        return None
    from services.trainer.vllm import adapter_path_for_vllm, load_lora_adapter

    path = adapter_path_for_vllm(adapter, settings.data_dir, settings.vllm_adapter_root)
    load_lora_adapter(settings.vllm_url, row.id, path, api_key=settings.vllm_api_key)
    return f"llm:{row.id}"
