"""Shared wire types: strict models, seconds as finite non-negative numbers."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
PositiveSeconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Id = Annotated[str, Field(min_length=1, max_length=200)]


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
