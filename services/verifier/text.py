"""Word normalisation shared by relevance, coverage and topic matching."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    (
        "a an and are as at be by for from in into is it its of on onto or the then this to "
        "with s reel video clip clips shot shots end open opening closing start finish make show"
    ).split()
)


def normalise(word: str) -> str:
    """Lower-case and strip a plural ``s`` so "waves" meets "wave"."""
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """Content words of ``text``, normalised, stop words dropped (memoised: captions recur)."""
    return frozenset(
        normalise(word) for word in _WORD.findall(text.lower()) if word not in STOPWORDS
    )
