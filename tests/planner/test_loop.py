"""The closed loop's stopping rule: ``patience`` rounds in a row without an accepted patch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from clients.verifier import VerifierClient
from protocol.verifier import TaskIn
from services.planner.loop import LoopOptions, run_branch
from services.planner.proposers.base import Proposal, ProposerStats
from services.planner.proposers.search import SearchProposer
from services.verifier import patches as P
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from services.verifier.score import Report
from services.verifier.task import Task
from services.verifier.timeline import Timeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class MissingThenSearch:
    """Answers the requests numbered in ``misses`` (from 1) with patches the verifier
    rejects, every other with search's."""

    name = "missing-then-search"

    def __init__(self, misses: set[int]) -> None:
        self.misses = misses
        self.search = SearchProposer(relevance_backend="tfidf")
        self.stats = ProposerStats()
        self.seeds: list[int] = []

    def draft(self, task: Task, *, seed: int) -> Timeline:
        return self.search.draft(task, seed=seed)

    def propose(
        self, task: Task, timeline: Timeline, report: Report, *, n: int, seed: int
    ) -> list[Proposal]:
        self.seeds.append(seed)
        if len(self.seeds) in self.misses:
            return [Proposal((P.Remove(shot=999),), self.name)] * n
        return self.search.propose(task, timeline, report, n=n, seed=seed)


@pytest.fixture(scope="module")
def verifier() -> VerifierClient:
    return VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))


def _branch(verifier: VerifierClient, proposer: MissingThenSearch, patience: int):
    wire = json.loads((EXAMPLES / "city-night" / "task.json").read_text())
    task_in = TaskIn.model_validate(wire)
    wire = task_in.model_dump(mode="json", by_alias=True)
    options = LoopOptions(max_rounds=4, candidates=2, seed=1, patience=patience)
    return run_branch(wire, task_in.to_task(), proposer, verifier, options)


def test_the_default_stops_at_the_first_round_without_an_accepted_patch(
    verifier: VerifierClient,
) -> None:
    proposer = MissingThenSearch(misses={1})
    branch = _branch(verifier, proposer, patience=1)
    assert [r.accepted for r in branch.rounds] == [False]
    assert branch.report.ves == branch.draft_ves
    assert len(branch.candidates) == 2


def test_patience_asks_again_at_the_same_cut_with_a_new_seed(verifier: VerifierClient) -> None:
    proposer = MissingThenSearch(misses={1, 2})
    branch = _branch(verifier, proposer, patience=3)
    accepted = [r.accepted for r in branch.rounds]
    assert accepted[:3] == [False, False, True]
    assert branch.report.ves > branch.draft_ves
    assert len(set(proposer.seeds)) == len(proposer.seeds)
    first, third = branch.candidates[0], branch.candidates[4]
    assert first.state_timeline == third.state_timeline
    assert len(branch.candidates) == 2 * len(branch.rounds)


def test_patience_counts_misses_in_a_row_not_in_all(verifier: VerifierClient) -> None:
    proposer = MissingThenSearch(misses={1, 3})
    branch = _branch(verifier, proposer, patience=2)
    assert [r.accepted for r in branch.rounds][:3] == [False, True, False]
    assert len(branch.rounds) == 4  # the second miss is not in a row with the first
