"""The relations a schema cannot hold: bounds, the cut a patch's own ops leave, and the mask."""

from __future__ import annotations

import json
import math
import random

import pytest

from services.planner.proposers.relations import (
    Bound,
    CutFacts,
    RelationMask,
    RowState,
    allows,
    bound_for,
    edited_shots,
    viable,
)
from services.verifier import patches as P
from services.verifier.errors import PatchRejected
from services.verifier.pool import Clip, Orientation
from services.verifier.task import Task
from services.verifier.timeline import FrameRange, Shot, Timeline
from tests.verifier.factories import make_task

FPS = 25
FACTS = CutFacts(FPS, {"c1": 100, "c2": 40}, ("c1", "c2", "c1"))
PATCH = '{"schema":"Patch.1","ops":['
LANDSCAPE = Orientation.LANDSCAPE


def row(text: str, facts: CutFacts = FACTS) -> RowState:
    state = RowState(facts)
    state.text = text
    return state


@pytest.mark.parametrize(
    ("prefix", "lo", "hi", "expected"),
    [
        ("", 3, 5, True),
        ("1", 3, 5, False),  # 1, 10–19, … all miss 3–5
        ("1", 3, 15, True),  # 10–15
        ("4", 3, 5, True),
        ("6", 0, 5, False),
        ("0", 1, 5, False),  # an integer 0 cannot grow
        ("0", 0, 5, True),
        ("12", 100, 200, True),  # 120–129
        ("12", 130, 200, False),
    ],
)
def test_an_index_prefix_is_viable_when_some_integer_it_starts_is_in_range(
    prefix: str, lo: int, hi: int, expected: bool
) -> None:
    assert viable(prefix, Bound.index(lo, hi)) is expected


def test_a_seconds_prefix_is_viable_when_some_number_it_starts_rounds_into_range() -> None:
    after_frame_40 = Bound.frames(41, 100, FPS)  # out point after an in point at 1.6 s
    assert not viable("1.5", after_frame_40)  # 1.5–1.6 s is frames 37.5–40
    assert viable("1.6", after_frame_40)  # 1.64 s is frame 41
    assert viable("3", after_frame_40) and not viable("5", after_frame_40)  # ends at 4 s
    assert not viable("4.1", after_frame_40)
    assert viable("0", Bound.frames(0, 10, FPS)) and not viable("0", after_frame_40)
    at_30fps = Bound.frames(124, 200, 30)  # after 4.1 s: 123.5 frames round up to 124
    assert viable("4.11666", at_30fps)  # 4.116667 is frame 124
    assert not viable("4.116666", at_30fps)  # six decimals: the grammar writes no more


def test_a_token_that_ends_a_number_ends_it_inside_the_bound_or_not_at_all() -> None:
    after_frame_26 = Bound.frames(27, 100, FPS)
    assert allows("1.", "2", after_frame_26) and allows("1.", "2}", after_frame_26)
    assert not allows("1", "}", after_frame_26)  # 1 s is frame 25
    assert not allows("1.0", "6,", after_frame_26)  # 26.5 frames round to 26 (half to even)
    assert allows("1.0", "7,", after_frame_26)
    assert allows("", "<|endoftext|>", after_frame_26)  # not a number: the grammar's to judge


def test_the_cut_follows_the_verifier_through_random_patches() -> None:
    """The cut a patch's ops leave is the verifier's, and it gives up exactly where the
    verifier rejects a shot index."""
    timeline = Timeline(
        fps=FPS, shots=tuple(Shot(c, FrameRange(0, 10)) for c in FACTS.shots), music=None
    )
    task = _task_with(FACTS)
    assert CutFacts.of(task, timeline) == FACTS
    rng = random.Random(5)
    rejected = 0
    for _ in range(300):
        ops = [_random_op(rng) for _ in range(rng.randint(1, 6))]
        wire = [_wire(op) for op in ops]
        try:
            after = P.apply_patch(task, timeline, ops)
        except PatchRejected as error:
            assert error.reason == "shot_out_of_range"
            assert edited_shots(FACTS.shots, wire) is None
            rejected += 1
            continue
        assert edited_shots(FACTS.shots, wire) == [shot.clip_id for shot in after.shots]
    assert 0 < rejected < 300


def test_an_index_is_bounded_by_the_cut_the_earlier_ops_left() -> None:
    removed = row(PATCH + '{"op":"remove","shot":0},{"op":"remove","shot":0},{"op":"swap","a":')
    assert not removed.pending()("1") and removed.pending()("0")
    inserted = row(PATCH + '{"op":"insert","at":3,"clip_id":"c2","in_s":0.0,"out_s":1.0},')
    inserted.text += '{"op":"insert","at":'
    assert inserted.pending()("4") and not inserted.pending()("5")
    assert row(PATCH + '{"op":"remove","shot":').pending()("2,")
    assert not row(PATCH + '{"op":"remove","shot":').pending()("3,")


def test_a_trim_is_bounded_by_the_clip_its_shot_holds() -> None:
    trim = row(PATCH + '{"op":"replace","shot":0,"clip_id":"c2","in_s":0.0,"out_s":1.0},')
    trim.text += '{"op":"trim","shot":0,"in_s":0.4,"out_s":'  # shot 0 now holds c2 (1.6 s)
    allowed = trim.pending()
    assert allowed("1.6}") and not allowed("1.64}") and not allowed("2")
    assert not allowed("0.4}") and allowed("0.44}")  # out after in, in frames


