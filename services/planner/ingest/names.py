"""The words of a media file's name, for a caption when nothing better describes the shot.

Camera counters (``IMG_2041``, ``DSC01234``, ``GOPR0042``, ``PXL_20240601_101500``) say
nothing of the picture and are dropped; delimiters (``_``, ``-``, ``.``, spaces), digits and
camelCase split words; a run-together word (``bigbuckbunny``) is split with
``wordsegment``'s English unigram model (Norvig's segmenter) unless the model knows it whole
(``flyover`` stays). Pure, apart from loading that model once.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["name_words"]

_COUNTER = re.compile(
    r"(?<![A-Za-z])(?:IMG|DSC[NF]?|DCIM|GOPR|GP|G[HX]\d\d|DJI|MVI|VID|PXL|MOV|SAM|WP|P)"
    r"[_-]?\d[\d_-]*",
    re.IGNORECASE,
)
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_RUN_TOGETHER = 6
"""Words at least this long are offered to the segmenter (shorter ones are kept whole)."""


@cache
def _model():
    import wordsegment

    wordsegment.load()
    return wordsegment


def name_words(stem: str) -> list[str]:
    """``"bigbuckbunny"`` → big buck bunny; ``"surf_day2-wave03"`` → surf day wave;
    ``"IMG_2041"`` → nothing; ``"beachSunsetWide"`` → beach sunset wide."""
    words: list[str] = []
    for part in _PART.findall(_COUNTER.sub(" ", stem)):
        word = part.lower()
        if len(word) >= _RUN_TOGETHER:
            words.extend(_split(word))
        else:
            words.append(word)
    return [w for w in words if len(w) > 1]


def _split(word: str) -> list[str]:
    """The segmenter's words, unless the word is known whole or the segmenter breaks off
    single letters."""
    model = _model()
    if word in model.UNIGRAMS:
        return [word]
    parts = model.segment(word)
    if len(parts) > 1 and all(len(p) > 1 for p in parts):
        return parts
    return [word]
