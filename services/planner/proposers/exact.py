"""``exact``: the VES-optimal cut on the exact solver's discretisation (``docs/exact.md``).

``draft`` is the solver's timeline (the search proposer's draft when the solver finds none
in its time limit); ``propose`` first offers the solver's timeline as one patch when it
beats the current cut (repair mode), then the search proposer's local moves, which may
still gain outside the discretisation. Usable wherever a proposer is, e.g. as a teacher.
"""

from __future__ import annotations

from collections import OrderedDict

from services.planner.exact.solver import MAX_CLIPS, MAX_SHOTS, TIME_LIMIT_S, Solution, solve
from services.planner.proposers.base import Proposal, ProposerStats
from services.planner.proposers.search import SearchProposer
from services.verifier.patches import Insert, Op, Remove, SetMusic, SetTransition
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline, TransitionType

__all__ = ["ExactProposer"]


class ExactProposer:
    name = "exact"

    def __init__(
        self,
        *,
        time_limit_s: float = TIME_LIMIT_S,
        work_limit: float | None = None,
        max_clips: int = MAX_CLIPS,
        max_shots: int = MAX_SHOTS,
        relevance_backend: str = "auto",
        cache_size: int = 16,
    ) -> None:
        self.stats = ProposerStats()
        self.time_limit_s, self.max_clips, self.max_shots = time_limit_s, max_clips, max_shots
        self.work_limit = work_limit
        self.search = SearchProposer(relevance_backend=relevance_backend)
        self.cache_size = cache_size
        self._solved: OrderedDict[int, tuple[Task, Solution]] = OrderedDict()

    def solution(self, task: Task) -> Solution:
        """The solver's answer for ``task`` (kept for the last few tasks seen)."""
        known = self._solved.get(id(task))
        if known is not None and known[0] is task:
            return known[1]
        found = solve(
            task,
            max_clips=self.max_clips,
            max_shots=self.max_shots,
            time_limit_s=self.time_limit_s,
            work_limit=self.work_limit,
        )
        self._solved[id(task)] = (task, found)
        while len(self._solved) > self.cache_size:
            self._solved.popitem(last=False)
        return found

    def draft(self, task: Task, *, seed: int) -> Timeline:
        found = self.solution(task)
        if found.timeline is None:
            return self.search.draft(task, seed=seed)
        return found.timeline

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        self.stats.requests += 1
        if n <= 0:
            return []
        out: list[Proposal] = []
        found = self.solution(task)
        if found.timeline is not None and found.ves > report.ves and found.timeline != timeline:
            ops = replace_all(timeline, found.timeline)
            if ops is not None:
                note = f"exact:{found.status}"
                out.append(Proposal(ops, self.name, note))
        out += self.search.propose(task, timeline, report, n=n - len(out), seed=seed)
        self.stats.candidates += len(out)
        return out


def replace_all(current: Timeline, target: Timeline) -> tuple[Op, ...] | None:
    """Ops that turn ``current`` into ``target`` (None: ops cannot remove the music)."""
    if target.music is None and current.music is not None:
        return None
    ops: list[Op] = [Insert(i, s.clip_id, s.source) for i, s in enumerate(target.shots)]
    ops += [Remove(len(target.shots)) for _ in current.shots]
    ops += [
        SetTransition(i, s.transition_in)
        for i, s in enumerate(target.shots)
        if s.transition_in.type is not TransitionType.CUT
    ]
    if target.music is not None:
        music = target.music
        ops.append(SetMusic(music.track_id, music.offset, music.fade_out))
    return tuple(ops)
