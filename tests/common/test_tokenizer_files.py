"""A checkpoint's tokenizer loads as it was saved: the text a student was trained on is the
text it is served, token for token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from services.common.tokenizer_files import load_tokenizer_files
from services.planner.proposers import hf
from services.trainer.models import build_tiny, load_tokenizer, save_checkpoint

CORPUS = [
    "0 | c10 | 0–5.5s | fog,summit,waterfall",
    '{"op":"insert","at":12,"clip_id":"c17","in_s":0.0,"out_s":4.666667}',
    "m03 | 144.8s | 90 | calm | 217 beats ~every 0.667s from 0.433s",
] * 20
TEXTS = ["shot 11 | c10 | 2.25–7.5s", '{"op":"remove","shot":10}', "217 beats at 90 bpm"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[object, str]:
    model, tokenizer = build_tiny(CORPUS, seed=0)
    path = save_checkpoint(model, tokenizer, tmp_path_factory.mktemp("ckpt") / "final")
    yield tokenizer, str(path)
    hf.clear_cache(str(path))


def test_a_saved_tiny_tokenizer_splits_text_as_in_training(saved) -> None:
    trained, path = saved
    declared = json.loads((Path(path) / "tokenizer_config.json").read_text())
    assert declared["tokenizer_class"] in ("TokenizersBackend", "PreTrainedTokenizerFast")
    assert any(len(trained.tokenize(t)) < len(t) for t in TEXTS)  # merges, not bytes
    for loaded in (
        load_tokenizer_files(path, local_files_only=True),
        load_tokenizer(path),
        hf.load(path, "cpu").tokenizer,
    ):
        for text in TEXTS:
            assert loaded(text)["input_ids"] == trained(text)["input_ids"], text
        assert loaded.chat_template == trained.chat_template
        assert (loaded.eos_token, loaded.pad_token) == (trained.eos_token, trained.pad_token)
