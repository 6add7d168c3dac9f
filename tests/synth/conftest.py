"""Fixtures shared by the synth tests: a tiny random-init checkpoint a model reader loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded, untrained Qwen2 checkpoint folder (a tokenizer trained on the built-in
    catalog's schemas): it answers fast and under the grammar, and knows nothing."""
    pytest.importorskip("xgrammar")
    from services.synth.catalog import builtin_catalog
    from services.trainer.models import build_tiny, save_checkpoint

    texts = [json.dumps(tool) for tool in builtin_catalog()[:12]]
    model, tokenizer = build_tiny(texts * 2, seed=0)
    folder = save_checkpoint(model, tokenizer, tmp_path_factory.mktemp("synth-tiny") / "ckpt")
    return Path(folder).resolve()
