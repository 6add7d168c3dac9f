"""One generator's queries with another reader's calls: the pipeline runs it unchanged."""

from __future__ import annotations

from typing import Any

from services.synth.generators.base import Generator
from services.synth.generators.staged import StagedGenerator
from services.synth.generators.template import TemplateGenerator
from services.synth.pipeline import synthesize
from services.synth.sampling import Sampler
from tests.synth.test_pipeline import TRUTH, WEATHER


class _Counting(TemplateGenerator):
    """The rule reader, counting its answers and what it was passed."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.closed = False

    def calls(self, query: str, tools: Any, **kwargs: Any) -> Any:
        self.seen.append({"query": query, **kwargs})
        return super().calls(query, tools, **kwargs)

    def close(self) -> None:
        self.closed = True


class _WithStats(TemplateGenerator):
    class _Stats:
        def wire(self) -> dict[str, int]:
            return {"requests": 3}

    stats = _Stats()


def test_queries_come_from_the_writer_and_calls_from_the_reader() -> None:
    reader = _Counting()
    staged = StagedGenerator(TemplateGenerator(), reader, reader_name="rules")
    assert isinstance(staged, Generator) and staged.name == "template+rules"
    query = staged.query(TRUTH, seed=4)
    assert query == TemplateGenerator().query(TRUTH, seed=4)
    calls = staged.calls(query, [WEATHER], seed=4)
    assert calls == TemplateGenerator().calls(query, [WEATHER])
    assert reader.seen == [
        {"query": query, "previous": None, "issues": (), "seed": 4, "reference": None}
    ]


def test_the_trace_names_the_reader_of_every_stage_3_round() -> None:
    sampler = Sampler([WEATHER], seed=2, mix={"simple": 1})
    for i in range(5):
        truth = sampler.sample()
        alone = synthesize(truth, TemplateGenerator(), seed=i)
        staged = synthesize(
            truth, StagedGenerator(TemplateGenerator(), _Counting(), reader_name="rules"), seed=i
        )
        assert staged.accepted == alone.accepted and staged.calls == alone.calls
        answers = [entry for entry in staged.trace if entry["stage"] == "calls"]
        assert answers and all(entry["reader"] == "rules" for entry in answers)
        assert all("reader" not in entry for entry in staged.trace if entry["stage"] != "calls")
        assert [{k: v for k, v in e.items() if k != "reader"} for e in staged.trace] == alone.trace


def test_stats_join_the_writers_and_the_readers_and_close_reaches_both() -> None:
    reader = _Counting()
    staged = StagedGenerator(_WithStats(), reader, reader_name="rules")
    assert staged.stats.wire() == {"requests": 3}
    staged.close()
    assert reader.closed
