"""``no_reuse`` at scale: the sweep agrees with the quadratic definition it replaced, and a
timeline of thousands of shots of one clip is judged with a bounded message."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.verifier import ledger as L
from services.verifier.score import Verifier
from services.verifier.timeline import FrameRange
from services.verifier.view import TimelineView
from tests.verifier.factories import clip, evaluate, make_task, shot, timeline


def quadratic_no_reuse(rule: L.NoReuse, view: TimelineView) -> L.Outcome:
    """The former implementation, pair by pair: the reference for the sweep."""
    shots = view.shots
    if len(view.clip_ids) == len(shots):
        return L.MET
    uses = Counter(shot.clip_id for shot in shots)
    excess = sum(n - rule.max_uses for n in uses.values() if n > rule.max_uses)
    overlaps: list[tuple[int, int]] = []
    for a in range(len(shots)):
        if uses[shots[a].clip_id] < 2:
            continue
        for b in range(a + 1, len(shots)):
            if shots[a].clip_id == shots[b].clip_id and shots[a].source.overlaps(shots[b].source):
                overlaps.append((a, b))
    violation = excess + len(overlaps)
    if violation == 0:
        return L.MET
    parts = [
        f"clip {clip} is used {n} times (max {rule.max_uses})"
        for clip, n in sorted(uses.items())
        if n > rule.max_uses
    ]
    parts += [f"shots {a} and {b} overlap in {shots[a].clip_id}'s source" for a, b in overlaps]
    message = "; ".join(parts[:4]) + ": replace the repeats with unused clips"
    return L.Outcome(False, max(0.0, 1.0 - violation / len(shots)), float(violation), message)


L_SUFFIX = ": replace the repeats with unused clips"
CLIPS = ("a", "b", "c", "ghost")
TASK = make_task([clip("a", 4), clip("b", 4), clip("c", 4)])
ranges = st.tuples(st.integers(-3, 100), st.integers(-3, 100))
shots = st.lists(st.tuples(st.sampled_from(CLIPS), ranges), max_size=12)


@settings(max_examples=400, deadline=None)
@given(specs=shots, max_uses=st.integers(1, 3))
def test_the_sweep_agrees_with_the_pairwise_reference(specs, max_uses: int) -> None:
    tl = timeline(*(shot(cid, start, end) for cid, (start, end) in specs))
    rule = L.NoReuse(id="L", max_uses=max_uses)
    view = Verifier(TASK).view(tl)
    new, old = rule.evaluate(view), quadratic_no_reuse(rule, view)
    assert (new.satisfied, new.score, new.violation) == (old.satisfied, old.score, old.violation)
    if new.message is None or old.message is None:
        assert new.message == old.message
        return
    problems = _problem_count(rule, view)
    if problems <= 4:  # up to four problems the message is the same, word for word
        assert new.message == old.message
    else:  # past four it names the same first four and how many more there are
        assert new.message.startswith(old.message.removesuffix(L_SUFFIX))
        assert f"(+{problems - 4} more)" in new.message


def _problem_count(rule: L.NoReuse, view: TimelineView) -> int:
    """Clips used too often plus overlapping pairs: the parts the message could list."""
    uses = Counter(view.ids)
    over = sum(1 for n in uses.values() if n > rule.max_uses)
    groups: dict[str, list[FrameRange]] = {}
    for i, cid in enumerate(view.ids):
        groups.setdefault(cid, []).append(view.shots[i].source)
    pairs = sum(
        1 for ranges_ in groups.values() for p, q in combinations(ranges_, 2) if p.overlaps(q)
    )
    return over + pairs


@given(st.lists(ranges, max_size=30))
def test_overlapping_pairs_counts_what_overlaps_says(spans) -> None:
    frames = [FrameRange(start, end) for start, end in spans]
    expected = sum(1 for p, q in combinations(frames, 2) if p.overlaps(q))
    assert L.overlapping_pairs(frames) == expected


def test_ten_thousand_copies_of_one_shot_are_counted_not_listed() -> None:
    n = 10_000
    task = make_task([clip("c01", 8)])
    tl = timeline(*[shot("c01", 0, 30)] * n)
    outcome = evaluate(L.NoReuse(id="L"), task, tl)
    pairs = n * (n - 1) // 2
    assert outcome.violation == (n - 1) + pairs
    assert not outcome.satisfied and outcome.score == 0.0
    assert outcome.message is not None and len(outcome.message) < 400
    assert "shots 0 and 1 overlap in c01's source" in outcome.message
    assert f"(+{1 + pairs - 4} more)" in outcome.message


def test_disjoint_reuse_is_only_excess() -> None:
    task = make_task([clip("c01", 100)])
    tl = timeline(*(shot("c01", 30 * i, 30 * i + 30) for i in range(50)))
    outcome = evaluate(L.NoReuse(id="L"), task, tl)
    assert outcome.violation == 49
    assert outcome.message == (
        "clip c01 is used 50 times (max 1): replace the repeats with unused clips"
    )
