"""Planner repair branches as Episode-like step sequences, so SOLAR applies to them too.

A branch (one plan, one proposer) is a trajectory: each round starts from a state, the
planner keeps one candidate (``accepted`` in the record) and moves to its timeline. The
reference step is that kept candidate; the round's other candidates are the step's
recorded ``alternatives`` (SOLAR's rollout candidates). The trajectory ends at the first
round that kept nothing. Every action carries the verifier's recorded verdict::

    {"type": "patch", "patch": Patch.1, "completion": <patch text>, "applied": bool,
     "broken_hard": [ids], "ves_before", "ves_after", "proposer"}

``applied`` is the verifier's acceptance (it could apply the patch); ``broken_hard`` lists
hard constraints satisfied before and not after. SOLAR's per-step validity of a patch is 1
when it was applied and broke none, else 0. Observations hold the planner's prompt for the
state (``messages``, re-verified), so :func:`stored_messages` renders SOLAR prompts.
Episode: ``{"episode_id": "<plan>:<branch>", "goal", "task_id", "kind": "repair",
"steps": [{"observation", "action", "alternatives", "round"}], "success"}`` where success
means the last kept candidate's timeline is feasible.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from services.trainer.datasets.records import (
    RepairRecord,
    TaskBook,
    group_by_branch,
    parse_records,
)
from services.trainer.datasets.stats import Tally
from services.verifier.task import Task

__all__ = ["build_trajectories", "patch_action", "stored_messages"]


def stored_messages(
    episode: Mapping[str, Any], index: int, step: Mapping[str, Any]
) -> list[dict[str, str]]:
    """The prompt a repair step carries (a SOLAR ``render`` callable)."""
    return [dict(m) for m in step["observation"]["messages"]]


def patch_action(record: RepairRecord, task: Task) -> dict[str, Any] | None:
    """A candidate as a ``patch`` action with its verdict; ``None`` if it is not a Patch.1."""
    completion = TaskBook.completion(task, record.patch)
    if completion is None:
        return None
    return {
        "type": "patch",
        "patch": record.patch,
        "completion": completion,
        "applied": record.applied,
        "broken_hard": record.broken_hard,
        "ves_before": record.ves_before,
        "ves_after": record.ves_after,
        "proposer": record.proposer,
    }


def build_trajectories(
    records: Iterable[Mapping[str, Any]],
    tasks: Mapping[str, Mapping[str, Any]],
    *,
    proposers: Collection[str] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Planner records + their tasks → (repair episodes, stats); see the module docstring."""
    book = TaskBook(tasks)
    record_tally, branch_tally = Tally(), Tally()
    branches = group_by_branch(parse_records(records, proposers=proposers), book, record_tally)
    episodes = []
    for (plan_id, branch_id), rounds in branches.items():
        branch_tally.seen += 1
        episode = _episode(f"{plan_id}:{branch_id}", rounds, book)
        if isinstance(episode, str):
            branch_tally.skip(episode)
            continue
        branch_tally.kept += 1
        episodes.append(episode)
    steps = sum(len(e["steps"]) for e in episodes)
    stats = {
        "builder": "trajectories",
        "rows": len(episodes),
        "records": record_tally.as_dict(),
        "branches": branch_tally.as_dict(),
        "steps": steps,
        "successes": sum(e["success"] for e in episodes),
        "valid_steps": sum(_valid(s["action"]) for e in episodes for s in e["steps"]),
    }
    return episodes, stats


def _valid(action: Mapping[str, Any]) -> bool:
    return bool(action["applied"]) and not action["broken_hard"]


def _episode(
    episode_id: str, rounds: dict[int, list[RepairRecord]], book: TaskBook
) -> dict[str, Any] | str:
    """One branch's episode, or why it has none."""
    steps: list[dict[str, Any]] = []
    last: RepairRecord | None = None
    task_id = next(iter(rounds.values()))[0].task_id
    task, _ = book.compiled(task_id)
    for number in sorted(rounds):
        group = rounds[number]
        kept = [r for r in group if r.accepted]
        if not kept:
            break
        replayed = book.replay(kept[0])
        action = patch_action(kept[0], task)
        if replayed is None or action is None:
            return "bad_state" if replayed is None else "bad_patch"
        alternatives = [a for r in group if r is not kept[0] if (a := patch_action(r, task))]
        observation = {"task_id": task_id, "timeline": kept[0].state_timeline}
        observation["messages"] = replayed.messages
        steps.append(
            {
                "observation": observation,
                "action": action,
                "alternatives": alternatives,
                "round": number,
            }
        )
        last = kept[0]
    if not steps or last is None:
        return "no_kept_step"
    feasible = bool((last.report_after or {}).get("feasible", False))
    return {
        "episode_id": episode_id,
        "goal": task.brief.text,
        "task_id": task_id,
        "kind": "repair",
        "steps": steps,
        "success": feasible,
    }
