"""Schema-constrained decoding: every answer of an untrained checkpoint parses, and it drafts."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("transformers")
pytest.importorskip("xgrammar")

from fastapi.testclient import TestClient

from benchmarks.editbench import generate
from protocol.verifier import TaskIn
from protocol.verifier.timeline import timeline_payload
from services.planner.proposers import hf
from services.planner.proposers.drafting import read_timeline
from services.planner.proposers.hf import HFProposer
from services.planner.proposers.prompting import PatchParseError, patch_text
from services.planner.proposers.schemas import (
    draft_shot_cap,
    patch_op_cap,
    patch_schema,
    task_patch_schema,
    task_timeline_schema,
    timeline_schema,
)
from services.planner.proposers.simple_draft import simple_draft
from services.verifier import patches as P
from services.verifier.app import build_app as build_verifier
from services.verifier.config import VerifierSettings
from services.verifier.score import Verifier
from services.verifier.timeline import FrameRange
from tests.planner.proposers.tiny import build


@pytest.fixture(scope="module")
def tasks():
    return [TaskIn.model_validate(row["task"]).to_task() for row in generate(3, seed=7)]


@pytest.fixture(scope="module")
def checkpoint(tasks, tmp_path_factory) -> str:
    path = build(tmp_path_factory.mktemp("untrained") / "ckpt", tasks)
    yield path
    hf.clear_cache(path)


def test_the_generic_schemas_are_what_the_verifier_serves() -> None:
    with TestClient(build_verifier(VerifierSettings())) as verifier:
        assert verifier.get("/v1/schemas/patch").json() == patch_schema()
        assert verifier.get("/v1/schemas/timeline").json() == timeline_schema()


def test_the_task_schemas_name_only_the_tasks_ids(tasks) -> None:
    task = tasks[0]
    timeline = simple_draft(task)
    schema = task_patch_schema(task, timeline)
    defs = schema["$defs"]
    for name in ("InsertOp", "ReplaceOp"):
        ids = [branch["properties"]["clip_id"]["const"] for branch in defs[name]["anyOf"]]
        assert ids == sorted(task.clips)
    reach = len(timeline.shots) + draft_shot_cap(task)
    assert defs["RemoveOp"]["properties"]["shot"]["maximum"] == reach - 1
    assert defs["InsertOp"]["anyOf"][0]["properties"]["at"]["maximum"] == reach
    assert schema["properties"]["ops"]["maxItems"] == patch_op_cap(task, timeline) == reach + 2
    draft = task_timeline_schema(task)
    assert draft["properties"]["fps"] == {"const": task.fps}
    shots = draft["$defs"]["ShotIn"]["anyOf"]
    assert [shot["properties"]["clip_id"]["const"] for shot in shots] == sorted(task.clips)


def test_a_source_range_stops_at_the_named_clips_end(checkpoint, tasks) -> None:
    """Each op or shot that names a clip is bounded by that clip: its last frame is the
    latest in point, its end the latest out point; a longer clip's range is still allowed."""
    grammar = HFProposer(checkpoint, device="cpu").loaded.grammar
    task = tasks[0]
    timeline = simple_draft(task)
    shortest = min(task.clips, key=lambda clip_id: task.clips[clip_id].duration)
    end = task.clips[shortest].duration
    assert end < max(clip.duration for clip in task.clips.values())
    schema = task_patch_schema(task, timeline)

    def writes(*ops: P.Op) -> bool:
        return grammar.accepts(schema, patch_text(list(ops), task.fps))

    for make in (P.Insert, P.Replace):
        assert writes(make(0, shortest, FrameRange(end - 1, end)))
        assert not writes(make(0, shortest, FrameRange(0, end + 1)))
        assert not writes(make(0, shortest, FrameRange(end, end + 1)))
    assert writes(P.Trim(0, FrameRange(0, end + 1)))  # a trim names no clip
    draft = task_timeline_schema(task)

    def drafts(out_s: float) -> bool:
        shot = {"clip_id": shortest, "in_s": 0.0, "out_s": out_s}
        cut = {"schema": "Timeline.1", "fps": task.fps, "shots": [shot], "music": None}
        return grammar.accepts(draft, json.dumps(cut, separators=(",", ":")))

    assert drafts(end / task.fps) and not drafts((end + 1) / task.fps)


