"""Masking for the solver: quoted text, parentheses, timestamps, dates and times as tokens.

Once "March 14, 2026" or "Smith, Jones and Co" is one opaque token, commas and "and"s
left in the text separate arguments and nothing else. Tokens are private-use characters, so
no word, digit or sentence regex ever matches inside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.synth.surface import find_dates, find_times

__all__ = ["Masked", "mask"]

_KINDS = {"q": 0xE000, "p": 0xE002, "d": 0xE004, "t": 0xE006, "s": 0xE008}
_BASE = 0xE100
_QUOTE = re.compile(r'"([^"]*)"')
_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,]|\.\d)")
_PAREN = re.compile(r"\(([^()]*)\)")
_STAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:\d{2})?")
_TOKEN = {k: re.compile(f"{chr(o)}(.){chr(o + 1)}") for k, o in _KINDS.items()}
_ANY = re.compile("[\ue000\ue002\ue004\ue006\ue008](.)[\ue001\ue003\ue005\ue007\ue009]")


@dataclass
class Masked:
    """The masked text and, per token, the original span and its parsed value."""

    text: str = ""
    raw: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)

    def _add(self, kind: str, raw: str, value: str) -> str:
        self.raw.append(raw)
        self.values.append(value)
        start = _KINDS[kind]
        return f"{chr(start)}{chr(_BASE + len(self.raw) - 1)}{chr(start + 1)}"

    def _of(self, kind: str, text: str) -> list[str]:
        return [self.values[ord(m[1]) - _BASE] for m in _TOKEN[kind].finditer(text)]

    def quotes(self, text: str) -> list[str]:
        return self._of("q", text)

    def groups(self, text: str) -> list[str]:
        return self._of("p", text)

    def dates(self, text: str) -> list[str]:
        return self._of("d", text)

    def times(self, text: str) -> list[str]:
        return self._of("t", text)

    def stamps(self, text: str) -> list[str]:
        """ISO timestamps, or a date with a clock time ("May 3, 2026 at 09:30 UTC")."""
        stamps = self._of("s", text)
        dates, times = self.dates(text), self.times(text)
        if not stamps and dates and times:
            stamps = [f"{dates[0]}T{times[0]}:00Z"]
        return stamps

    def unmask(self, text: str) -> str:
        while _ANY.search(text):
            text = _ANY.sub(lambda m: self.raw[ord(m[1]) - _BASE], text)
        return text


def mask(query: str) -> Masked:
    masked = Masked()
    text = _QUOTE.sub(lambda m: masked._add("q", m[0], m[1]), query)
    text = _THOUSANDS.sub(lambda m: m[0].replace(",", ""), text)
    text = _STAMP.sub(lambda m: masked._add("s", m[0], m[0]), text)
    for kind, finder in (("d", find_dates), ("t", find_times)):
        spans = finder(text)
        for start, end, value in reversed(spans):
            text = text[:start] + masked._add(kind, text[start:end], value) + text[end:]
    while True:
        replaced = _PAREN.sub(lambda m: masked._add("p", m[0], m[1]), text)
        if replaced == text:
            break
        text = replaced
    masked.text = text
    return masked
