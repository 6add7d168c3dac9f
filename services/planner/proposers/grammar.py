"""Constrained decoding for local checkpoints: a JSON schema as a logits processor (xgrammar).

xgrammar (the engine vLLM uses for structured outputs) compiles a JSON schema against the
checkpoint's vocabulary once; each ``generate`` call then gets a fresh logits processor that
masks, at every step and for every sampled row, the tokens the schema does not allow next.
The answer is therefore JSON of that schema, keys in the schema's order, with no free
whitespace and the separators the caller names: compact ``,`` and ``:`` by default (the text
:func:`~services.planner.proposers.prompting.patch_text` writes for training), unless
``max_new_tokens`` cuts it first.

The compiler belongs to the loaded model (one per tokenizer); compiled grammars are cached by
the compiler, keyed on the schema text.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

__all__ = ["SEPARATORS", "GrammarDecoder", "available"]

SEPARATORS = (",", ":")


def available() -> bool:
    """Whether xgrammar imports (``pip install 'refinery[trainer]'``)."""
    try:
        import xgrammar  # noqa: F401
    except ImportError:
        return False
    return True


class GrammarDecoder:
    """Schema-constrained logits processors for one tokenizer and vocabulary size."""

    def __init__(self, tokenizer: Any, vocab_size: int) -> None:
        import xgrammar as xgr

        stop = tokenizer.eos_token_id
        info = xgr.TokenizerInfo.from_huggingface(
            tokenizer, vocab_size=vocab_size, stop_token_ids=None if stop is None else [stop]
        )
        self._info = info
        self._compiler = xgr.GrammarCompiler(info)
        self._lock = threading.Lock()
        self._token_texts: list[str] | None = None

    @property
    def token_texts(self) -> list[str]:
        """Each token id's text as the grammar reads it (built once)."""
        if self._token_texts is None:
            vocab = self._info.decoded_vocab
            self._token_texts = [piece.decode("utf-8", "replace") for piece in vocab]
        return self._token_texts

    def compile(self, schema: dict[str, Any], *, separators: tuple[str, str] = SEPARATORS) -> Any:
        """The compiled grammar of ``schema`` written with ``separators`` (cached by the
        compiler)."""
        text = json.dumps(schema, sort_keys=False, separators=SEPARATORS)
        with self._lock:
            return self._compiler.compile_json_schema(
                text, any_whitespace=False, separators=separators, strict_mode=True
            )

    def processor(self, schema: dict[str, Any]) -> Any:
        """A logits processor for one ``generate`` call under ``schema`` (one per call:
        it keeps one matcher per row of that call)."""
        from xgrammar.contrib.hf import LogitsProcessor

        return LogitsProcessor(self.compile(schema))

    def batch_processor(self, schemas: Sequence[dict[str, Any]]) -> Any:
        """A logits processor for one batched ``generate`` call: row ``i`` decodes under
        ``schemas[i]`` (one entry per returned sequence, in ``generate``'s row order)."""
        from xgrammar.contrib.hf import LogitsProcessor

        return LogitsProcessor([self.compile(schema) for schema in schemas])

    def accepts(
        self, schema: dict[str, Any], text: str, *, separators: tuple[str, str] = SEPARATORS
    ) -> bool:
        """Whether ``text`` is a complete answer under ``schema`` (tests, diagnostics)."""
        import xgrammar as xgr

        grammar = self.compile(schema, separators=separators)
        matcher = xgr.GrammarMatcher(grammar, terminate_without_stop_token=True)
        return bool(matcher.accept_string(text)) and bool(matcher.is_completed())
