"""Typed views of the builders' inputs: planner scored records and the tasks they came from.

Records arrive as the planner's wire rows (``ScoredRecord.wire()``); a malformed row is a
:class:`DatasetError` naming the field. Records do not carry their task: a :class:`TaskBook`
holds Task.1 documents by id, compiles each once, and replays a record's state through the
verifier so prompts are rendered from the verifier's own report of that state — exactly
what the planner's model proposers send at inference.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from protocol.verifier import PatchIn, TaskIn, TimelineIn
from services.common.errors import RefineryError
from services.planner.proposers.prompting import patch_text, render_messages
from services.trainer.datasets.stats import Tally
from services.verifier.score import Report, Verifier
from services.verifier.task import Task
from services.verifier.timeline import Timeline

__all__ = [
    "REPORT_ROUNDING",
    "DatasetError",
    "RepairRecord",
    "ReplayedState",
    "TaskBook",
    "broken_hard",
    "group_by_branch",
    "parse_records",
    "row_for",
    "state_digest",
    "state_key",
    "with_task",
]

REPORT_ROUNDING = 1e-3
"""Recorded and replayed VES differing by more than this are counted as ``ves_drift``."""


class DatasetError(RefineryError):
    """Builder input that cannot be read (a malformed record, task or option)."""

    status_code = 422
    code = "invalid_dataset_input"


def state_key(state_timeline: Mapping[str, Any]) -> str:
    """The canonical JSON of a Timeline.1 state: equal states give equal keys."""
    return json.dumps(state_timeline, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_digest(key: str) -> str:
    """A short stable name for a state key (rows carry this, not the whole timeline)."""
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def broken_hard(
    report_before: Mapping[str, Any], report_after: Mapping[str, Any] | None
) -> list[str]:
    """Ids of hard constraints satisfied before the patch and unsatisfied after it."""
    if report_after is None:
        return []
    after = {c["id"]: c["satisfied"] for c in report_after.get("constraints", ())}
    return [
        c["id"]
        for c in report_before.get("constraints", ())
        if c.get("hard") and c.get("satisfied") and after.get(c["id"]) is False
    ]


@dataclass(frozen=True, slots=True)
class RepairRecord:
    """One planner candidate: a patch proposed at a state and the verifier's verdict on it."""

    record_id: int
    plan_id: str
    task_id: str
    branch_id: int
    round: int
    proposer: str
    state_timeline: dict[str, Any]
    report_before: dict[str, Any]
    patch: dict[str, Any]
    report_after: dict[str, Any] | None
    rejection: dict[str, Any] | None
    ves_before: float
    ves_after: float | None
    accepted: bool

    @property
    def applied(self) -> bool:
        """The verifier applied the patch (``report_after`` present, ``ves_after`` known)."""
        return self.report_after is not None and self.ves_after is not None

    @property
    def n_ops(self) -> int:
        return len(self.patch.get("ops", ()))

    @property
    def state(self) -> str:
        return state_key(self.state_timeline)

    @property
    def broken_hard(self) -> list[str]:
        return broken_hard(self.report_before, self.report_after)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any], *, index: int = 0) -> RepairRecord:
        """A wire row → record; a missing or mistyped field is a :class:`DatasetError`."""
        if not isinstance(data, Mapping):
            raise DatasetError("a record must be a JSON object", param=f"records[{index}]")
        values = {name: _field(data, name, kind, index) for name, kind in _FIELDS.items()}
        return cls(**values)


_NUMBER = (int, float)
_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "record_id": ((int,), False),
    "plan_id": ((str,), False),
    "task_id": ((str,), False),
    "branch_id": ((int,), False),
    "round": ((int,), False),
    "proposer": ((str,), False),
    "state_timeline": ((dict,), False),
    "report_before": ((dict,), False),
    "patch": ((dict,), False),
    "report_after": ((dict,), True),
    "rejection": ((dict,), True),
    "ves_before": (_NUMBER, False),
    "ves_after": (_NUMBER, True),
    "accepted": ((bool,), False),
}
"""Field → (accepted types, may be null)."""


def _field(
    data: Mapping[str, Any], name: str, kind: tuple[tuple[type, ...], bool], index: int
) -> Any:
    types, nullable = kind
    param = f"records[{index}].{name}"
    if name not in data:
        if nullable or name == "record_id":
            return None if nullable else index
        raise DatasetError(f"record {index} has no {name!r}", param=param)
    value = data[name]
    if value is None and nullable:
        return None
    bad_bool = isinstance(value, bool) and bool not in types
    if not isinstance(value, types) or bad_bool:
        raise DatasetError(f"record {index}: {name!r} has the wrong type", param=param)
    return float(value) if types is _NUMBER else value


