"""Typed clients for the planner service (``POST /v1/plan``, plans, renders, records).

::

    from clients import PlannerClient

    with PlannerClient() as planner:                 # REFINERY_PLANNER_URL or :8102
        plan = planner.plan(task, proposer="search")
        print(plan.ves, plan.feasible, len(plan.rounds))
        # the same, hearing each branch's draft and rounds as they end
        plan = planner.plan(task, on_event=lambda e: print(e["event"], e.get("ves_after")))
        # a one-sentence brief over a pool → Task.1 with its ledger and provenance
        compiled = planner.compile_task("30s, open on the ocean", clips, music)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import aclosing, closing
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import orjson

from clients.base import AsyncAPIClient, Call, SyncAPIClient, healthy, parse_model, wire
from clients.errors import APIResponseValidationError, RefineryClientError, error_from_response
from clients.verifier import TaskLike, TimelineLike
from protocol.jobs import JobOut
from protocol.planner import CompileResponse, PlanResponse, ProposerOut
from protocol.verifier import TaskIn

__all__ = [
    "DEFAULT_PLANNER_URL",
    "AsyncPlannerClient",
    "PlanEventHandler",
    "PlannerClient",
    "RecordsPage",
]

DEFAULT_PLANNER_URL = "http://127.0.0.1:8102"
PLAN_TIMEOUT = httpx.Timeout(600.0, connect=5.0)


@dataclass(frozen=True, slots=True)
class RecordsPage:
    """Scored records after a cursor, and the cursor to pass next."""

    records: list[dict[str, Any]]
    next_cursor: int


def _records(response: httpx.Response) -> RecordsPage:
    lines = [orjson.loads(line) for line in response.content.splitlines() if line.strip()]
    return RecordsPage(lines, int(response.headers.get("x-next-cursor", "0")))


PlanEventHandler = Callable[[dict[str, Any]], None]
"""Hears ``{"event": "draft", "branch", "proposer", "ves", "feasible"}`` and
``{"event": "round", "branch", "round", "proposer", "patch", "ves_before", "ves_after",
"accepted"}`` while a plan runs."""


def _plan_event(event: Any, on_event: PlanEventHandler, base_url: str) -> PlanResponse | None:
    """The plan when ``event`` is the last line; raises the error it carries; else tells
    ``on_event`` and returns None."""
    kind = event.get("event") if isinstance(event, dict) else None
    if kind == "plan":
        return PlanResponse.model_validate(event["plan"])
    if kind == "error":
        request = httpx.Request("POST", base_url + "/v1/plan")
        body = {"error": event.get("error")}
        raise error_from_response(httpx.Response(int(event["status"]), json=body, request=request))
    if kind is None:
        raise _invalid(base_url, f"unexpected plan event: {event!r}")
    on_event(event)
    return None


def _invalid(base_url: str, message: str) -> APIResponseValidationError:
    response = httpx.Response(200, request=httpx.Request("POST", base_url + "/v1/plan"))
    return APIResponseValidationError(response, message)


def _proposers(response: httpx.Response) -> list[ProposerOut]:
    return [ProposerOut.model_validate(item) for item in response.json()]


def _json_object(response: httpx.Response) -> dict[str, Any]:
    data = response.json()
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    return data


def _bytes(response: httpx.Response) -> bytes:
    return response.content


class _Calls:
    @staticmethod
    def compile_task(body: dict[str, Any]) -> Call[CompileResponse]:
        return Call("POST", "/v1/tasks:compile", parse_model(CompileResponse), body)

    @staticmethod
    def plan(
        task: TaskLike, timeline: TimelineLike | None, options: Mapping[str, Any]
    ) -> Call[PlanResponse]:
        task_wire = wire(task)
        if isinstance(task, TaskIn) and "ledger" not in task.model_fields_set:
            task_wire.pop("ledger", None)  # still ledger-less: the planner compiles the brief
        body: dict[str, Any] = {"task": task_wire, "options": dict(options)}
        if timeline is not None:
            body["timeline"] = wire(timeline)
        return Call("POST", "/v1/plan", parse_model(PlanResponse), body, retry=False)

    @staticmethod
    def get_plan(plan_id: str) -> Call[PlanResponse]:
        return Call("GET", f"/v1/plans/{quote(plan_id, safe='')}", parse_model(PlanResponse))

    @staticmethod
    def get_task(plan_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/plans/{quote(plan_id, safe='')}/task", _json_object)

    @staticmethod
    def otio(plan_id: str, media_url_base: str | None = None) -> Call[bytes]:
        query = f"?{urlencode({'media_url_base': media_url_base})}" if media_url_base else ""
        return Call("GET", f"/v1/plans/{quote(plan_id, safe='')}/otio{query}", _bytes)

    @staticmethod
    def render(plan_id: str) -> Call[JobOut]:
        return Call(
            "POST", f"/v1/plans/{quote(plan_id, safe='')}/render", parse_model(JobOut), retry=False
        )

    @staticmethod
    def job(job_id: str) -> Call[JobOut]:
        return Call("GET", f"/v1/jobs/{quote(job_id, safe='')}", parse_model(JobOut))

    @staticmethod
    def retry(job_id: str) -> Call[JobOut]:
        return Call("POST", f"/v1/jobs/{quote(job_id, safe='')}:retry", parse_model(JobOut))

    @staticmethod
    def job_output(job_id: str) -> Call[bytes]:
        return Call("GET", f"/v1/jobs/{quote(job_id, safe='')}/output", _bytes)

    @staticmethod
    def analyze_media(body: dict[str, Any]) -> Call[JobOut]:
        return Call("POST", "/v1/media:analyze", parse_model(JobOut), body)

    @staticmethod
    def job_json(job_id: str) -> Call[dict[str, Any]]:
        return Call("GET", f"/v1/jobs/{quote(job_id, safe='')}/output", _json_object)

    @staticmethod
    def proposers() -> Call[list[ProposerOut]]:
        return Call("GET", "/v1/proposers", _proposers)

    @staticmethod
    def register_proposer(checkpoint_id: str, path: str) -> Call[ProposerOut]:
        body = {"id": checkpoint_id, "path": path}
        return Call("POST", "/v1/proposers", parse_model(ProposerOut), body)

    @staticmethod
    def records(after: int, limit: int) -> Call[RecordsPage]:
        return Call("GET", f"/v1/records?after={after}&limit={limit}", _records)

    @staticmethod
    def health() -> Call[bool]:
        return Call("GET", "/healthz", healthy, retry=False)


def _options(proposer: str, options: Mapping[str, Any]) -> dict[str, Any]:
    return {"proposer": proposer, **options}


def _analyze_body(
    paths: list[str], music: list[str], *, split_shots: bool, captions: str
) -> dict[str, Any]:
    return {"paths": paths, "music": music, "split_shots": split_shots, "captions": captions}


def _compile_body(
    text: str,
    clips: Sequence[Mapping[str, Any]],
    music: Sequence[Mapping[str, Any]],
    *,
    aspect: str | None,
    style: str | None,
    fps: int,
    compiler: str,
    task_id: str | None,
) -> dict[str, Any]:
    brief: dict[str, Any] = {"text": text}
    if aspect is not None:
        brief["aspect"] = aspect
    if style is not None:
        brief["style"] = style
    body: dict[str, Any] = {
        "brief": brief,
        "clips": [wire(c) for c in clips],
        "music": [wire(m) for m in music],
        "fps": fps,
        "compiler": compiler,
    }
    if task_id is not None:
        body["id"] = task_id
    return body


class PlannerClient(SyncAPIClient):
    """Blocking planner client; see :class:`clients.base.SyncAPIClient` for options."""

    base_url_env = "REFINERY_PLANNER_URL"
    default_base_url = DEFAULT_PLANNER_URL

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("timeout", PLAN_TIMEOUT)
        super().__init__(base_url, **kwargs)

    def plan(
        self,
        task: TaskLike,
        *,
        timeline: TimelineLike | None = None,
        proposer: str = "search",
        on_event: PlanEventHandler | None = None,
        **options: Any,
    ) -> PlanResponse:
        """Plan (or repair ``timeline``); ``options``: teachers, max_rounds, candidates, patience,
        seed, time_budget_s. ``on_event`` hears each draft and round as it ends (NDJSON)."""
        call = _Calls.plan(task, timeline, _options(proposer, options))
        if on_event is None:
            return self._call(call)
        with closing(self._lines(call)) as events:
            for event in events:
                if (plan := _plan_event(event, on_event, self.base_url)) is not None:
                    return plan
        raise _invalid(self.base_url, "the plan stream ended without a plan")

    def compile_task(
        self,
        text: str,
        clips: Sequence[Mapping[str, Any]],
        music: Sequence[Mapping[str, Any]] = (),
        *,
        aspect: str | None = None,
        style: str | None = None,
        fps: int = 30,
        compiler: str = "rules",
        task_id: str | None = None,
    ) -> CompileResponse:
        """Compile a one-sentence brief over a pool into a Task.1 with its ledger
        (``POST /v1/tasks:compile``); ``compiler``: ``rules`` or ``llm``."""
        body = _compile_body(
            text,
            clips,
            music,
            aspect=aspect,
            style=style,
            fps=fps,
            compiler=compiler,
            task_id=task_id,
        )
        return self._call(_Calls.compile_task(body))

    def get_plan(self, plan_id: str) -> PlanResponse:
        return self._call(_Calls.get_plan(plan_id))

    def get_task(self, plan_id: str) -> dict[str, Any]:
        """The Task.1 JSON the plan was made for (its records carry only ``task_id``)."""
        return self._call(_Calls.get_task(plan_id))

    def otio(self, plan_id: str, *, media_url_base: str | None = None) -> bytes:
        """The plan as an OpenTimelineIO ``.otio`` document; its media URLs lie under
        ``media_url_base`` when given (the media root as editors see it), else they are the
        planner's ``file://`` URLs."""
        return self._call(_Calls.otio(plan_id, media_url_base))

    def render(self, plan_id: str) -> JobOut:
        """Start rendering the plan to MP4; poll :meth:`job`, then :meth:`job_output`."""
        return self._call(_Calls.render(plan_id))

    def job(self, job_id: str) -> JobOut:
        return self._call(_Calls.job(job_id))

    def job_output(self, job_id: str) -> bytes:
        return self._call(_Calls.job_output(job_id))

    def analyze_media(
        self,
        paths: Sequence[str],
        *,
        music: Sequence[str] = (),
        split_shots: bool = True,
        captions: str = "auto",
    ) -> JobOut:
        """Queue ``POST /v1/media:analyze``: paths and music files under the media root."""
        body = _analyze_body(list(paths), list(music), split_shots=split_shots, captions=captions)
        return self._call(_Calls.analyze_media(body))

    def job_json(self, job_id: str) -> dict[str, Any]:
        """A finished job's JSON output (a media analysis: ``{clips, music, errors}``)."""
        return self._call(_Calls.job_json(job_id))

    def retry(self, job_id: str) -> JobOut:
        """Queue a failed render again (409 if it is not failed)."""
        return self._call(_Calls.retry(job_id))

    def proposers(self) -> list[ProposerOut]:
        return self._call(_Calls.proposers())

    def register_proposer(self, checkpoint_id: str, path: str) -> ProposerOut:
        return self._call(_Calls.register_proposer(checkpoint_id, path))

    def records(self, *, after: int = 0, limit: int = 1000) -> RecordsPage:
        return self._call(_Calls.records(after, limit))

    def health(self) -> bool:
        try:
            return self._call(_Calls.health())
        except RefineryClientError:
            return False


