"""Brief → Task.1: :func:`compile_request` serves ``POST /v1/tasks:compile``;
:func:`compile_task` fills in the ledger of a task that came to ``POST /v1/plan`` without one.

The compilers themselves are pure (:mod:`services.planner.ingest.brief`); this module picks
one, builds the Task.1 and validates it, adds the ledger's conflicts with the pool and
music (:mod:`services.planner.infeasibility`), and maps the ``llm`` endpoint's failures onto the
error envelope (503 when it is not configured or does not answer).
"""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import ValidationError

from protocol.planner import CompiledOut, CompileRequest, CompileResponse
from protocol.verifier import TaskIn
from services.common.errors import RefineryError, UnavailableError
from services.common.openai_chat import ChatEndpoint, EndpointRefused, EndpointUnavailable
from services.planner.config import PlannerSettings
from services.planner.infeasibility import conflict_payloads
from services.planner.ingest.brief.compiler import CompiledBrief, compile_rules
from services.verifier.feasibility import precheck

__all__ = ["compile_request", "compile_task"]


def compile_request(request: CompileRequest, settings: PlannerSettings) -> CompileResponse:
    """Compile the request's brief with its compiler and return the Task.1 it makes."""
    brief = request.brief
    clips = [c.model_dump(mode="json") for c in request.clips]
    music = [m.model_dump(mode="json") for m in request.music]
    if request.compiler == "llm":
        compiled = _compile_llm(brief.text, clips, music, settings)
    else:
        compiled = compile_rules(brief.text, clips, music, aspect=brief.aspect)
    wire_brief: dict[str, Any] = {"text": brief.text}
    if brief.aspect is not None:
        wire_brief["aspect"] = brief.aspect
    if brief.style is not None:
        wire_brief["style"] = brief.style
    task = {
        "schema": "Task.1",
        "id": request.id or _task_id(brief.text, clips),
        "fps": request.fps,
        "brief": wire_brief,
        "clips": clips,
        "music": music,
        "ledger": compiled.ledger,
    }
    checked = _checked(task)
    return CompileResponse(
        task=checked.model_dump(mode="json", by_alias=True),
        provenance=compiled.provenance,
        unparsed=compiled.unparsed,
        conflicts=compiled.conflicts + _ledger_conflicts(checked, compiled.provenance),
        rejected=compiled.rejected,
        compiler=request.compiler,
    )


def _ledger_conflicts(task: TaskIn, provenance: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ledger entries no cut can meet together with the pool and music, with their words."""
    return conflict_payloads(precheck(task.to_task()), provenance)


def _checked(task: dict[str, Any]) -> TaskIn:
    """The compiled task as Task.1 validates it; a pool it refuses (two clips with one id,
    say) is a 422 naming the request's field."""
    try:
        return TaskIn.model_validate(task)
    except ValidationError as invalid:
        first = invalid.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise RefineryError(
            f"{field}: {first['msg']}", code="invalid_task", param=field, status_code=422
        ) from None


def compile_task(task: TaskIn) -> tuple[TaskIn, CompiledOut]:
    """``task`` with the ledger the ``rules`` compiler makes of its brief.

    The aspect counts as the user's only when the task gave one (the field has a default).
    """
    clips = [c.model_dump(mode="json") for c in task.clips]
    music = [m.model_dump(mode="json") for m in task.music]
    aspect = task.brief.aspect if "aspect" in task.brief.model_fields_set else None
    compiled = compile_rules(task.brief.text, clips, music, aspect=aspect)
    wire = task.model_dump(mode="json", by_alias=True)
    wire["ledger"] = compiled.ledger
    checked = TaskIn.model_validate(wire)
    out = CompiledOut(
        ledger=checked.model_dump(mode="json", by_alias=True)["ledger"],
        provenance=compiled.provenance,
        unparsed=compiled.unparsed,
        conflicts=compiled.conflicts + _ledger_conflicts(checked, compiled.provenance),
    )
    return checked, out


def _compile_llm(
    text: str, clips: list[dict[str, Any]], music: list[dict[str, Any]], settings: PlannerSettings
) -> CompiledBrief:
    from services.planner.ingest.brief.llm import LLMBriefCompiler

    if not settings.llm_base_url or not settings.llm_model:
        missing = "REFINERY_LLM_BASE_URL" if not settings.llm_base_url else "REFINERY_LLM_MODEL"
        raise RefineryError(  # 422, as synth answers: no retry will make it work
            f"compiler 'llm' needs REFINERY_LLM_BASE_URL and REFINERY_LLM_MODEL ({missing} is "
            "not set); or use compiler 'rules'",
            code="llm_not_configured",
            param="compiler",
            status_code=422,
        )
    endpoint = ChatEndpoint(
        settings.llm_base_url, settings.llm_model, api_key=settings.llm_api_key, timeout_s=60
    )
    with LLMBriefCompiler(endpoint) as compiler:
        try:
            return compiler.compile(text, clips, music)
        except EndpointUnavailable as error:
            raise UnavailableError(
                error.message, code="llm_unavailable", param="compiler"
            ) from None
        except EndpointRefused as error:
            raise RefineryError(
                error.message, code="llm_refused", param="compiler", status_code=502
            ) from None


def _task_id(text: str, clips: list[dict[str, Any]]) -> str:
    digest = hashlib.sha1(text.encode())
    for clip in clips:
        digest.update(b"\0" + clip["id"].encode())
    return "brief-" + digest.hexdigest()[:12]