def parse_records(
    raw: Iterable[Mapping[str, Any]], *, proposers: Collection[str] | None = None
) -> list[RepairRecord]:
    """Wire rows → records, in order; ``proposers`` keeps only those proposers' candidates."""
    records = [RepairRecord.from_wire(row, index=i) for i, row in enumerate(raw)]
    if proposers is not None:
        wanted = set(proposers)
        records = [r for r in records if r.proposer in wanted]
    return records


@dataclass(frozen=True, slots=True)
class ReplayedState:
    """A record's state rebuilt against its task, with the verifier's report and prompt."""

    task: Task
    timeline: Timeline
    report: Report
    messages: list[dict[str, str]]


class TaskBook:
    """Task.1 documents by id, each compiled (task + verifier) once, on first use."""

    def __init__(self, tasks: Mapping[str, Mapping[str, Any]]) -> None:
        self._raw = tasks
        self._compiled: dict[str, tuple[Task, Verifier]] = {}
        self._states: dict[tuple[str, str], ReplayedState | None] = {}

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._raw

    def compiled(self, task_id: str) -> tuple[Task, Verifier]:
        """The task and its verifier; an invalid Task.1 is a :class:`DatasetError`."""
        found = self._compiled.get(task_id)
        if found is None:
            try:
                task = TaskIn.model_validate(self._raw[task_id]).to_task()
            except (ValidationError, RefineryError) as error:
                raise DatasetError(
                    f"task {task_id!r} is not a valid Task.1: {error}", param=f"tasks.{task_id}"
                ) from None
            found = self._compiled[task_id] = (task, Verifier(task))
        return found

    def replay(self, record: RepairRecord) -> ReplayedState | None:
        """The record's state re-verified; ``None`` when the timeline does not fit the task."""
        key = (record.task_id, record.state)
        if key not in self._states:
            task, verifier = self.compiled(record.task_id)
            try:
                timeline = TimelineIn.model_validate(record.state_timeline).to_timeline(task)
            except (ValidationError, RefineryError):
                self._states[key] = None
            else:
                report = verifier.verify(timeline)
                messages = render_messages(task, timeline, report)
                self._states[key] = ReplayedState(task, timeline, report, messages)
        return self._states[key]

    @staticmethod
    def completion(task: Task, patch: Mapping[str, Any]) -> str | None:
        """The patch as the planner's SFT target text; ``None`` when it is not a Patch.1."""
        try:
            ops = PatchIn.model_validate(patch).to_ops(task.fps)
        except (ValidationError, RefineryError, ValueError):
            return None
        return patch_text(ops, task.fps)


def row_for(
    task_id: str,
    best: RepairRecord,
    messages: list[dict[str, str]],
    completion: str,
    key: str | None = None,
) -> dict[str, Any]:
    """One SFT row: the planner's prompt for the state and the patch text as the answer."""
    return {
        "prompt": [dict(m) for m in messages],
        "completion": [{"role": "assistant", "content": completion}],
        "meta": {
            "task_id": task_id,
            "state_key": state_digest(key if key is not None else best.state),
            "proposer": best.proposer,
            "ves_before": best.ves_before,
            "ves_after": best.ves_after,
        },
    }


Branches = dict[tuple[str, int], dict[int, list[RepairRecord]]]
"""(plan_id, branch_id) → round → that round's records, each in first-seen order."""


def with_task(
    records: Iterable[RepairRecord], book: TaskBook, tally: Tally
) -> Iterator[RepairRecord]:
    """The records whose task ``book`` holds, counted in ``tally``; the others are skipped
    (``missing_task``)."""
    for record in records:
        tally.seen += 1
        if record.task_id not in book:
            tally.skip("missing_task")
            continue
        tally.kept += 1
        yield record


def group_by_branch(records: Iterable[RepairRecord], book: TaskBook, tally: Tally) -> Branches:
    """Records by branch and round; records without a task are skipped (``missing_task``)."""
    branches: Branches = {}
    for record in with_task(records, book, tally):
        rounds = branches.setdefault((record.plan_id, record.branch_id), {})
        rounds.setdefault(record.round, []).append(record)
    return branches
