"""The shared model prompt and the tolerant reader of model answers."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from protocol.verifier import PatchIn, TimelineIn
from services.planner.proposers.base import ProposerStats
from services.planner.proposers.prompting import (
    SYSTEM_PROMPT,
    PatchParseError,
    parse_candidates,
    parse_patch,
    patch_schema,
    patch_text,
    read_patch,
    render_messages,
    render_prompt,
)
from services.verifier import patches as P
from services.verifier.patches import apply_patch
from services.verifier.timeline import FrameRange, Transition, TransitionType
from tests.planner.prompt_tasks import example_task, pool_task, state

TRIM = '{"schema":"Patch.1","ops":[{"op":"trim","shot":0,"in_s":0.5,"out_s":1.5}]}'


@pytest.fixture(scope="module")
def surf():
    task = example_task("surf-reel")
    timeline, report = state(task)
    return task, timeline, report


def test_prompt_is_deterministic_and_carries_the_state(surf) -> None:
    task, timeline, report = surf
    prompt = render_prompt(task, timeline, report)
    assert prompt == render_prompt(task, timeline, report)
    assert task.brief.text in prompt
    for constraint in task.ledger:
        assert re.search(rf"^{constraint.id} {constraint.kind} (hard|soft)", prompt, re.M)
    for clip in task.clips.values():
        assert re.search(rf"^{clip.id} \| [0-9.]+s \| {clip.orientation.value} \| ", prompt, re.M)
    unmet = [c for c in report.constraints if not c.satisfied]
    assert unmet, "the draft should leave something to repair"
    for c in unmet:
        assert f"- {c.id} {c.kind}" in prompt and c.message in prompt


def test_ledger_lines_are_in_seconds(surf) -> None:
    task, timeline, report = surf
    prompt = render_prompt(task, timeline, report)
    assert "L1 duration hard: min_s=14 max_s=18 target_s=16" in prompt
    assert "L3 order hard: first={tags:ocean} last={tags:sunset}" in prompt
    assert "L9 beat_alignment soft w=2: tolerance_s=0.067 min_fraction=0.8" in prompt
    assert "allowed=cut,dissolve" in prompt


def test_timeline_block_is_valid_timeline_json(surf) -> None:
    task, timeline, report = surf
    block = re.search(r"```json\n(.*?)\n```", render_prompt(task, timeline, report), re.S)
    assert block is not None
    parsed = TimelineIn.model_validate(json.loads(block.group(1))).to_timeline(task)
    assert parsed == timeline


def test_non_cut_transitions_and_execution_errors_are_shown(surf) -> None:
    task, timeline, _ = surf
    from services.verifier.score import Verifier

    broken = apply_patch(
        task, timeline, [P.SetTransition(1, Transition(TransitionType.DISSOLVE, 30))]
    )
    report = Verifier(task).verify(broken)
    assert not report.executable
    prompt = render_prompt(task, broken, report)
    assert '"transition_in":{"type":"dissolve","duration_s":1.0}' in prompt
    assert "NOT EXECUTABLE:" in prompt and "executable=no" in prompt


def test_an_80_clip_pool_stays_under_4k_tokens() -> None:
    task = pool_task(80)
    timeline, report = state(task)
    messages = render_messages(task, timeline, report, compact=False)
    text = "".join(m["content"] for m in messages)
    assert messages[0]["content"] == SYSTEM_PROMPT
    assert len(task.clips) == 80 and all(cid in text for cid in task.clips)
    # ~3.5 characters a token for this mix of prose, ids and JSON: < 14k chars is < 4k tokens
    assert len(text) < 14_000
    compact = "".join(m["content"] for m in render_messages(task, timeline, report))
    assert len(compact) < len(text) // 2


def test_long_captions_are_cut() -> None:
    task = example_task("surf-reel")
    clip = next(iter(task.clips.values()))
    long = task.clips | {clip.id: clip._replace(caption="word | " * 100)}
    from dataclasses import replace

    timeline, report = state(task)
    prompt = render_prompt(replace(task, clips=long), timeline, report)
    line = next(li for li in prompt.splitlines() if li.startswith(f"{clip.id} | "))
    assert line.endswith("…") and len(line) < 160 and line.count("|") == 4


@pytest.mark.parametrize(
    "text",
    [
        TRIM,
        f"```json\n{TRIM}\n```",
        f"Sure! Here is the patch [v2]:\n```\n{TRIM}\n```\nThis trims the opener.",
        '[{"op":"trim","shot":0,"in_s":0.5,"out_s":1.5}]',
        '{"op":"trim","shot":0,"in_s":0.5,"out_s":1.5}',
        '{"ops":[{"op":"trim","shot":0,"in_s":0.5,"out_s":1.5}]} trailing words {',
    ],
)
def test_parse_patch_tolerates_fences_prose_and_short_forms(surf, text: str) -> None:
    task = surf[0]
    assert parse_patch(text, task) == (P.Trim(0, FrameRange(15, 45)),)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no patch today", "no_json"),
        ('{"schema":"Patch.1","ops":[{"op":"trim","shot":0,', "no_json"),
        ('{"schema":"Patch.1","ops":[]}', "schema"),
        ('{"schema":"Patch.2","ops":[{"op":"remove","shot":0}]}', "schema"),
        ('{"ops":[{"op":"explode","shot":0}]}', "schema"),
        ('{"ops":[{"op":"remove","shot":-1}]}', "schema"),
        ('{"ops":[{"op":"remove","shot":0,"why":"extra"}]}', "schema"),
        ('{"ops":[{"op":"insert","at":0,"clip_id":"c99","in_s":0,"out_s":1}]}', "unknown_clip"),
        ('{"ops":[{"op":"replace","shot":0,"clip_id":"zz","in_s":0,"out_s":1}]}', "unknown_clip"),
        ('{"ops":[{"op":"set_music","track_id":"m09"}]}', "unknown_track"),
        ("[1, 2, 3]", "no_json"),
    ],
)
def test_unusable_answers_name_their_reason(surf, text: str, reason: str) -> None:
    task = surf[0]
    assert parse_patch(text, task) is None
    with pytest.raises(PatchParseError) as caught:
        read_patch(text, task)
    assert caught.value.reason == reason


def test_patch_text_round_trips(surf) -> None:
    task = surf[0]
    ops = (
        P.Insert(2, "c06", FrameRange(0, 45)),
        P.Move(0, 3),
        P.SetTransition(1, Transition(TransitionType.DISSOLVE, 12)),
        P.SetMusic("m01", 30, None),
        P.FitDuration(480),
    )
    text = patch_text(ops, task.fps)
    assert "\n" not in text and read_patch(text, task) == ops


def test_parse_candidates_counts_and_drops(surf) -> None:
    task, timeline, _ = surf
    stats, reasons = ProposerStats(), Counter()
    texts = [TRIM, None, "nope", '{"ops":[{"op":"remove","shot":0}]}', ""]
    proposals = parse_candidates(texts, task, source="llm", stats=stats, reasons=reasons, note="m")
    assert [p.note for p in proposals] == ["m#0", "m#3"]
    assert all(p.source == "llm" for p in proposals)
    assert (stats.candidates, stats.dropped) == (5, 3)
    assert reasons == Counter({"empty": 2, "no_json": 1})
    for proposal in proposals:
        apply_patch(task, timeline, proposal.ops)


def test_patch_schema_is_the_wire_schema() -> None:
    schema = patch_schema()
    assert schema == PatchIn.model_json_schema(by_alias=True)
    assert schema["properties"]["schema"]["const"] == "Patch.1"
    assert "ops" in schema["required"]
