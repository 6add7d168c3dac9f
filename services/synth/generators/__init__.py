"""Generators write stage 2 (the user's query) and stage 3 (the calls) of the ToolLoop.

``template`` is deterministic and needs no model; ``llm`` asks an OpenAI-compatible endpoint.
Both satisfy :class:`~services.synth.generators.base.Generator`.
"""

from services.synth.generators.base import Generator

__all__ = ["Generator"]
