"""What the synth routes do, without FastAPI: catalogs, job submission, generators, BFCL.

Submitting checks everything a job could trip over *before* it is queued (catalog, ``n``,
mix, generator, the LLM endpoint, the stage-3 reader), so a queued job only fails for
reasons that arise while it runs. The job's payload carries the resolved tools: a job never
depends on a catalog row or on the built-in catalog of a later release.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.util import find_spec
from typing import Any

import httpx
from sqlalchemy.engine import Engine

from protocol.synth import CatalogOut, EvaluateRequest, EvaluateResponse, SynthesizeRequest
from services.common.base_models import (
    NAMED_BASES,
    check_available,
    is_named_base,
    set_torch_threads,
)
from services.common.errors import ConflictError, NotFoundError, RefineryError
from services.common.jobs import Job, JobQueue
from services.common.upstreams import AllowList, same_upstream
from services.synth import store
from services.synth.calls import CATEGORIES, Tool, tool_name
from services.synth.catalog import CatalogError, builtin_catalog, validate_catalog
from services.synth.config import SynthSettings
from services.synth.generators.base import Generator
from services.synth.generators.llm import LLMGenerator, LLMUnavailableError
from services.synth.generators.ranked import Scorer
from services.synth.generators.staged import CallReader
from services.synth.jobs import SYNTH_KIND, max_samples
from services.synth.sampling import Sampler, UnrealisableCatalogError

__all__ = [
    "BUILTIN",
    "GENERATORS",
    "build_generator",
    "build_ranker",
    "build_reader",
    "check_generator",
    "check_ranker",
    "check_reader",
    "create_catalog",
    "evaluate",
    "get_catalog",
    "list_catalogs",
    "submit",
]

BUILTIN = "builtin"
GENERATORS = ("template", "llm")
RULES = "rules"
"""The ``reader`` that is the template generator's hand-written rule reader."""


class InvalidRequest(RefineryError):
    status_code = 422
    code = "invalid_request"


# -- generators -------------------------------------------------------------------------


class LLMNotConfigured(InvalidRequest):
    """This synth has no LLM endpoint for what was asked: no retry helps until it is set."""

    code = "llm_not_configured"


def _llm(settings: SynthSettings) -> Any:
    if not settings.llm_base_url or not settings.llm_model:
        raise LLMNotConfigured(
            "the llm generator needs an endpoint, and this synth has none: set "
            "REFINERY_LLM_BASE_URL and REFINERY_LLM_MODEL, or use generator template",
            param="generator",
        )
    return LLMGenerator(
        settings.llm_base_url,
        settings.llm_model,
        api_key=settings.llm_api_key,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
    )


def build_generator(name: str, settings: SynthSettings) -> Generator:
    """A fresh generator for one job."""
    if name == "template":
        from services.synth.generators.template import TemplateGenerator

        return TemplateGenerator()
    if name == "llm":
        return _llm(settings)
    raise _unknown_generator(name)


def check_generator(name: str, settings: SynthSettings) -> None:
    """Raise unless ``name`` can run now: unknown or unconfigured (422), or an unreachable
    endpoint (503)."""
    if name not in GENERATORS:
        raise _unknown_generator(name)
    if name == "llm":
        with _llm(settings) as generator:
            generator.check()


def _unknown_generator(name: str) -> RefineryError:
    return InvalidRequest(
        f"unknown generator {name!r}: choose {' or '.join(GENERATORS)}",
        code="unknown_generator",
        param="generator",
    )


# -- stage-3 readers --------------------------------------------------------------------


def _unknown_reader(name: str) -> RefineryError:
    return InvalidRequest(
        f"unknown reader {name!r}: choose {RULES}, a named base "
        f"({', '.join(sorted(NAMED_BASES))}) or a local checkpoint folder",
        code="unknown_reader",
        param="reader",
    )


def _checkpoint(name: str, settings: SynthSettings) -> str:
    """The checkpoint folder of a model ``reader`` (a named base is materialised first)."""
    from services.planner.proposers.base import ProposerError
    from services.planner.proposers.hf import resolve_checkpoint

    try:
        return resolve_checkpoint(name, data_dir=settings.data_dir, param="reader")
    except (ProposerError, ValueError, OSError, RuntimeError):  # a path no folder can have
        raise _unknown_reader(name) from None


def check_reader(name: str, settings: SynthSettings) -> None:
    """Raise unless the stage-3 reader ``name`` can run here (422 naming ``reader``): a
    model needs transformers and xgrammar, and a named base its wheel (the error says how
    to install it) or an earlier conversion under the data dir. Converts nothing."""
    if name == RULES:
        return
    if find_spec("transformers") is None or find_spec("xgrammar") is None:
        raise InvalidRequest(
            f"the reader {name!r} is a model, and a model reader needs transformers and "
            "xgrammar: pip install 'refinery[model]'",
            code="reader_unavailable",
            param="reader",
        )
    if is_named_base(name):
        check_available(name, settings.data_dir, param="reader")
    else:
        _checkpoint(name, settings)


