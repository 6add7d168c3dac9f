"""How numbers are written: digits with a currency, a unit, a percent sign, a scale word or
an exponent, a power of ten written out, a height in feet and inches, a rating out of 5 or
10, number words ("twenty-five", "two hundred"); and the values they say."""

from __future__ import annotations

import re

_NUM_WORDS = {
    w: i
    for i, w in enumerate(
        (
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        ).split()
    )
}
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
_SCALE = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER = re.compile(
    r"(?<![\w.^/])(?P<cur>[$€£])?\s?(?P<num>-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e-?\d+)?)"
    r"(?P<short>(?(cur)(?-i:[KMB])(?![A-Za-z])|(?!)))?"
    r"(?P<pct>\s?%|\s?percent)?(?:\s(?P<scale>thousand|million|billion)\b)?"
    r"(?P<unit>(?:cm|mm|km|kg|mg|lbs?|ft|ml|m|g|s|ms|h|hrs?|min|K|°[CF]?|[µu]F|mH|Hz|kHz|MHz|GHz|"
    r"mV|V|mA|A|kW|W|kJ|J|N|kPa|Pa|atm|mph)[²³]?(?![A-Za-z]))?(?![\w/]|-[\w]*\d|\.\d)",
    re.I,
)
_SPELLED = re.compile(
    r"\b(?:(?:"
    + "|".join([*_NUM_WORDS, *_TENS])
    + r")(?:[\s-](?:"
    + "|".join(_NUM_WORDS)
    + r"))?)(?:\s(?:hundred|thousand|million))?\b(?!-)",
    re.I,
)


_POWER_OF_TEN = re.compile(r"(?<![\w.^/])(-?\d+(?:\.\d+)?)\s*[x×*]\s*10\s*\^\s*\(?([-+]?\d+)\)?")
"""A number in scientific notation as written out ("8.854 x 10^-12", "3 × 10^8")."""


_FEET_INCHES = re.compile(
    r"\b(\d)\s*(?:feet|foot|ft\.?|')\s*(?:and\s+)?(\d{1,2})\s*(?:inches|inch|in\b\.?|\"|'')"
)


_RATING = re.compile(
    r"(?<!\bon )(?<!\bby )(?<!\buntil )(?<!\bfrom )(?<![\w./])"
    r"(\d{1,2}(?:\.\d+)?)\s*/\s*(5|10)(?![\w/.]|\.\d)",
    re.I,
)
"""A rating out of 5 or 10 ("above 4/5", "8.5/10"): the rating itself ("on 3/10" is a
day)."""


def _spelled(text: str) -> float:
    total, current = 0, 0
    for word in re.split(r"[\s-]+", text.lower()):
        if word in _NUM_WORDS:
            current += _NUM_WORDS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALE:
            total, current = total + max(current, 1) * _SCALE[word], 0
    return float(total + current)


def _number(m: re.Match[str]) -> float:
    value = float(m["num"].replace(",", ""))
    scale = (m["scale"] or "").lower()
    if m["short"]:  # "$1.2M", "$300K" (after a currency sign only: "300K" is Kelvin)
        scale = {"K": "thousand", "M": "million", "B": "billion"}[m["short"]]
    return value * {"thousand": 1000, "million": 1e6, "billion": 1e9}.get(scale, 1)