def test_a_task_without_music_offers_no_set_music() -> None:
    row = next(generate(1, seed=3))
    row["task"]["music"] = []
    row["task"]["ledger"] = [c for c in row["task"]["ledger"] if "music" not in c["kind"]]
    task = TaskIn.model_validate(row["task"]).to_task()
    schema = task_patch_schema(task, simple_draft(task))
    refs = [ref["$ref"] for ref in schema["properties"]["ops"]["items"]["anyOf"]]
    assert "#/$defs/SetMusicOp" not in refs and "SetMusicOp" not in schema["$defs"]
    assert task_timeline_schema(task)["properties"]["music"] == {"type": "null"}


def test_training_targets_are_sentences_of_the_grammar(checkpoint, tasks) -> None:
    """What SFT teaches (compact Patch.1 / Timeline.1 text) is what constrained decoding
    writes: the grammar accepts it whole."""
    grammar = HFProposer(checkpoint, device="cpu").loaded.grammar
    task = tasks[0]
    timeline = simple_draft(task)
    clip = sorted(task.clips)[0]
    ops = [P.Trim(0, FrameRange(0, 12)), P.Insert(1, clip, FrameRange(3, 40)), P.Swap(0, 1)]
    assert grammar.accepts(task_patch_schema(task, timeline), patch_text(ops, task.fps))
    cut = timeline_payload(timeline)
    for shot in cut["shots"]:
        del shot["transition_in"]
    text = json.dumps(cut, separators=(",", ":"))
    assert grammar.accepts(task_timeline_schema(task), text)
    assert not grammar.accepts(task_patch_schema(task, timeline), text)


def test_a_whole_rewrite_is_a_sentence_of_the_patch_grammar(checkpoint, tasks) -> None:
    """The exact teacher's answer (insert a new cut, remove every old shot, place the music)
    fits the student's grammar, shot indexes past the old end included; one op more does not."""
    grammar = HFProposer(checkpoint, device="cpu").loaded.grammar
    task = tasks[0]
    timeline = simple_draft(task)
    new, old = draft_shot_cap(task), len(timeline.shots)
    clip = sorted(task.clips)[0]
    rewrite = [
        *(P.Insert(at, clip, FrameRange(0, 12)) for at in range(new)),
        *(P.Remove(new) for _ in range(old)),
        P.SetMusic(sorted(task.tracks)[0], 0),
    ]
    cap = patch_op_cap(task, timeline)
    schema = task_patch_schema(task, timeline)
    assert new > old and len(rewrite) <= cap
    assert grammar.accepts(schema, patch_text(rewrite, task.fps))
    longer = rewrite + [P.Remove(0)] * (cap - len(rewrite) + 1)
    assert not grammar.accepts(schema, patch_text(longer, task.fps))


def test_every_answer_of_an_untrained_model_parses(checkpoint, tasks) -> None:
    proposer = HFProposer(checkpoint, device="cpu")
    for index, task in enumerate(tasks):
        timeline = simple_draft(task)
        proposals = proposer.propose(
            task, timeline, Verifier(task).verify(timeline), n=6, seed=index
        )
        assert len(proposals) == 6  # each parses; the verifier may still reject one
    counts = proposer.report()
    assert counts["answers"] == 18 and counts["parsed"] == 18, proposer.drop_reasons
    assert proposer.stats.errors == []


