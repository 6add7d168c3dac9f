"""The closed loop: draft → verify → repair, every verdict from the verifier service.

A branch runs one proposer: it drafts (or starts from a given cut; see :func:`first_cut`:
a model proposer writes its own first cut unless ``draft="heuristic"``), then each round asks
for candidate patches, has the verifier judge them all in one ``verify:batch`` call, and
keeps the best if it raises VES. It stops after ``patience`` rounds in a row with no
improving candidate (feasible or stuck; a sampling proposer asked again at the same cut
answers anew), after ``max_rounds``, or at the deadline. Every candidate becomes a scored record.

The deadline (the plan's ``time_budget_s``) also bounds every wait on the verifier: each
call may take only what is left of it. A round whose verdicts do not come back in time
ends the branch with its last accepted cut (``stopped="time_budget"``); a draft that cannot
be judged in time raises :class:`BudgetExceeded`.

``on_event``, when given, hears the draft's verdict and each round as it ends (the planner
streams them to clients that ask for NDJSON).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from clients.errors import APITimeoutError
from clients.verifier import VerifierClient
from protocol.verifier import BatchResponse, PatchResult, ReportOut, TimelineIn
from protocol.verifier.patch import patch_payload
from protocol.verifier.timeline import timeline_payload
from services.planner.judging import judge
from services.planner.proposers.base import Proposer
from services.verifier.limits import Limits
from services.verifier.score import Verifier
from services.verifier.task import Task
from services.verifier.timeline import Timeline

IMPROVEMENT = 1e-6
"""VES gains below this are ties, not progress (they would let a loop wander)."""

LoopEvent = dict[str, Any]
"""``{"event": "draft", "proposer", "draft", "ves", "feasible"}`` or
``{"event": "round", **RoundLog}``."""


@dataclass(slots=True)
class Candidate:
    round: int
    state_timeline: dict[str, Any]
    report_before: dict[str, Any]
    patch: dict[str, Any]
    report_after: dict[str, Any] | None
    rejection: dict[str, Any] | None
    ves_before: float
    ves_after: float | None
    accepted: bool = False


class BudgetExceeded(Exception):
    """The time budget ran out before the verifier judged the branch's first cut."""


@dataclass(slots=True)
class RoundLog:
    round: int
    proposer: str
    patch: dict[str, Any] | None
    ves_before: float
    ves_after: float
    accepted: bool


@dataclass(slots=True)
class Branch:
    proposer: str
    timeline: Timeline
    report: ReportOut
    draft_ves: float
    draft: str = "heuristic"
    """Where the first cut came from: ``model``, ``heuristic`` or ``given`` (see
    :func:`first_cut`)."""
    rounds: list[RoundLog] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    stopped: str | None = None
    """``"time_budget"`` when the deadline ended the branch early."""


@dataclass(frozen=True, slots=True)
class LoopOptions:
    max_rounds: int = 8
    candidates: int = 8
    seed: int = 0
    deadline: float | None = None
    """``time.monotonic()`` value after which no new round starts."""
    draft: str | None = None
    """``"heuristic"`` asks for the proposer's heuristic first cut; ``"model"`` or None: a
    proposer with a model (``model_draft``) drafts with it, one without keeps its heuristic."""
    caps: Limits = field(default_factory=Limits)
    """The verifier's batch caps: a round goes out in as many calls as they need."""
    patience: int = 1
    """Rounds in a row without an accepted patch before the branch stops."""


def first_cut(
    task: Task, proposer: Proposer, options: LoopOptions, start: Timeline | None
) -> tuple[Timeline, str]:
    """The branch's first cut and where it came from.

    ``given``: the request's timeline (repair mode). ``heuristic``: the proposer's ``draft``
    (asked for, or a proposer without a model). ``model``: the proposer's ``model_draft``;
    when none of the model's answers reads as a cut, the branch starts from an empty cut
    (the model's failure shows in the verdict and in its draft counts, nothing is hidden).
    """
    if start is not None:
        return start, "given"
    model_draft = getattr(proposer, "model_draft", None)
    if options.draft == "heuristic" or model_draft is None:
        return proposer.draft(task, seed=options.seed), "heuristic"
    cut = model_draft(task, seed=options.seed)
    return (cut if cut is not None else Timeline(fps=task.fps)), "model"