def build_reader(name: str, settings: SynthSettings) -> CallReader:
    """Stage 3 for a job's ``reader``: the rule reader, or a model loaded once per process
    (on ``REFINERY_HF_DEVICE``, in ``REFINERY_MODEL_DTYPE``, with ``REFINERY_TORCH_THREADS``)."""
    from services.synth.generators.template import TemplateGenerator

    if name == RULES:
        return TemplateGenerator()
    from services.planner.proposers.hf import choose_device, load
    from services.synth.generators.model import ModelCalls
    from services.synth.model_reader import ModelReader

    path = _checkpoint(name, settings)
    set_torch_threads(settings.torch_threads)
    loaded = load(path, choose_device(settings.hf_device), settings.model_dtype)
    return ModelCalls(ModelReader(loaded, max_new_tokens=settings.synth_reader_max_new_tokens))


# -- stage-2 ranking ---------------------------------------------------------------------

RANKER = "smollm2-135m"
"""The real base that reads stage-2 drafts when a job's ``rank_queries`` is above 1."""


def check_ranker(settings: SynthSettings) -> None:
    """Raise unless :data:`RANKER` can run here (422 naming ``rank_queries``)."""
    if find_spec("transformers") is None:
        raise InvalidRequest(
            "ranking stage-2 drafts reads them with a model, which needs transformers: "
            "pip install 'refinery[model]'",
            code="ranker_unavailable",
            param="rank_queries",
        )
    check_available(RANKER, settings.data_dir, param="rank_queries")


def build_ranker(settings: SynthSettings) -> Scorer:
    """:data:`RANKER` as a scorer, loaded once per process (``REFINERY_MODEL_DTYPE``,
    ``REFINERY_TORCH_THREADS``)."""
    from services.synth.judge import NllJudge

    return NllJudge(
        RANKER,
        settings.data_dir,
        threads=settings.torch_threads,
        dtype=settings.model_dtype,
        param="rank_queries",
    )


# -- catalogs ---------------------------------------------------------------------------


def _catalog_out(name: str, tools: Sequence[Tool], *, builtin: bool) -> CatalogOut:
    functions = [tool_name(t) for t in tools]
    return CatalogOut(
        name=name, builtin=builtin, size=len(tools), functions=functions, tools=list(tools)
    )


def _relocated(error: CatalogError, prefix: str) -> CatalogError:
    """The same error with its ``catalog…`` path under ``prefix`` (e.g. ``tools[2]…``)."""
    param = error.param or "catalog"
    if param.startswith("catalog"):
        param = prefix + param[len("catalog") :]
    return CatalogError(error.message, code=error.code, param=param, context=error.context)


def list_catalogs(engine: Engine) -> list[CatalogOut]:
    stored = [_catalog_out(r.name, r.tools, builtin=False) for r in store.list_catalogs(engine)]
    return [_catalog_out(BUILTIN, builtin_catalog(), builtin=True), *stored]


def get_catalog(engine: Engine, name: str) -> CatalogOut:
    if name == BUILTIN:
        return _catalog_out(BUILTIN, builtin_catalog(), builtin=True)
    row = store.get_catalog(engine, name)
    if row is None:
        raise NotFoundError(
            f"no catalog {name!r} (GET /v1/catalogs lists them)",
            code="catalog_not_found",
            param="catalog",
        )
    return _catalog_out(row.name, row.tools, builtin=False)


def create_catalog(
    engine: Engine, settings: SynthSettings, name: str, tools: list[Any]
) -> tuple[CatalogOut, bool]:
    """Validate and store; True when new. ``builtin`` is read-only (409)."""
    if name == BUILTIN:
        raise ConflictError(
            "the builtin catalog is read-only; post yours under another name",
            code="catalog_read_only",
            param="name",
        )
    valid = _validated(tools, settings, prefix="tools")
    row, created = store.save_catalog(engine, name, valid)
    return _catalog_out(row.name, row.tools, builtin=False), created


def _validated(tools: list[Any], settings: SynthSettings, *, prefix: str) -> list[Tool]:
    if len(tools) > settings.synth_max_catalog_tools:
        raise CatalogError(
            f"a catalog holds at most {settings.synth_max_catalog_tools} tools", param=prefix
        )
    try:
        return validate_catalog(tools)
    except CatalogError as error:
        raise _relocated(error, prefix) from None


def _resolve(engine: Engine, settings: SynthSettings, catalog: str | list[Any]) -> list[Tool]:
    if isinstance(catalog, list):
        return _validated(catalog, settings, prefix="catalog")
    return list(get_catalog(engine, catalog).tools)


# -- jobs -------------------------------------------------------------------------------


