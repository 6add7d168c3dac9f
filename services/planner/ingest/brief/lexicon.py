"""Words of a brief → the pool's own tags and clips: stems, numbers, a small synonym table.

A word meets a tag when their stems agree (:func:`stem` folds plurals, ``-ing``/``-er``
forms, hyphens and accents, so "surfing" meets ``surfer`` and "close-ups" ``closeup``), when
two adjacent words written together make a tag ("living room" → ``livingroom``), or through
:data:`SYNONYMS` ("slow-motion" → ``slowmo``). A word no tag holds may still be in captions;
then it selects the clips whose caption says it. Pure; no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["Vocabulary", "Word", "number", "stem", "words"]

_WORD = re.compile(r"[A-Za-z0-9\u00C0-\u024F]+(?:[-'’][A-Za-z0-9\u00C0-\u024F]+)*")

#: Stem → stems it may also mean (both sides are stems); British spellings, trade words.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "slowmotion": ("slowmo",),
    "slomo": ("slowmo",),
    "colour": ("color",),
    "crossfade": ("dissolv",),
    "speech": ("toast", "speech"),
    "toast": ("speech", "toast"),
    "behindthescene": ("bts",),
    "bt": ("bts",),
    "aerial": ("drone", "aerial"),
    "drone": ("drone", "aerial"),
    "fan": ("crowd", "fan"),
    "audience": ("crowd", "audience"),
    "grownup": ("adult", "parent"),
    "adult": ("adult", "parent"),
    "gift": ("present", "gift"),
    "facepaint": ("facepaint",),
    "lift": ("lift", "deadlift"),
    "weight": ("lift",),
    "workout": ("gym",),
    "meal": ("food",),
    "dish": ("dish", "plate"),
    "landmark": ("landmark", "templ"),
    "sightsee": ("landmark",),
    "ocean": ("ocean", "sea"),
    "sea": ("ocean", "sea"),
    "doggo": ("dog",),
    "pup": ("dog",),
    "puppy": ("dog",),
    "kiddo": ("kid",),
    "child": ("kid",),
    "children": ("kid",),
    "closeup": ("closeup", "macro"),
    "macro": ("macro", "closeup"),
}

#: Words that carry no subject: a phrase made only of these maps to nothing and is no loss.
FILLER = frozenset(
    (
        "a an the of in on at to for from with into onto and or but this that these those it its "
        "some any all every each one ones shot shots clip clips footage stuff bit bits part parts "
        "moment moments scene scenes thing things piece video reel edit cut version please just "
        "also too really very bit somewhere middle in-between between there here them our my "
        "their his her your we i you me us they be is are was were has have had should must "
        "can could would will need needs want wants like make makes made get got give let s "
        "definitely maybe actually ok okay fine so then first last end start only format mode "
        "orientation keep put together if otherwise something anything "
        "i'd we'd i'm it's that's let's"
    ).split()
)

_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "an": 1, "single": 1, "once": 1,
    "twice": 2, "half": 0.5,
}  # fmt: skip


def number(text: str) -> float | None:
    """``"12"``, ``"1.5"``, ``"twelve"``, ``"twenty-five"``, ``"a"`` → the number (else None)."""
    text = text.strip().lower()
    try:
        return float(text)
    except ValueError:
        pass
    parts = re.split(r"[-\s]+", text)
    if not parts or any(part not in _NUMBERS for part in parts):
        return None
    if len(parts) == 2 and _NUMBERS[parts[0]] >= 20 and _NUMBERS[parts[1]] < 10:
        return float(_NUMBERS[parts[0]] + _NUMBERS[parts[1]])
    return float(_NUMBERS[parts[0]]) if len(parts) == 1 else None


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if ch.isalnum())


def stem(word: str) -> str:
    """A crude, symmetric stem: "Surfing" / "surfer" / "surfers" → ``surf``; "close-ups" →
    ``closeup``; "piñatas" → ``pinata``; "parties" / "party" → ``parti``."""
    w = _fold(word.replace("’s", "").replace("'s", ""))
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "i"
    elif re.search(r"(ch|sh|x|ss)es$", w):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "er", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou":
                w = w[:-1]  # running → run, snorkelling → snorkel
            break
    if w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    if w.endswith("ie"):
        w = w[:-1]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


@dataclass(frozen=True, slots=True)
class Word:
    """One word of the brief: its text, where it lies, its stem."""

    text: str
    start: int
    end: int

    @property
    def stem(self) -> str:
        return stem(self.text)

    @property
    def filler(self) -> bool:
        return self.text.lower() in FILLER or number(self.text) is not None


def words(text: str, offset: int = 0) -> list[Word]:
    """The words of ``text`` with their character spans (shifted by ``offset``)."""
    return [Word(m.group(), m.start() + offset, m.end() + offset) for m in _WORD.finditer(text)]


@dataclass(frozen=True, slots=True)
class Match:
    """Words of a phrase that name clips: the clips and the words' span."""

    clips: frozenset[str]
    tags: tuple[str, ...]
    start: int
    end: int


