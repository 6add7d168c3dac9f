"""Stage 2 by drafts and a reader: the kept query is a passing draft the scorer reads best."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from services.synth.calls import GroundTruth
from services.synth.generators.ranked import RankedWriter
from services.synth.generators.template import TemplateGenerator
from services.synth.judge import NllJudge
from services.synth.pipeline import synthesize
from services.synth.query_check import check_query
from services.synth.sampling import Sampler
from tests.synth.test_pipeline import TRUTH, WEATHER


class _Length:
    """Scores a text by its length: the shortest reads "best". Records what it was shown."""

    def __init__(self) -> None:
        self.shown: list[list[str]] = []

    def scores(self, texts: Sequence[str]) -> list[float]:
        self.shown.append(list(texts))
        return [float(len(t)) for t in texts]


class _Drafts(TemplateGenerator):
    """A writer whose drafts are given by seed order (the template's answers for calls)."""

    def __init__(self, drafts: list[str]) -> None:
        self.drafts, self.seeds = drafts, []

    def query(self, truth: GroundTruth, **kwargs: Any) -> str:
        self.seeds.append(kwargs["seed"])
        return self.drafts[len(self.seeds) - 1]


def test_the_shortest_passing_draft_is_kept_and_failing_ones_are_never_shown() -> None:
    plain = TemplateGenerator().query(TRUTH, seed=1)
    assert check_query(plain, TRUTH).ok
    wrong = "What is the weather in Oslo?"  # names no ground-truth value
    writer = _Drafts([plain + " Thanks a lot!", wrong, plain, plain])
    scorer = _Length()
    ranked = RankedWriter(writer, scorer, candidates=4)
    assert ranked.query(TRUTH, seed=10) == plain
    assert len(set(writer.seeds)) == 4 and writer.seeds[0] == 10  # draft 0: the round's seed
    assert scorer.shown == [[plain + " Thanks a lot!", plain]]  # deduplicated, checked first
    assert ranked.stats.wire()["ranking"] == {"queries": 1, "drafts": 3, "passed": 2, "changed": 1}


def test_when_no_draft_passes_the_first_goes_back_for_refinement() -> None:
    scorer = _Length()
    ranked = RankedWriter(_Drafts(["Weather in Oslo?", "Weather in Rome?"]), scorer, candidates=2)
    assert ranked.query(TRUTH) == "Weather in Oslo?" and scorer.shown == []


def test_the_candidates_are_bounded() -> None:
    for bad in (0, 17):
        with pytest.raises(ValueError, match="candidates"):
            RankedWriter(TemplateGenerator(), _Length(), candidates=bad)


def test_the_pipeline_runs_a_ranked_writer_unchanged() -> None:
    ranked = RankedWriter(TemplateGenerator(), _Length(), candidates=4)
    sampler = Sampler([WEATHER], seed=3, mix={"simple": 1})
    outcomes = [synthesize(sampler.sample(), ranked, seed=i) for i in range(6)]
    assert sum(o.accepted for o in outcomes) >= 5
    plain = [synthesize(o.truth, TemplateGenerator(), seed=i) for i, o in enumerate(outcomes)]
    assert sum(len(o.query) for o in outcomes) <= sum(len(o.query) for o in plain)
    assert ranked.name == "template+ranked"


@pytest.mark.real_model
def test_the_real_base_keeps_the_more_natural_of_two_passing_drafts(real_base: Any) -> None:
    plain = TemplateGenerator().query(TRUTH, seed=1)
    garbled = " ".join(reversed(plain.split()))
    assert check_query(garbled, TRUTH).ok
    judge = NllJudge(data_dir=real_base.path.parent.parent, batch_size=2)
    ranked = RankedWriter(_Drafts([garbled, plain]), judge, candidates=2)
    assert ranked.query(TRUTH) == plain