class AsyncPlannerClient(AsyncAPIClient):
    """Async planner client; see :class:`clients.base.AsyncAPIClient` for options."""

    base_url_env = "REFINERY_PLANNER_URL"
    default_base_url = DEFAULT_PLANNER_URL

    def __init__(self, base_url: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("timeout", PLAN_TIMEOUT)
        super().__init__(base_url, **kwargs)

    async def plan(
        self,
        task: TaskLike,
        *,
        timeline: TimelineLike | None = None,
        proposer: str = "search",
        on_event: PlanEventHandler | None = None,
        **options: Any,
    ) -> PlanResponse:
        """See :meth:`PlannerClient.plan`."""
        call = _Calls.plan(task, timeline, _options(proposer, options))
        if on_event is None:
            return await self._call(call)
        async with aclosing(self._lines(call)) as events:
            async for event in events:
                if (plan := _plan_event(event, on_event, self.base_url)) is not None:
                    return plan
        raise _invalid(self.base_url, "the plan stream ended without a plan")

    async def compile_task(
        self,
        text: str,
        clips: Sequence[Mapping[str, Any]],
        music: Sequence[Mapping[str, Any]] = (),
        *,
        aspect: str | None = None,
        style: str | None = None,
        fps: int = 30,
        compiler: str = "rules",
        task_id: str | None = None,
    ) -> CompileResponse:
        """See :meth:`PlannerClient.compile_task`."""
        body = _compile_body(
            text,
            clips,
            music,
            aspect=aspect,
            style=style,
            fps=fps,
            compiler=compiler,
            task_id=task_id,
        )
        return await self._call(_Calls.compile_task(body))

    async def get_plan(self, plan_id: str) -> PlanResponse:
        return await self._call(_Calls.get_plan(plan_id))

    async def get_task(self, plan_id: str) -> dict[str, Any]:
        return await self._call(_Calls.get_task(plan_id))

    async def otio(self, plan_id: str, *, media_url_base: str | None = None) -> bytes:
        return await self._call(_Calls.otio(plan_id, media_url_base))

    async def render(self, plan_id: str) -> JobOut:
        return await self._call(_Calls.render(plan_id))

    async def job(self, job_id: str) -> JobOut:
        return await self._call(_Calls.job(job_id))

    async def job_output(self, job_id: str) -> bytes:
        return await self._call(_Calls.job_output(job_id))

    async def analyze_media(
        self,
        paths: Sequence[str],
        *,
        music: Sequence[str] = (),
        split_shots: bool = True,
        captions: str = "auto",
    ) -> JobOut:
        body = _analyze_body(list(paths), list(music), split_shots=split_shots, captions=captions)
        return await self._call(_Calls.analyze_media(body))

    async def job_json(self, job_id: str) -> dict[str, Any]:
        return await self._call(_Calls.job_json(job_id))

    async def retry(self, job_id: str) -> JobOut:
        """Queue a failed render again (409 if it is not failed)."""
        return await self._call(_Calls.retry(job_id))

    async def proposers(self) -> list[ProposerOut]:
        return await self._call(_Calls.proposers())

    async def register_proposer(self, checkpoint_id: str, path: str) -> ProposerOut:
        return await self._call(_Calls.register_proposer(checkpoint_id, path))

    async def records(self, *, after: int = 0, limit: int = 1000) -> RecordsPage:
        return await self._call(_Calls.records(after, limit))

    async def health(self) -> bool:
        try:
            return await self._call(_Calls.health())
        except RefineryClientError:
            return False