def run_branch(
    task_wire: dict[str, Any],
    task: Task,
    proposer: Proposer,
    verifier: VerifierClient,
    options: LoopOptions,
    *,
    start: Timeline | None = None,
    on_event: Callable[[LoopEvent], None] | None = None,
) -> Branch:
    """Run one proposer's branch to its end; see the module docstring."""
    local = Verifier(task)
    timeline, drafted = first_cut(task, proposer, options, start)
    state = timeline_payload(timeline)
    report = _judge_first_cut(verifier, task_wire, state, options)
    branch = Branch(proposer.name, timeline, report, draft_ves=report.ves, draft=drafted)
    if on_event is not None:
        on_event(_draft_event(branch))
    misses = 0
    for number in range(1, options.max_rounds + 1):
        if _past(options):
            branch.stopped = "time_budget"
            break
        proposals = proposer.propose(
            task,
            timeline,
            local.verify(timeline),
            n=options.candidates,
            seed=options.seed * 1_000 + number,
        )
        if not proposals:
            break
        patches = [patch_payload(p.ops, task.fps) for p in proposals]
        answer = _judge_round(verifier, task_wire, state, patches, options)
        if answer is None:
            branch.stopped = "time_budget"  # keep the last accepted cut
            break
        best = _record_candidates(branch, number, state, report, patches, answer)
        chosen = answer.results[best] if best is not None else None
        log = _round_log(number, proposer.name, patches, best, chosen, report)
        branch.rounds.append(log)
        if on_event is not None:
            on_event({"event": "round", **asdict(log)})
        if not log.accepted:
            misses += 1
            if misses >= options.patience:
                break
            continue
        misses = 0
        branch.candidates[len(branch.candidates) - len(patches) + best].accepted = True
        timeline = TimelineIn.model_validate(chosen.timeline.model_dump(by_alias=True)).to_timeline(
            task
        )
        state, report = timeline_payload(timeline), chosen.report
        branch.timeline, branch.report = timeline, report
    return branch


def _draft_event(branch: Branch) -> LoopEvent:
    return {
        "event": "draft",
        "proposer": branch.proposer,
        "draft": branch.draft,
        "ves": branch.report.ves,
        "feasible": branch.report.feasible,
    }


def _judge_first_cut(
    verifier: VerifierClient, task_wire: dict[str, Any], state: dict[str, Any], options: LoopOptions
) -> ReportOut:
    """The verifier's report on the first cut; past the budget, :class:`BudgetExceeded`."""
    try:
        return verifier.verify(task_wire, state, timeout=_left(options))
    except APITimeoutError as error:
        if not _past(options):
            raise
        raise BudgetExceeded(
            f"the verifier did not judge the first cut within the time budget: {error.message}"
        ) from error


def _judge_round(
    verifier: VerifierClient,
    task_wire: dict[str, Any],
    state: dict[str, Any],
    patches: list[dict[str, Any]],
    options: LoopOptions,
) -> BatchResponse | None:
    """The verifier's answer on a round's candidates; None when the budget ran out."""
    try:
        return judge(verifier, task_wire, state, patches, options.caps, timeout=_left(options))
    except APITimeoutError:
        if not _past(options):
            raise
        return None


def _record_candidates(
    branch: Branch,
    number: int,
    state: dict[str, Any],
    report: ReportOut,
    patches: list[dict[str, Any]],
    answer: BatchResponse,
) -> int | None:
    """Add every candidate of the round to ``branch``; the index of the best applied one."""
    before = report.model_dump(by_alias=True)
    ranked: list[tuple[float, int, int]] = []
    for index, (patch, result) in enumerate(zip(patches, answer.results, strict=True)):
        after = result.report
        branch.candidates.append(
            Candidate(
                round=number,
                state_timeline=state,
                report_before=before,
                patch=patch,
                report_after=after.model_dump(by_alias=True) if after else None,
                rejection=result.error,
                ves_before=report.ves,
                ves_after=after.ves if after else None,
            )
        )
        if after is not None:  # higher VES first; ties: fewer ops, then proposal order
            ranked.append((after.ves, -len(patch["ops"]), -index))
    return -max(ranked)[2] if ranked else None


def _round_log(
    number: int,
    proposer: str,
    patches: list[dict[str, Any]],
    best: int | None,
    chosen: PatchResult | None,
    report: ReportOut,
) -> RoundLog:
    """The round as logged: accepted when the best candidate beats the cut by enough."""
    improved = chosen is not None and chosen.report.ves > report.ves + IMPROVEMENT
    return RoundLog(
        round=number,
        proposer=proposer,
        patch=patches[best] if best is not None else None,
        ves_before=report.ves,
        ves_after=chosen.report.ves if chosen else report.ves,
        accepted=improved,
    )


def _left(options: LoopOptions) -> float | None:
    """Seconds left before the deadline (None without one): the most a verifier call may
    take."""
    if options.deadline is None:
        return None
    return max(options.deadline - time.monotonic(), 0.001)


def _past(options: LoopOptions) -> bool:
    return options.deadline is not None and time.monotonic() >= options.deadline
