"""Shared wire types: strict models, every number bounded to what the domain allows.

Numbers and booleans are strict: a JSON ``false`` or ``"3"`` is no number, ``0`` is no
boolean (an integer such as ``30`` is still a valid float, and ``30.0`` a valid integer).
Times are finite, non-negative and at most :data:`MAX_SECONDS`, so every frame count
fits comfortably in 64 bits at any allowed frame rate.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, Strict

from protocol.common import Integral

MAX_SECONDS = 86_400.0
"""The longest time on the wire (24 h): clip and track lengths, offsets, in and out points."""
MAX_FPS = 240
MAX_COUNT = 100_000
"""The largest count or index on the wire (shot indices, ``min_count``, ``max_uses``...)."""
MAX_WEIGHT = 1_000.0
MAX_TOLERANCE_S = 10.0
"""The widest beat or downbeat tolerance: wider ones mean nothing against any beat grid."""
MAX_ITEMS = 100_000
"""The hard ceiling of a list on the wire; the services' own caps (settings) are lower."""
MAX_SMALL_ITEMS = 64
"""The ceiling of a short list: tags of a clip, coverage topics, allowed transition types."""
MAX_TEXT = 10_000
MAX_SHORT_TEXT = 2_000

Seconds = Annotated[float, Strict(), Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False)]
PositiveSeconds = Annotated[float, Strict(), Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
Tolerance = Annotated[float, Strict(), Field(ge=0, le=MAX_TOLERANCE_S, allow_inf_nan=False)]
Fraction = Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)]
Weight = Annotated[float, Strict(), Field(gt=0, le=MAX_WEIGHT, allow_inf_nan=False)]
Bpm = Annotated[float, Strict(), Field(gt=0, le=1_000, allow_inf_nan=False)]
Fps = Annotated[int, Strict(), Field(ge=1, le=MAX_FPS), Integral]
Count = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT), Integral]
PositiveCount = Annotated[int, Strict(), Field(ge=1, le=MAX_COUNT), Integral]
Id = Annotated[str, Field(min_length=1, max_length=200)]
Tag = Annotated[str, Field(max_length=200)]
ShortText = Annotated[str, Field(max_length=MAX_SHORT_TEXT)]


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
