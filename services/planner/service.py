"""Plan orchestration: :func:`prepare` checks a request and resolves its proposers (bad input
is refused there); :func:`execute` runs every branch, keeps the verifier-best, persists."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from sqlalchemy.engine import Engine

from clients.errors import RefineryClientError
from clients.verifier import VerifierClient
from protocol.planner import (
    BranchOut,
    CompiledOut,
    InfeasibleOut,
    PlanRequest,
    PlanResponse,
    RoundOut,
)
from protocol.verifier import ReportOut, TimelineOut
from protocol.verifier.timeline import timeline_payload
from services.common.errors import RefineryError, UnavailableError
from services.common.metrics import PLAN_ROUNDS, PLAN_VES
from services.planner.compiling import compile_task
from services.planner.config import PlannerSettings
from services.planner.infeasibility import Relaxation, conflict_payloads, relaxation
from services.planner.loop import Branch, BudgetExceeded, LoopEvent, LoopOptions, run_branch
from services.planner.proposers.base import Proposer, ProposerError
from services.planner.records import PlanRow, ScoredRecord, new_plan_id, save_plan
from services.planner.registry import ProposerRegistry
from services.verifier.bound import upper_bound
from services.verifier.feasibility import precheck
from services.verifier.task import Task
from services.verifier.timeline import Timeline


@dataclass(frozen=True, slots=True)
class PreparedPlan:
    """A plan request checked and resolved: everything that can be refused has been."""

    task: Task
    task_wire: dict[str, Any]
    start: Timeline | None
    proposers: list[Proposer]
    options: LoopOptions
    started: float
    compiled: CompiledOut | None = None
    """The ledger compiled from the brief, when the task came without one."""
    relaxation: Relaxation | None = None
    """Set when the ledger cannot be met: ``task`` and ``task_wire`` are then the relaxed
    task, and :attr:`written` the task as the request wrote it."""
    written: tuple[Task, dict[str, Any]] | None = None
    explained_by: str = "precheck"


def _relax(
    task: Task, wire: dict[str, Any], proposers: list[Proposer]
) -> tuple[Relaxation | None, str]:
    """The relaxed task when the pre-checks (or, for the exact proposer, its deletion
    filter) find entries that cannot all hold."""
    conflicts, source = precheck(task), "precheck"
    if not conflicts and any(p.name == "exact" for p in proposers):
        from services.planner.exact.explain import minimal_conflict

        found = minimal_conflict(task)
        conflicts, source = ([found] if found else []), "exact"
    return relaxation(task, wire, conflicts), source


def prepare(request: PlanRequest, registry: ProposerRegistry) -> PreparedPlan:
    """Check the request against the limits and resolve its proposers (4xx / 503 here)."""
    started = time.monotonic()
    options = request.options
    _within_limits(request, registry.settings)
    task_in, compiled = request.task, None
    if "ledger" not in task_in.model_fields_set:
        task_in, compiled = compile_task(task_in)
    task = task_in.to_task()
    task_wire = task_in.model_dump(mode="json", by_alias=True)
    start = request.timeline.to_timeline(task) if request.timeline is not None else None
    wanted = [("options.proposer", options.proposer)] + [
        (f"options.teachers[{i}]", name) for i, name in enumerate(options.teachers)
    ]
    first_mention: dict[str, str] = {}
    for param, name in wanted:
        first_mention.setdefault(name, param)
    proposers = [registry.resolve(name, param=param) for name, param in first_mention.items()]
    for proposer in proposers:
        check = getattr(proposer, "check", None)
        if check is not None:
            check()
    _can_draft(options.draft, proposers)
    deadline = started + options.time_budget_s if options.time_budget_s else None
    loop_options = LoopOptions(
        options.max_rounds,
        options.candidates,
        options.seed,
        deadline,
        draft=options.draft,
        caps=registry.settings.limits(),
        patience=options.patience,
    )
    relaxed, source = _relax(task, task_wire, proposers) if options.relax else (None, "")
    if relaxed is None:
        return PreparedPlan(task, task_wire, start, proposers, loop_options, started, compiled)
    return PreparedPlan(
        relaxed.task, relaxed.wire, start, proposers, loop_options, started, compiled,
        relaxation=relaxed, written=(task, task_wire), explained_by=source,
    )  # fmt: skip


def execute(
    prepared: PreparedPlan,
    *,
    verifier: VerifierClient,
    engine: Engine,
    on_event: Callable[[LoopEvent], None] | None = None,
) -> PlanResponse:
    """Run every branch, keep the verifier-best, store the plan and all its records at once.

    ``on_event`` hears each branch's draft and rounds, tagged with the branch's index.
    """
    branches, outcomes = _run_branches(prepared, verifier, on_event)
    if not branches:
        raise UnavailableError(
            "every proposer failed: " + "; ".join(o.error or "" for o in outcomes),
            code="planning_failed",
        )
    best = max(branches, key=lambda b: b.report.ves)  # first branch wins ties
    PLAN_ROUNDS.observe(len(best.rounds))
    PLAN_VES.observe(best.report.ves)
    plan_id = new_plan_id()
    judged = None
    if prepared.written is not None:  # the cut judged under the ledger as written
        judged = verifier.verify(prepared.written[1], timeline_payload(best.timeline))
    response = _response(prepared, plan_id, best, outcomes, judged)
    row = PlanRow(
        id=plan_id,
        task_id=prepared.task.id,
        ves=response.ves,
        feasible=response.feasible,
        task=prepared.written[1] if prepared.written else prepared.task_wire,
        result=response.model_dump(mode="json", by_alias=True),
    )
    save_plan(engine, row, _records(plan_id, prepared.task.id, branches))
    return response


def _run_branches(
    prepared: PreparedPlan,
    verifier: VerifierClient,
    on_event: Callable[[LoopEvent], None] | None,
) -> tuple[list[Branch], list[BranchOut]]:
    """Every proposer's branch in turn: those that ran, and every branch's outcome (a failed
    one says why)."""
    branches: list[Branch] = []
    outcomes: list[BranchOut] = []
    for index, proposer in enumerate(prepared.proposers):
        tagged = None if on_event is None else partial(_tag, on_event, index)
        try:
            branch = run_branch(
                prepared.task_wire, prepared.task, proposer, verifier, prepared.options,
                start=prepared.start, on_event=tagged,
            )  # fmt: skip
        except (ProposerError, RefineryClientError, BudgetExceeded) as error:
            outcomes.append(
                BranchOut(
                    proposer=proposer.name,
                    final_ves=0.0,
                    feasible=False,
                    rounds=0,
                    error=str(error),
                    stopped="time_budget" if isinstance(error, BudgetExceeded) else None,
                )
            )
            continue
        branches.append(branch)
        outcomes.append(
            BranchOut(
                proposer=branch.proposer,
                final_ves=branch.report.ves,
                feasible=branch.report.feasible,
                rounds=len(branch.rounds),
                stats=_stats(proposer),
                stopped=branch.stopped,
                draft=branch.draft,
            )
        )
    return branches, outcomes


def _infeasible(prepared: PreparedPlan, best: Branch) -> InfeasibleOut | None:
    relaxed = prepared.relaxation
    if relaxed is None:
        return None
    provenance = [p.model_dump() for p in prepared.compiled.provenance] if prepared.compiled else []
    return InfeasibleOut(
        conflicts=conflict_payloads(relaxed.conflicts, provenance),
        relaxed=list(relaxed.relaxed),
        relaxed_ves=best.report.ves,
        relaxed_feasible=best.report.feasible,
        source=prepared.explained_by,
    )


def _response(
    prepared: PreparedPlan,
    plan_id: str,
    best: Branch,
    outcomes: list[BranchOut],
    judged: ReportOut | None = None,
) -> PlanResponse:
    """The plan as answered: the best branch's cut and report, its bound, every branch. A
    relaxed plan answers the cut's report under the ledger as written (``judged``)."""
    task = prepared.written[0] if prepared.written else prepared.task
    report = judged or best.report
    bound = math.ceil(upper_bound(task).ves * 1e4) / 1e4  # rounded up: still a bound
    return PlanResponse(
        plan_id=plan_id,
        task_id=task.id,
        timeline=TimelineOut.model_validate(timeline_payload(best.timeline)),
        report=report.model_copy(update={"ves_upper_bound": bound}),
        ves=report.ves,
        ves_upper_bound=bound,
        gap_to_bound=round(max(0.0, bound - report.ves), 4),
        feasible=report.feasible,
        infeasible_constraints=[c.id for c in report.constraints if c.hard and not c.satisfied],
        rounds=[RoundOut(**asdict(r)) for r in best.rounds],
        branches=outcomes,
        draft_ves=best.draft_ves,
        draft=best.draft,
        elapsed_s=round(time.monotonic() - prepared.started, 4),
        compiled=prepared.compiled,
        infeasible=_infeasible(prepared, best),
    )