def test_a_transition_other_than_a_cut_cannot_leave_its_duration_out() -> None:
    dissolve = row(PATCH + '{"op":"set_transition","shot":1,"type":"dissolve')
    assert not dissolve.pending()('"}') and dissolve.pending()('","duration_s":')
    assert not row(PATCH + '{"op":"set_transition","shot":1,"type":"dissolve"').pending()("}]}")
    assert row(PATCH + '{"op":"set_transition","shot":1,"type":"cut"').pending()("}")
    cut = row(PATCH + '{"op":"set_transition","shot":1,"type":"cut","duration_s":')
    assert cut.pending()("0") and not cut.pending()("1")
    fade = row(PATCH + '{"op":"set_transition","shot":1,"type":"fade_black","duration_s":0.0')
    assert not fade.pending()("}") and fade.pending()("4}")


def test_a_cut_the_patch_emptied_takes_only_ops_that_need_no_shot() -> None:
    emptied = PATCH + '{"op":"remove","shot":0},' * 3 + '{"op":"'
    allowed = row(emptied).pending()
    assert allowed("ins") and allowed("insert") and allowed('set_music"')
    assert not allowed("rem") and not allowed("move") and not allowed('trim"')
    assert row(PATCH + '{"op":"remove","shot":0},{"op":"').pending() is None
    assert row(emptied + 'insert"').pending() is None


def test_a_draft_shot_runs_forward_inside_its_clip() -> None:
    draft = CutFacts(FPS, FACTS.clip_frames)
    text = '{"schema":"Timeline.1","fps":25,"shots":[{"clip_id":"c2","in_s":1.2,"out_s":'
    allowed = row(text, draft).pending()
    assert allowed("1.6") and not allowed("1.2}") and not allowed("1.7")
    assert bound_for("at", {"op": "insert"}, None, draft) is None
    assert bound_for("in_s", {"clip_id": "zz"}, None, draft) is None
    assert bound_for("target_s", {"op": "fit_duration"}, None, draft).hi == math.inf


def test_the_mask_keeps_only_the_tokens_the_relations_allow() -> None:
    """Each row keeps what both the grammar and its relations allow; a row the relations
    would leave without a token keeps the grammar's choice."""
    torch = pytest.importorskip("torch")
    texts = [*"0123456789", "}", ".", "12"]
    prompt = torch.zeros((3, 4), dtype=torch.long)
    mask = RelationMask(FACTS, texts)
    mask(prompt, torch.zeros((3, len(texts))))
    mask.rows[0].text = PATCH + '{"op":"remove","shot":'
    mask.rows[1].text = PATCH + '{"op":"trim","shot":1,"in_s":0.0,"out_s":'  # c2: 1.6 s
    mask.rows[2].text = PATCH + '{"op":"remove","shot":0},' * 3 + '{"op":"remove","shot":'
    grammar = torch.zeros((3, len(texts)))
    grammar[0, 11] = -math.inf  # the grammar's own mask stays
    written = torch.cat([prompt, torch.ones((3, 1), dtype=torch.long)], dim=1)  # "1"
    scores = mask(written, grammar)
    allowed = [torch.isfinite(row).nonzero().flatten().tolist() for row in scores]
    assert allowed[0] == [10]  # shot 1 of 0–2: it ends now
    assert allowed[1] == [10, 11]  # 1 s or 1.x s, never 10 s or more
    assert allowed[2] == list(range(len(texts)))  # an empty cut: nothing fits, nothing masked


def _task_with(facts: CutFacts) -> Task:
    clips = [
        Clip(id=cid, duration=frames, caption="", tags=frozenset(), orientation=LANDSCAPE)
        for cid, frames in facts.clip_frames.items()
    ]
    return make_task(clips, fps=facts.fps)


def _random_op(rng: random.Random) -> P.Op:
    index = lambda: rng.randint(0, 5)  # noqa: E731 - past the cut's end at times
    clip = rng.choice(["c1", "c2"])
    return rng.choice(
        [
            lambda: P.Insert(index(), clip, FrameRange(0, 10)),
            lambda: P.Remove(index()),
            lambda: P.Replace(index(), clip, FrameRange(0, 10)),
            lambda: P.Move(index(), index()),
            lambda: P.Swap(index(), index()),
        ]
    )()


def _wire(op: P.Op) -> dict[str, object]:
    from protocol.verifier.patch import op_payload

    return json.loads(json.dumps(op_payload(op, FPS)))


RELATIONAL = {"shot_out_of_range", "empty_range", "range_outside_clip", "bad_transition"}


def test_an_untrained_models_patches_and_drafts_keep_the_relations(tmp_path) -> None:
    """Sampled from random weights, no patch is rejected for a relation the mask holds
    and no drafted shot runs backwards or past its clip (so none needs fixing)."""
    pytest.importorskip("transformers")
    pytest.importorskip("xgrammar")
    from benchmarks.editbench import generate
    from protocol.verifier import TaskIn
    from services.planner.proposers import hf
    from services.planner.proposers.hf import HFProposer
    from services.planner.proposers.simple_draft import simple_draft
    from services.verifier.score import Verifier
    from tests.planner.proposers.tiny import build

    tasks = [TaskIn.model_validate(row["task"]).to_task() for row in generate(3, seed=7)]
    path = build(tmp_path / "ckpt", tasks)
    proposer = HFProposer(path, device="cpu")
    reasons = []
    for index, task in enumerate(tasks):
        timeline = simple_draft(task)
        report = Verifier(task).verify(timeline)
        for proposal in proposer.propose(task, timeline, report, n=8, seed=index):
            try:
                P.apply_patch(task, timeline, proposal.ops)
            except PatchRejected as error:
                reasons.append(error.reason)
        proposer.model_draft(task, seed=index, n=4)
    hf.clear_cache(path)
    assert proposer.report()["parsed"] == 24
    assert not RELATIONAL & set(reasons), reasons
    assert proposer.report()["draft_fixed_shots"] == 0
