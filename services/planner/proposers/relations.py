"""The relations a JSON schema cannot hold, masked while a local checkpoint decodes.

The narrowed schemas (:mod:`~services.planner.proposers.schemas`) bound every number on its
own. Some checks of the verifier relate one number to others, so a schema cannot express
them and a student's answer can still be rejected for them:

- a shot index must exist in the cut *as the patch's own earlier ops left it* (an ``insert``
  adds a shot, a ``remove`` takes one away, a ``trim`` is bounded by the clip its shot holds);
- a source range needs ``in < out`` in frames (``to_frames``, round half to even), inside
  the clip it names;
- a transition lasts 0 frames if it is a cut and at least 1 otherwise (so a dissolve or a
  fade cannot leave its ``duration_s`` out); ``fit_duration`` aims at 1 frame or more;
- once a patch has removed every shot, only an op that needs none (an ``insert``, the
  music) can follow.

:class:`RelationMask` runs after the grammar's logits processor: for every row it follows the
text written so far, and while a number of one of these fields is being written it keeps
only the tokens that can still end in a valid value. Nothing is masked when no token would
remain (the grammar alone then decides), so the mask never leaves a row without a choice.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.planner.proposers.schemas import SHOT_FIELDS
from services.verifier.task import Task
from services.verifier.timeline import Timeline, to_frames

__all__ = ["Bound", "CutFacts", "RelationMask", "bound_for", "viable"]

NUMBER_CHARS = frozenset("-+.0123456789eE")
FRACTION_DIGITS = 6
"""Decimals the grammar writes in a bounded number (xgrammar 0.2: six)."""
_PENDING = re.compile(r'"(\w+)":([-+.0-9eE]*)$')
_FIELD = re.compile(r'"(\w+)":("(?:[^"\\]|\\.)*"|[^,{}\[\]]*)')
_OBJECT = re.compile(r"\{[^{}]*\}")
_OPS = '"ops":['
TAIL = 96
SHOTLESS_OPS = ("insert", "set_music", "snap_to_beats")
_OP_HEAD = '{"op":"'
_OP_NAME = re.compile(r'\{"op":"(\w*)(")?')
_NAMED = re.compile(r'\{"op":"\w+"')
_TRANSITION_TYPE = re.compile(r'"op":"set_transition","shot":\d+,"type":"\w*"?$')
_SHUT_TRANSITION = re.compile(r'"type":"(?!cut")\w+"\}')


@dataclass(frozen=True, slots=True)
class CutFacts:
    """What the relations need: the pool's clip lengths (frames), the fps, and, for a patch,
    the clip of each shot of the cut it edits (``None`` for a first cut)."""

    fps: int
    clip_frames: Mapping[str, int]
    shots: tuple[str, ...] | None = None

    @classmethod
    def of(cls, task: Task, timeline: Timeline | None = None) -> CutFacts:
        frames = {clip_id: clip.duration for clip_id, clip in task.clips.items()}
        shots = None if timeline is None else tuple(shot.clip_id for shot in timeline.shots)
        return cls(task.fps, frames, shots)


@dataclass(frozen=True, slots=True)
class Bound:
    """The values a field may take: ``lo``–``hi`` bound what a prefix can still reach;
    ``accepts`` judges a written number exactly."""

    lo: float
    hi: float
    integer: bool
    accepts: Callable[[float], bool]

    @classmethod
    def index(cls, lo: int, hi: int) -> Bound:
        return cls(lo, hi, True, lambda value: lo <= value <= hi and value == int(value))

    @classmethod
    def frames(cls, lo: int, hi: float, fps: int) -> Bound:
        """Seconds whose frame (round half to even) lies in ``lo``–``hi``."""
        return cls((lo - 0.5) / fps, hi / fps, False, lambda s: lo <= to_frames(s, fps) <= hi)


def viable(prefix: str, bound: Bound) -> bool:
    """Whether some JSON number starting with ``prefix`` (with at most
    :data:`FRACTION_DIGITS` decimals) lies within ``bound``'s range (an exponent or a sign
    is left to the grammar)."""
    if not prefix or any(c in "-+eE" for c in prefix):
        return True
    whole, dot, fraction = prefix.partition(".")
    if dot:
        base = float(f"{whole}.{fraction or '0'}")
        if len(fraction) >= FRACTION_DIGITS:
            return bound.accepts(base)
        top = base + 10.0 ** -len(fraction) - 10.0**-FRACTION_DIGITS
        return base <= bound.hi and top > bound.lo
    value = int(whole)
    if value == 0:
        return bound.lo <= (0 if bound.integer else 1) and bound.hi >= 0
    scale = 1
    while value * scale <= bound.hi:
        top = (value + 1) * scale - (1 if bound.integer else 0)
        if top >= bound.lo if bound.integer else top > bound.lo:
            return True
        scale *= 10
    return False


def allows(prefix: str, piece: str, bound: Bound) -> bool:
    """Whether appending token text ``piece`` to number ``prefix`` keeps it within ``bound``:
    still a viable prefix, or a finished number ``bound`` accepts."""
    text = prefix + piece
    end = next((i for i in range(len(prefix), len(text)) if text[i] not in NUMBER_CHARS), None)
    if end is None:
        return viable(text, bound)
    try:
        return bound.accepts(float(text[:end]))
    except ValueError:
        return True  # not a number: the grammar's to judge


def bound_for(
    field: str, fields: Mapping[str, Any], shots: Sequence[str] | None, facts: CutFacts
) -> Bound | None:
    """The bound of ``field`` in an op or shot whose earlier ``fields`` are written, over the
    cut ``shots`` as the earlier ops left it; None when the relations say nothing."""
    if field in SHOT_FIELDS:
        if shots is None or "op" not in fields:
            return None
        return Bound.index(0, len(shots) if field == "at" else len(shots) - 1)
    if field == "target_s":
        return Bound.frames(1, math.inf, facts.fps)
    if field == "duration_s" and "type" in fields:  # a cut lasts 0 frames, the others ≥ 1
        cut = fields["type"] == "cut"
        return Bound.frames(0 if cut else 1, 0 if cut else math.inf, facts.fps)
    if field not in ("in_s", "out_s"):
        return None
    clip_id = fields.get("clip_id")
    if clip_id is None and fields.get("op") == "trim" and shots is not None:
        shot = fields.get("shot")
        clip_id = shots[shot] if isinstance(shot, int) and 0 <= shot < len(shots) else None
    frames = facts.clip_frames.get(clip_id) if isinstance(clip_id, str) else None
    if frames is None:
        return None
    if field == "in_s":
        return Bound.frames(0, frames - 1, facts.fps)
    start = fields.get("in_s")
    first = to_frames(start, facts.fps) + 1 if isinstance(start, (int, float)) else 1
    return Bound.frames(first, frames, facts.fps)


def edited_shots(shots: Sequence[str], ops: Sequence[Mapping[str, Any]]) -> list[str] | None:
    """The clip of each shot after ``ops`` (their shot effects only); None once an op names
    a shot that is not there."""
    cut = list(shots)
    try:
        for op in ops:
            kind = op.get("op")
            if kind == "insert":
                if not 0 <= op["at"] <= len(cut):
                    return None
                cut.insert(op["at"], op["clip_id"])
            elif kind == "remove":
                del cut[_at(cut, op["shot"])]
            elif kind == "replace":
                cut[_at(cut, op["shot"])] = op["clip_id"]
            elif kind == "move":
                source, target = _at(cut, op["from"]), _at(cut, op["to"])
                cut.insert(target, cut.pop(source))
            elif kind == "swap":
                a, b = _at(cut, op["a"]), _at(cut, op["b"])
                cut[a], cut[b] = cut[b], cut[a]
    except (KeyError, IndexError, TypeError):
        return None
    return cut


def _at(cut: Sequence[str], index: Any) -> int:
    if not isinstance(index, int) or not 0 <= index < len(cut):
        raise IndexError(index)
    return index


def _shotless(head: str) -> bool:
    """Whether an op that begins ``head`` can still be one that needs no shot."""
    match = _OP_NAME.match(head)
    if match is None:
        return True  # not an op's name yet: the grammar's to judge
    name, closed = match.groups()
    if closed:
        return name in SHOTLESS_OPS
    return any(op.startswith(name) for op in SHOTLESS_OPS)


def _fields(text: str) -> dict[str, Any]:
    """The finished ``"key":value`` pairs of a flat object's text (unreadable values skipped)."""
    fields: dict[str, Any] = {}
    for key, raw in _FIELD.findall(text):
        try:
            fields[key] = json.loads(raw)
        except ValueError:
            continue
    return fields