def _check_request(body: SynthesizeRequest, settings: SynthSettings) -> None:
    if body.n > settings.synth_max_n:
        raise InvalidRequest(
            f"n is {body.n}; one job makes at most {settings.synth_max_n} examples "
            "(REFINERY_SYNTH_MAX_N)",
            code="n_too_large",
            param="n",
        )
    if body.max_refine_rounds > settings.synth_max_refine_rounds:
        raise InvalidRequest(
            f"max_refine_rounds is at most {settings.synth_max_refine_rounds}",
            param="max_refine_rounds",
        )
    for key, weight in (body.mix or {}).items():
        if key not in CATEGORIES:
            raise InvalidRequest(
                f"unknown category {key!r} in mix: choose from {', '.join(CATEGORIES)}",
                code="unknown_category",
                param=f"mix.{key}",
            )
        if not weight >= 0 or weight == float("inf"):
            raise InvalidRequest("mix weights are finite numbers ≥ 0", param=f"mix.{key}")
    if body.mix is not None and not sum(body.mix.values()) > 0:
        raise InvalidRequest("mix needs at least one positive weight", param="mix")


def _isolated(tools: list[Tool]) -> tuple[list[Tool], list[dict[str, Any]]]:
    """The tools BFCL does not know, and ``{name, reason, bfcl_function}`` of each dropped."""
    from services.synth.bfcl.isolate import isolate

    kept, dropped = isolate(tools)
    if not kept:
        raise InvalidRequest(
            "isolate dropped every tool of the catalog: nothing left to sample",
            code="catalog_empty",
            param="isolate",
        )
    return list(kept), [{k: v for k, v in d.items() if k != "tool"} for d in dropped]


def _payload(body: SynthesizeRequest, tools: list[Tool], dropped: list[Any], cap: int) -> dict:
    request = body.model_dump(mode="json")
    if isinstance(body.catalog, list):
        request["catalog"] = "inline"
    return {"request": request, "tools": tools, "dropped": dropped, "max_samples": cap}


def submit(
    body: SynthesizeRequest,
    *,
    settings: SynthSettings,
    engine: Engine,
    queue: JobQueue,
    idempotency_key: str | None = None,
) -> Job:
    """Check, resolve and queue a synth job; the same ``idempotency_key`` → the same job."""
    _check_request(body, settings)
    tools = _resolve(engine, settings, body.catalog)
    dropped: list[Any] = []
    if body.isolate:
        tools, dropped = _isolated(tools)
    try:
        Sampler(tools, seed=body.seed, mix=body.mix)
    except UnrealisableCatalogError as error:
        raise InvalidRequest(str(error), code="catalog_unrealisable", param="catalog") from None
    except ValueError as error:
        raise InvalidRequest(str(error), code="invalid_mix", param="mix") from None
    check_generator(body.generator, settings)
    if body.reader is not None:
        check_reader(body.reader, settings)
    if body.rank_queries > 1:
        check_ranker(settings)
    payload = _payload(body, tools, dropped, max_samples(body.n, settings.synth_sample_factor))
    job = queue.submit(SYNTH_KIND, payload, idempotency_key=idempotency_key)
    if job.payload.get("request") != payload["request"]:
        raise ConflictError(
            "this Idempotency-Key was used for a different request",
            code="idempotency_conflict",
            param="Idempotency-Key",
        )
    return job


def get_job(queue: JobQueue, job_id: str) -> Job:
    job = queue.get(job_id)
    if job is None or job.kind != SYNTH_KIND:
        raise NotFoundError(f"no synth job {job_id!r}", code="job_not_found", param="job_id")
    return job


# -- evaluation -------------------------------------------------------------------------


def evaluate(body: EvaluateRequest, settings: SynthSettings) -> EvaluateResponse:
    """Score the served model on BFCL categories: 422 ``llm_not_configured`` without an
    endpoint, 503 when it is unreachable.

    A ``base_url`` other than ``REFINERY_LLM_BASE_URL`` must be allowed by
    ``REFINERY_ALLOWED_UPSTREAMS`` (422 ``upstream_not_allowed`` before any request) and is
    sent no API key: ``REFINERY_LLM_API_KEY`` goes to the configured endpoint only.
    """
    if body.limit > settings.evaluate_max_limit:
        raise InvalidRequest(f"limit is at most {settings.evaluate_max_limit}", param="limit")
    if body.base_url is not None:
        upstreams = AllowList([settings.llm_base_url], settings.allowed_upstreams)
        upstreams.require(body.base_url, param="base_url")
    base_url = body.base_url or settings.llm_base_url
    model = body.model or settings.llm_model
    if not base_url or not model:
        raise LLMNotConfigured(
            "no endpoint to evaluate: pass base_url and model, or set REFINERY_LLM_BASE_URL and "
            "REFINERY_LLM_MODEL",
            param="base_url" if not base_url else "model",
        )
    from services.synth.bfcl.evaluate import evaluate as bfcl_evaluate

    key = settings.llm_api_key if same_upstream(base_url, settings.llm_base_url) else None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with httpx.Client(base_url=base_url, timeout=body.timeout_s, headers=headers) as client:
        try:
            results = bfcl_evaluate(client, model, categories=body.categories, limit=body.limit)
        except httpx.HTTPError as error:
            raise LLMUnavailableError(
                f"LLM endpoint {base_url} is unreachable: {error}", param="base_url"
            ) from None
    return EvaluateResponse(base_url=base_url, model=model, results=_jsonable(results))


def _jsonable(results: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): v for k, v in results.items()}
