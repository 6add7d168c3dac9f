"""Stage 3 by a language model under constrained decoding, as a generator's ``calls``.

:class:`ModelCalls` reads each query with a :class:`~services.synth.model_reader.ModelReader`:
the query under a compact listing of the candidate tools (and the day it is written on,
when the example pins one), answered with a JSON list of calls that xgrammar holds to the
candidates' schema. A refinement round (``previous`` and ``issues`` given) continues that
chat with the earlier answer and the check's issues (:func:`~services.synth.model_reader.
retry_messages`), so the feedback can change the answer. The pipeline hands stage 3 only
issues about the answer's form, which carry no ground-truth value; a misread goes back to
stage 2, and the model reads the new query afresh. Decoding is greedy: ``seed`` changes
nothing. Wrapped in a :class:`~services.synth.generators.staged.StagedGenerator`, it is
the stage 3 of a synth job whose ``reader`` names a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date

from services.synth.calls import Call, Issue, Tool
from services.synth.model_reader import ModelReader, prompt_messages, retry_messages

__all__ = ["ModelCalls", "ModelStats"]


@dataclass
class ModelStats:
    """What the model answered: every stage-3 round, those with feedback, those without a call."""

    answers: int = 0
    retries: int = 0
    no_call: int = 0

    def wire(self) -> dict[str, int]:
        return asdict(self)


class ModelCalls:
    """Stage 3 by ``reader``'s model (see the module doc)."""

    def __init__(self, reader: ModelReader) -> None:
        self.reader = reader
        self.stats = ModelStats()

    def calls(
        self,
        query: str,
        tools: Sequence[Tool],
        *,
        previous: tuple[Call, ...] | None = None,
        issues: Sequence[Issue] = (),
        seed: int = 0,
        reference: date | None = None,
    ) -> tuple[Call, ...]:
        if previous is not None and issues:
            messages = retry_messages(query, tools, previous, issues, reference=reference)
            self.stats.retries += 1
        else:
            messages = prompt_messages(query, tools, reference=reference)
        answer = self.reader.answer(messages, tools)
        self.stats.answers += 1
        self.stats.no_call += not answer
        return answer