class RowState:
    """One row's answer so far and the cut its finished ops left."""

    def __init__(self, facts: CutFacts) -> None:
        self.facts = facts
        self.text = ""
        self._done: tuple[int, list[str] | None] = (0, list(facts.shots or ()))

    def pending(self) -> Callable[[str], bool] | None:
        """Which token texts may come next, when the relations restrict them: the digits of
        a bounded number, anything but the end of a transition that needs a duration, or an
        op that needs no shot once the patch has removed them all."""
        text = self.text
        tail = max(0, len(text) - TAIL)  # what the patterns can span
        transition = _TRANSITION_TYPE.search(text, tail)
        if transition:
            written = text[transition.start() :]
            return lambda piece: not _SHUT_TRANSITION.search(written + piece)
        start = text.rfind("{")
        match = _PENDING.search(text, tail)
        if match is None:
            return self._op_name(start)
        fields = _fields(text[start : match.start()])
        bound = bound_for(match.group(1), fields, self._cut(start), self.facts)
        if bound is None:
            return None
        prefix = match.group(2)
        return lambda piece: allows(prefix, piece, bound)

    def _op_name(self, start: int) -> Callable[[str], bool] | None:
        """While an op's name is written on an empty cut: only the ops that need no shot."""
        head = self.text[start:]
        if start < 0 or len(head) > len(_OP_HEAD) + 16 or _NAMED.match(head):
            return None
        if self._cut(start) != []:
            return None
        return lambda piece: _shotless(head + piece)

    def _cut(self, start: int) -> list[str] | None:
        """The cut before the op opened at ``start`` (None for a first cut)."""
        if self.facts.shots is None:
            return None
        ops_at = self.text.find(_OPS)
        if ops_at < 0:
            return None
        finished = _OBJECT.findall(self.text, ops_at, start)
        if len(finished) != self._done[0]:
            ops = [_fields(op) for op in finished]
            self._done = (len(finished), edited_shots(self.facts.shots, ops))
        return self._done[1]


class RelationMask:
    """A ``generate`` logits processor (after the grammar's) that masks the relational
    errors above, one :class:`RowState` per returned sequence."""

    def __init__(self, facts: CutFacts, token_texts: Sequence[str]) -> None:
        self.facts = facts
        self.token_texts = token_texts
        self.rows: list[RowState] = []
        self._started = False

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if not self._started:  # the first call sees the prompt alone
            self._started = True
            self.rows = [RowState(self.facts) for _ in range(input_ids.shape[0])]
        else:
            for row, token in zip(self.rows, input_ids[:, -1].tolist(), strict=True):
                row.text += self.token_texts[token] if token < len(self.token_texts) else ""
        for i, row in enumerate(self.rows):
            allowed = row.pending()
            if allowed is not None:
                self._mask(scores[i], allowed)
        return scores

    def _mask(self, row_scores: Any, allowed: Callable[[str], bool]) -> None:
        import torch

        candidates = torch.isfinite(row_scores).nonzero().flatten().tolist()
        texts = self.token_texts
        keep = [t for t in candidates if t < len(texts) and allowed(texts[t])]
        if keep and len(keep) < len(candidates):
            kept = row_scores[keep].clone()
            row_scores.fill_(-math.inf)
            row_scores[keep] = kept