@dataclass
class Vocabulary:
    """The pool's tags and caption words, by stem, with the clips that carry each."""

    tag_clips: dict[str, set[str]] = field(default_factory=dict)
    tag_stems: dict[str, set[str]] = field(default_factory=dict)
    caption_clips: dict[str, set[str]] = field(default_factory=dict)
    all_clips: frozenset[str] = frozenset()
    durations: dict[str, float] = field(default_factory=dict)

    @classmethod
    def build(cls, clips: Iterable[tuple[str, str, Sequence[str]]]) -> Vocabulary:
        """From ``(id, caption, tags)`` triples."""
        vocabulary = cls()
        ids = []
        for clip_id, caption, tags in clips:
            ids.append(clip_id)
            for tag in tags:
                tag = tag.lower()
                vocabulary.tag_clips.setdefault(tag, set()).add(clip_id)
                vocabulary.tag_stems.setdefault(stem(tag), set()).add(tag)
            for word in words(caption):
                if word.text.lower() not in FILLER:
                    vocabulary.caption_clips.setdefault(word.stem, set()).add(clip_id)
        vocabulary.all_clips = frozenset(ids)
        return vocabulary

    def tags_for(self, key: str) -> set[str]:
        """The pool's tags for one stem, directly or through a synonym."""
        found = set(self.tag_stems.get(key, ()))
        for other in SYNONYMS.get(key, ()):
            found |= self.tag_stems.get(other, set())
        return found

    def clips_for(self, key: str) -> tuple[frozenset[str], tuple[str, ...]]:
        """Clips a stem names (by tag first, else by caption) and the tags it met."""
        tags = self.tags_for(key)
        if tags:
            clips = set().union(*(self.tag_clips[tag] for tag in tags))
            return frozenset(clips), tuple(sorted(tags))
        keys = (key, *SYNONYMS.get(key, ()))
        clips = set().union(*(self.caption_clips.get(k, set()) for k in keys))
        return frozenset(clips), ()

    def match(self, phrase: Sequence[Word]) -> list[Match]:
        """Each run of words in ``phrase`` that names clips (two words joined first)."""
        found: list[Match] = []
        index = 0
        while index < len(phrase):
            word = phrase[index]
            if index + 1 < len(phrase):
                joined = stem(word.text + phrase[index + 1].text)
                clips, tags = self.clips_for(joined)
                if clips and (tags or joined in self.caption_clips):
                    found.append(Match(clips, tags, word.start, phrase[index + 1].end))
                    index += 2
                    continue
            listed = index == 0 or phrase[index - 1].text.lower() in ("or", "and", "&")
            if not word.filler or (listed and word.text.lower() in self.tag_clips):
                clips, tags = self.clips_for(word.stem)
                if clips:
                    found.append(Match(clips, tags, word.start, word.end))
            index += 1
        return found

    def tags_exactly(self, clips: frozenset[str]) -> list[str]:
        """The tags whose clips are exactly ``clips`` (empty when none is)."""
        return sorted(tag for tag, owners in self.tag_clips.items() if owners == clips)