def _records(plan_id: str, task_id: str, branches: list[Branch]) -> list[ScoredRecord]:
    """Every candidate of every branch as a scored record."""
    return [
        ScoredRecord(
            plan_id=plan_id,
            task_id=task_id,
            branch_id=branch_id,
            round=c.round,
            proposer=branch.proposer,
            state_timeline=c.state_timeline,
            report_before=c.report_before,
            patch=c.patch,
            report_after=c.report_after,
            rejection=c.rejection,
            ves_before=c.ves_before,
            ves_after=c.ves_after,
            accepted=c.accepted,
        )
        for branch_id, branch in enumerate(branches)
        for c in branch.candidates
    ]


def _tag(on_event: Callable[[LoopEvent], None], branch: int, event: LoopEvent) -> None:
    on_event({**event, "branch": branch})


def _stats(proposer: Any) -> dict[str, Any]:
    """The proposer's counts; a model proposer adds its parse counts (``answers``,
    ``parsed``, ``drop_reasons``, ``draft_answers``, ``draft_parsed``, ...)."""
    stats = getattr(proposer, "stats", None)
    if stats is None:
        return {}
    out = {
        "requests": stats.requests,
        "candidates": stats.candidates,
        "dropped": stats.dropped,
        "errors": list(stats.errors)[-5:],
    }
    report = getattr(proposer, "report", None)
    if callable(report):
        out.update(report())
    return out


def _can_draft(draft: str | None, proposers: list[Proposer]) -> None:
    """``draft: "model"`` needs a proposer with a model on every branch: a 422 otherwise."""
    if draft != "model":
        return
    for proposer in proposers:
        if getattr(proposer, "model_draft", None) is None:
            raise RefineryError(
                f"proposer {proposer.name!r} has no model to draft with: use "
                'options.draft "heuristic" (or leave it out) with it',
                code="invalid_option",
                param="options.draft",
                status_code=422,
            )


def _within_limits(request: PlanRequest, settings: PlannerSettings) -> None:
    """Options past the configured caps are a 422 naming the option."""
    options = request.options
    for name, value, cap in (
        ("max_rounds", options.max_rounds, settings.max_rounds_limit),
        ("candidates", options.candidates, settings.max_candidates_limit),
        ("teachers", len(options.teachers), settings.max_teachers),
    ):
        if value > cap:
            raise RefineryError(
                f"options.{name} is {value}; this planner allows at most {cap}",
                code="limit_exceeded",
                param=f"options.{name}",
                status_code=422,
            )
