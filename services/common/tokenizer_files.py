"""A checkpoint's tokenizer, loaded as it was saved.

For some model types (``qwen2`` among them: the list is transformers'
``MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS``) transformers 5 picks the tokenizer class from
the model type, whatever ``tokenizer_config.json`` declares, and that class rebuilds the
pre-tokenizer and normaliser from its own defaults. A tokenizer trained here
(:mod:`services.trainer.tokenizer`: plain byte-level BPE, saved as ``TokenizersBackend``)
would then split text differently once loaded than it did in training: Qwen2's pattern
splits every number digit by digit, so each clip id, time and index in a prompt became
tokens the model never saw. A local checkpoint that declares the generic fast tokenizer is
therefore loaded as exactly that, its ``tokenizer.json`` as written; anything else goes
through ``AutoTokenizer``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["GENERIC_CLASSES", "load_tokenizer_files"]

GENERIC_CLASSES = frozenset({"TokenizersBackend", "PreTrainedTokenizerFast"})
"""``tokenizer_class`` values that mean "the tokenizer.json as it is"."""


def _declared_class(source: str) -> str | None:
    config = Path(source, "tokenizer_config.json")
    if not config.is_file():
        return None
    try:
        declared = json.loads(config.read_text()).get("tokenizer_class")
    except (OSError, ValueError, AttributeError):
        return None
    return declared if isinstance(declared, str) else None


def load_tokenizer_files(source: str, **kwargs: Any) -> Any:
    """The tokenizer at ``source`` (a directory or a hub id); ``kwargs`` go to
    ``from_pretrained``. Raises what ``from_pretrained`` raises."""
    if _declared_class(source) in GENERIC_CLASSES:
        from transformers import PreTrainedTokenizerFast

        return PreTrainedTokenizerFast.from_pretrained(source, **kwargs)
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(source, **kwargs)