def test_an_untrained_model_drafts_a_cut_of_the_task(checkpoint, tasks) -> None:
    proposer = HFProposer(checkpoint, device="cpu")
    for index, task in enumerate(tasks):
        cut = proposer.model_draft(task, seed=index, n=3)
        assert cut is not None and cut.shots and cut.fps == task.fps
        assert {shot.clip_id for shot in cut.shots} <= set(task.clips)
    counts = proposer.report()
    assert counts["draft_answers"] == 9 and counts["draft_parsed"] == 9, counts


def test_unconstrained_decoding_is_still_possible_and_counted(checkpoint, tasks) -> None:
    task = tasks[0]
    timeline = simple_draft(task)
    free = HFProposer(checkpoint, device="cpu", constrained=False, max_new_tokens=16)
    free.propose(task, timeline, Verifier(task).verify(timeline), n=4, seed=0)
    counts = free.report()
    assert counts["answers"] == 4 and counts["parsed"] < 4


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no json here", "no_json"),
        ('{"schema":"Timeline.1","fps":25,"shots":[],"music":null}', "no_shots"),
        (
            '{"schema":"Timeline.1","fps":25,"shots":[{"clip_id":"zz","in_s":0,"out_s":1}]}',
            "unknown_id",
        ),
        ('{"schema":"Patch.1","ops":[]}', "schema"),
    ],
)
def test_unreadable_drafts_name_their_reason(tasks, text: str, reason: str) -> None:
    task = tasks[0]
    text = text.replace('"fps":25', f'"fps":{task.fps}')
    with pytest.raises(PatchParseError) as caught:
        read_timeline(text, task)
    assert caught.value.reason == reason


def test_backwards_and_empty_shots_are_read_and_counted(tasks) -> None:
    task = tasks[0]
    clip = sorted(task.clips)[0]
    shots = [
        {"clip_id": clip, "in_s": 2.0, "out_s": 1.0},
        {"clip_id": clip, "in_s": 1.0, "out_s": 1.0},
        {"clip_id": clip, "in_s": 0.0, "out_s": 0.5},
    ]
    text = json.dumps({"schema": "Timeline.1", "fps": task.fps, "shots": shots, "music": None})
    cut, fixed = read_timeline(text, task)
    assert fixed == 2 and len(cut.shots) == 2
    assert cut.shots[0].source == FrameRange(task.fps, 2 * task.fps)


def test_prompts_fit_the_students_context(checkpoint, tasks) -> None:
    from services.planner.proposers.drafting import render_draft_messages
    from services.planner.proposers.hf import prompt_text
    from services.planner.proposers.prompting import render_messages

    tokenizer = HFProposer(checkpoint, device="cpu").loaded.tokenizer
    for task in tasks:
        timeline = simple_draft(task)
        report = Verifier(task).verify(timeline)
        for messages in (render_messages(task, timeline, report), render_draft_messages(task)):
            ids = tokenizer(prompt_text(tokenizer, messages), add_special_tokens=False)
            assert len(ids["input_ids"]) < 3072


def test_the_compact_prompt_names_what_is_wrong(tasks) -> None:
    from services.planner.proposers.compact import named_shots, render_compact_prompt

    assert named_shots(["shots 3–5 and 9 are long", "shot 12 is short", "shot 2"], 10) == [
        3,
        4,
        5,
        9,
        2,
    ]
    task = tasks[0]
    timeline = simple_draft(task)
    report = Verifier(task).verify(timeline)
    prompt = render_compact_prompt(task, timeline, report)
    assert prompt == render_compact_prompt(task, timeline, report)
    for result in report.constraints:
        if not result.satisfied:
            assert (result.message or "not satisfied") in prompt
    assert task.brief.text in prompt and "```json" not in prompt


def test_the_heuristic_checkpoint_path_still_drafts_with_simple_draft(checkpoint, tasks) -> None:
    task = tasks[0]
    assert HFProposer(checkpoint, device="cpu").draft(task, seed=0) == simple_draft(task, seed=0)


def test_the_student_size_exists() -> None:
    from services.trainer.models import SIZES

    assert SIZES["student"]["layers"] >= 4 and SIZES["student"]["hidden"] == 256
