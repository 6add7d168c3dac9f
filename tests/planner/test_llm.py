"""The ``llm`` proposer against a real HTTP fake of an OpenAI-compatible endpoint."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.verifier import PatchIn
from services.planner.proposers.base import Proposer, ProposerError
from services.planner.proposers.llm import LLMProposer
from services.planner.proposers.prompting import patch_schema, render_messages
from services.planner.proposers.schemas import (
    patch_op_cap,
    patch_token_budget,
    task_patch_schema,
    task_timeline_schema,
)
from services.verifier.patches import apply_patch
from services.verifier.score import Verifier
from tests.planner.fake_openai import FakeOpenAI, closed_port_url, serve
from tests.planner.prompt_tasks import example_task, state

MODEL = "fake-planner"


@pytest.fixture(scope="module")
def fake_server() -> Iterator[tuple[FakeOpenAI, str]]:
    fake = FakeOpenAI(models=(MODEL,))
    with serve(fake.app) as url:
        yield fake, url


@pytest.fixture
def fake(fake_server) -> FakeOpenAI:
    fake_server[0].reset()
    return fake_server[0]


@pytest.fixture
def proposer(fake_server, fake) -> Iterator[LLMProposer]:
    with LLMProposer(fake_server[1], MODEL, timeout_s=5, backoff_s=0.01) as llm:
        yield llm


@pytest.fixture(scope="module")
def surf():
    task = example_task("surf-reel")
    timeline, report = state(task)
    return task, timeline, report


def test_it_is_a_proposer(proposer: LLMProposer) -> None:
    assert isinstance(proposer, Proposer)
    assert proposer.name == "llm"


@pytest.mark.parametrize("n", [1, 3, 8])
def test_valid_answers_apply_cleanly_and_n_is_honoured(proposer, fake, surf, n: int) -> None:
    task, timeline, report = surf
    proposals = proposer.propose(task, timeline, report, n=n, seed=7)
    assert len(proposals) == n
    assert len(fake.requests) == 1 and fake.requests[0]["n"] == n
    for proposal in proposals:
        assert proposal.source == "llm" and proposal.note.startswith(MODEL)
        edited = apply_patch(task, timeline, proposal.ops)
        assert edited != timeline
        assert Verifier(task).verify(edited).duration > 0
    stats = proposer.stats
    assert (stats.requests, stats.candidates, stats.dropped, stats.errors) == (1, n, 0, [])


def test_request_carries_structured_output_and_sampling(proposer, fake, surf) -> None:
    task, timeline, report = surf
    proposer.propose(task, timeline, report, n=4, seed=11)
    body = fake.requests[0]
    assert body["model"] == MODEL
    assert body["n"] == 4 and body["seed"] == 11 and body["temperature"] == 0.8
    assert body["messages"] == render_messages(task, timeline, report)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "Patch",
            "schema": task_patch_schema(task, timeline),
            "strict": False,
        },
    }
    assert body["max_tokens"] >= patch_token_budget(patch_op_cap(task, timeline))
    generic = PatchIn.model_json_schema(by_alias=True)
    assert patch_schema() == generic


def test_same_seed_same_proposals_other_seed_differs(proposer, surf) -> None:
    task, timeline, report = surf
    first = proposer.propose(task, timeline, report, n=6, seed=1)
    again = proposer.propose(task, timeline, report, n=6, seed=1)
    other = proposer.propose(task, timeline, report, n=6, seed=2)
    assert [p.ops for p in first] == [p.ops for p in again]
    assert [p.ops for p in first] != [p.ops for p in other]


def test_temperature_zero_gives_the_greedy_answer_n_times(fake_server, fake, surf) -> None:
    task, timeline, report = surf
    with LLMProposer(fake_server[1], MODEL, temperature=0) as greedy:
        proposals = greedy.propose(task, timeline, report, n=4, seed=5)
    assert fake.requests[0]["temperature"] == 0
    assert len(proposals) == 4 and len({p.ops for p in proposals}) == 1


def test_garbage_is_dropped_and_counted_never_raised(proposer, fake, surf) -> None:
    fake.mode = "garbage"
    task, timeline, report = surf
    assert proposer.propose(task, timeline, report, n=16, seed=3) == []
    assert (proposer.stats.candidates, proposer.stats.dropped) == (16, 16)
    assert proposer.stats.errors == []
    assert sum(proposer.drop_reasons.values()) == 16
    assert set(proposer.drop_reasons) <= {"no_json", "schema", "unknown_clip", "empty"}


def test_mixed_answers_keep_only_the_good_ones(proposer, fake, surf) -> None:
    fake.mode = "mixed"
    task, timeline, report = surf
    proposals = proposer.propose(task, timeline, report, n=6, seed=3)
    assert [p.note for p in proposals] == [f"{MODEL}#{i}" for i in (0, 2, 4)]
    assert (proposer.stats.candidates, proposer.stats.dropped) == (6, 3)
    for proposal in proposals:
        apply_patch(task, timeline, proposal.ops)


def test_unstructured_answers_in_prose_are_still_read(fake_server, fake, surf) -> None:
    """Without response_format the fake wraps its JSON in prose and a fence."""
    task, timeline, report = surf

    class Unstructured(LLMProposer):
        def request_body(self, messages, *, n, seed, schema=None, max_tokens=None):
            body = super().request_body(messages, n=n, seed=seed, schema=schema)
            del body["response_format"]
            return body

    with Unstructured(fake_server[1], MODEL) as llm:
        proposals = llm.propose(task, timeline, report, n=3, seed=0)
        texts = llm.complete(render_messages(task, timeline, report), n=1, seed=0)
    assert len(proposals) == 3 and llm.stats.dropped == 0
    assert texts[0].startswith("Here is my patch:\n```json")


def test_server_errors_are_retried_then_recorded(fake_server, fake, surf) -> None:
    fake.mode = "error"
    task, timeline, report = surf
    with LLMProposer(fake_server[1], MODEL, max_retries=2, backoff_s=0.01) as llm:
        assert llm.propose(task, timeline, report, n=3, seed=0) == []
    assert len(fake.requests) == 3
    assert len(llm.stats.errors) == 1 and "HTTP 500 after 3 attempts" in llm.stats.errors[0]
    assert llm.stats.candidates == 0 and llm.stats.dropped == 0


def test_a_transient_error_is_retried_to_success(proposer, fake, surf) -> None:
    fake.mode, fake.fail_first = "flaky", 1
    task, timeline, report = surf
    assert len(proposer.propose(task, timeline, report, n=2, seed=0)) == 2
    assert len(fake.requests) == 2 and proposer.stats.errors == []


def test_timeouts_are_retried_then_recorded(fake_server, fake, surf) -> None:
    fake.mode, fake.delay_s = "slow", 0.6
    task, timeline, report = surf
    with LLMProposer(fake_server[1], MODEL, timeout_s=0.15, max_retries=1, backoff_s=0) as llm:
        assert llm.propose(task, timeline, report, n=2, seed=0) == []
    assert len(fake.requests) == 2
    assert "timeout" in llm.stats.errors[0] and "after 2 attempts" in llm.stats.errors[0]


def test_client_errors_are_not_retried(fake_server, fake, surf) -> None:
    task, timeline, report = surf
    with LLMProposer(fake_server[1], "not-served", backoff_s=0) as llm:
        assert llm.propose(task, timeline, report, n=2, seed=0) == []
    assert len(fake.requests) == 1
    assert "HTTP 404" in llm.stats.errors[0] and "does not exist" in llm.stats.errors[0]


def test_a_200_without_choices_is_an_error_not_a_crash(proposer, fake, surf) -> None:
    fake.mode = "no_choices"
    task, timeline, report = surf
    assert proposer.propose(task, timeline, report, n=2, seed=0) == []
    assert "without chat-completion choices" in proposer.stats.errors[0]


def test_endpoint_down_check_raises_propose_records(surf) -> None:
    task, timeline, report = surf
    with LLMProposer(closed_port_url(), MODEL, max_retries=1, backoff_s=0) as llm:
        with pytest.raises(ProposerError) as caught:
            llm.check()
        assert caught.value.status_code == 503 and caught.value.code == "proposer_unavailable"
        assert "unreachable" in caught.value.message
        assert llm.propose(task, timeline, report, n=2, seed=0) == []
        assert "ConnectError" in llm.stats.errors[0]


def test_check_passes_when_served_and_names_an_unknown_model(fake_server, fake) -> None:
    with LLMProposer(fake_server[1], MODEL) as llm:
        llm.check()
    with LLMProposer(fake_server[1], "other-model") as llm, pytest.raises(ProposerError) as caught:
        llm.check()
    assert caught.value.status_code == 422 and caught.value.code == "unknown_model"
    assert MODEL in caught.value.message


def test_api_key_is_sent_as_bearer(fake_server, fake, surf) -> None:
    task, timeline, report = surf
    with LLMProposer(fake_server[1], MODEL, api_key="sekret") as llm:
        llm.propose(task, timeline, report, n=1, seed=0)
    with LLMProposer(fake_server[1], MODEL) as llm:
        llm.propose(task, timeline, report, n=1, seed=0)
    assert fake.authorization == ["Bearer sekret", None]


def test_draft_falls_back_to_the_simple_draft_or_the_given_one(proposer, surf) -> None:
    task, timeline, _ = surf
    assert proposer.draft(task, seed=0) == timeline
    with LLMProposer("http://127.0.0.1:9/v1", MODEL, draft=lambda t, *, seed: timeline) as llm:
        assert llm.draft(task, seed=5) is timeline


def test_n_zero_asks_nothing(proposer, fake, surf) -> None:
    task, timeline, report = surf
    assert proposer.propose(task, timeline, report, n=0, seed=0) == []
    assert fake.requests == [] and proposer.stats.requests == 0


def test_a_thinking_model_is_asked_not_to_think(proposer, fake, surf) -> None:
    fake.thinking = "default"  # Qwen3: thinks unless the request turns it off
    task, timeline, report = surf
    assert len(proposer.propose(task, timeline, report, n=3, seed=5)) == 3
    assert proposer.stats.dropped == 0


def test_thinking_and_fences_around_an_answer_are_stripped(fake_server, fake, surf) -> None:
    fake.thinking = "always"  # wraps a decoy patch in <think> whatever the request says
    task, timeline, report = surf
    with LLMProposer(fake_server[1], MODEL, backoff_s=0.01) as llm:
        proposals = llm.propose(task, timeline, report, n=4, seed=5)
    assert len(proposals) == 4 and llm.stats.dropped == 0
    for proposal in proposals:
        assert all(type(op).__name__ != "Explode" for op in proposal.ops)
        apply_patch(task, timeline, proposal.ops)


def test_the_model_drafts_under_the_timeline_schema(proposer, fake, surf) -> None:
    task = surf[0]
    cut = proposer.model_draft(task, seed=4, n=3)
    body = fake.requests[0]
    assert body["n"] == 3 and body["seed"] == 4
    assert body["response_format"]["json_schema"]["name"] == "Timeline"
    assert body["response_format"]["json_schema"]["schema"] == task_timeline_schema(task)
    assert cut is not None and cut.shots and {s.clip_id for s in cut.shots} <= set(task.clips)
    counts = proposer.report()
    assert (counts["draft_answers"], counts["draft_parsed"]) == (3, 3)


def test_a_failed_draft_request_gives_no_cut(proposer, fake, surf) -> None:
    fake.mode = "error"
    assert proposer.model_draft(surf[0], seed=0, n=2) is None
    assert proposer.stats.errors and proposer.report()["draft_answers"] == 0
