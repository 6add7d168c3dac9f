"""Base models for training runs: a tiny local transformer, a named real base, or a
checkpoint on disk / the hub.

``tiny`` (the default) is a 2-layer Qwen2 built from a config with a byte-level BPE trained
on the run's own texts (no downloads; see :mod:`services.trainer.tokenizer` for the chat
format it shares with the planner): for unit tests. A named real base (``smollm2-135m``,
:mod:`services.common.base_models`) is materialised once under the data dir as a local
checkpoint with its own tokenizer and chat template, and loaded like any other; under LoRA
its frozen weights load in ``REFINERY_MODEL_DTYPE`` (bfloat16 where the CPU has it), a full
fine-tune keeps float32. A GPU host names a local path or a hub id. Every check that can fail
(unknown or missing base, tokenizer without eos/pad, rows that cannot fit) fails here, before
any training starts, as a 422.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.common.base_models import (
    dtype_option,
    is_materialized,
    is_named_base,
    materialize,
    resolve_dtype,
    set_torch_threads,
)
from services.common.tokenizer_files import load_tokenizer_files
from services.trainer.config import get_settings
from services.trainer.configs import LoraSpec, TrainerInputError
from services.trainer.tokenizer import CHAT_TEMPLATE, build_tokenizer, corpus_texts

__all__ = [
    "SIZES",
    "FitReport",
    "apply_lora",
    "base_tokenizer",
    "build_tiny",
    "check_fits",
    "load_base",
    "load_tokenizer",
    "named_source",
    "resolve_base",
    "save_checkpoint",
]

SIZES: dict[str, dict[str, int]] = {
    "tiny": {"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2, "mlp": 128, "vocab": 1024},
    "small": {"hidden": 128, "layers": 2, "heads": 4, "kv_heads": 2, "mlp": 256, "vocab": 4096},
    "student": {"hidden": 256, "layers": 4, "heads": 4, "kv_heads": 2, "mlp": 768, "vocab": 4096},
}
"""Local bases by name: ``tiny`` for tests and CPU, ``small`` for a CPU demo worth watching,
``student`` (``tiny:student``, 4 layers of 256) for the CPU learning ladder."""


def _size(size: str) -> dict[str, int]:
    spec = SIZES.get(size)
    if spec is None:
        raise TrainerInputError(
            f"unknown local base size {size!r}; expected one of {sorted(SIZES)}",
            code="unknown_base",
            param="base",
        )
    return spec


def _tiny_size(base: str) -> str | None:
    """``tiny`` → "tiny", ``tiny:small`` → "small", anything else (a path, a hub id) → None."""
    if base == "tiny" or base.startswith("tiny:"):
        return base[5:] or "tiny"
    return None


def build_tiny(corpus: Iterable[str], *, seed: int, size: str = "tiny") -> tuple[Any, Any]:
    """A randomly initialised Qwen2 (seeded) and a tokenizer trained on ``corpus``."""
    import torch
    from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    spec = _size(size)
    tokenizer = build_tokenizer(corpus, vocab_size=spec["vocab"])
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=spec["hidden"],
        num_hidden_layers=spec["layers"],
        num_attention_heads=spec["heads"],
        num_key_value_heads=spec["kv_heads"],
        intermediate_size=spec["mlp"],
        max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    return model, tokenizer


def resolve_base(
    base: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    seed: int,
    lora: LoraSpec | None = None,
    allow_download: bool = False,
    data_dir: Path | None = None,
    dtype: str | None = None,
) -> tuple[Any, Any]:
    """``tiny`` / ``tiny:small`` builds a local base on the rows' texts; anything else is
    loaded with :func:`load_base`. torch gets ``REFINERY_TORCH_THREADS`` threads first."""
    set_torch_threads(get_settings().torch_threads)
    if (size := _tiny_size(base)) is not None:
        model, tokenizer = build_tiny(corpus_texts(rows), seed=seed, size=size)
        return (apply_lora(model, lora, seed=seed) if lora else model), tokenizer
    return load_base(
        base, lora=lora, seed=seed, allow_download=allow_download, data_dir=data_dir, dtype=dtype
    )


def base_tokenizer(
    base: str, rows: Sequence[Mapping[str, Any]], *, data_dir: Path | None = None
) -> Any:
    """The tokenizer a run on ``base`` would use, without building or loading any weights
    (the checks before a job is queued; a named base is materialised here, once)."""
    if (size := _tiny_size(base)) is not None:
        return build_tokenizer(corpus_texts(rows), vocab_size=_size(size)["vocab"])
    return load_tokenizer(base, data_dir=data_dir)


def named_source(base: str, data_dir: Path | None = None) -> str:
    """The checkpoint directory of a named real base (materialised under ``data_dir``,
    default ``REFINERY_DATA_DIR``), or ``base`` itself when it names none; a 422 naming
    ``base`` when the named base cannot be had (the install command in its message)."""
    return str(materialize(base, data_dir, param="base")) if is_named_base(base) else base


def _source(base: str, data_dir: Path | None = None) -> str:
    """The local directory or hub id ``base`` names; ``unknown_base`` (422) for a path that
    holds no checkpoint."""
    if is_named_base(base):
        return named_source(base, data_dir)
    path = Path(base).expanduser()
    if path.is_absolute() or base.startswith(".") or path.exists():
        if not (path / "config.json").is_file():
            raise TrainerInputError(
                f"no checkpoint at {base!r} (a directory with config.json)",
                code="unknown_base",
                param="base",
            )
        return str(path)
    return base


def load_tokenizer(base: str, *, allow_download: bool = False, data_dir: Path | None = None) -> Any:
    """The tokenizer of a named base, a local directory or a hub id (from the local cache
    unless ``allow_download``). One without a chat template gets the planner's plain one, so
    training and serving render alike; one without a pad token pads with its eos."""
    source = _source(base, data_dir)
    try:
        tokenizer = load_tokenizer_files(source, local_files_only=not allow_download)
    except (OSError, ValueError, KeyError) as error:
        raise TrainerInputError(
            f"cannot load the base {base!r}: {error}", code="unknown_base", param="base"
        ) from None
    if not getattr(tokenizer, "chat_template", None):
        tokenizer.chat_template = CHAT_TEMPLATE
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_base(
    base: str,
    *,
    lora: LoraSpec | None,
    seed: int = 0,
    allow_download: bool = False,
    data_dir: Path | None = None,
    dtype: str | None = None,
) -> tuple[Any, Any]:
    """Model and tokenizer (:func:`load_tokenizer`) from a named base, a local directory or a
    hub id; ``unknown_base`` (422) when there is none. ``dtype`` (default
    ``REFINERY_MODEL_DTYPE``) applies to a named base's frozen weights under LoRA."""
    from transformers import AutoModelForCausalLM

    source = _source(base, data_dir)
    tokenizer = load_tokenizer(source, allow_download=allow_download)
    try:
        model = AutoModelForCausalLM.from_pretrained(
            source, local_files_only=not allow_download, **_weights_dtype(source, lora, dtype)
        )
    except (OSError, ValueError, KeyError) as error:
        raise TrainerInputError(
            f"cannot load the base {base!r}: {error}", code="unknown_base", param="base"
        ) from None
    return (apply_lora(model, lora, seed=seed) if lora else model), tokenizer


def _weights_dtype(source: str, lora: LoraSpec | None, dtype: str | None) -> dict[str, Any]:
    """``from_pretrained``'s dtype for a materialised named base under LoRA (its weights stay
    frozen); nothing (float32) otherwise: a full fine-tune keeps float32 master weights."""
    if lora is None or not is_materialized(source):
        return {}
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    resolved = resolve_dtype(dtype or get_settings().model_dtype, device)
    return dtype_option(getattr(torch, resolved))


def apply_lora(model: Any, lora: LoraSpec, *, seed: int) -> Any:
    """``model`` wrapped with a seeded LoRA adapter on the modules it actually has."""
    import torch
    from peft import LoraConfig, get_peft_model

    names = {name.rsplit(".", 1)[-1] for name, _ in model.named_modules()}
    targets = [m for m in lora.target_modules if m in names]
    if not targets:
        raise TrainerInputError(
            f"none of the LoRA target modules {list(lora.target_modules)} exist in the base",
            param="hyper.lora.target_modules",
        )
    config = LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=targets,
        task_type="CAUSAL_LM",
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return get_peft_model(model, config)


@dataclass(frozen=True)
class FitReport:
    """How the rows tokenise: ``usable`` rows fit (their prompt leaves room to train on)."""

    rows: int
    usable: int
    longest: int


def check_fits(tokenizer: Any, rows: Sequence[Mapping[str, Any]], max_length: int) -> FitReport:
    """Tokenise every row through the chat template; 422 ``tokenizer_mismatch`` when the
    tokenizer cannot serve training (no eos, pad or template) and ``sequence_too_long``
    when no row's prompt leaves room for a completion token within ``max_length``."""
    missing = [
        name
        for name, ok in (
            ("eos token", tokenizer.eos_token_id is not None),
            ("pad token", tokenizer.pad_token_id is not None),
            ("chat template", bool(getattr(tokenizer, "chat_template", None))),
        )
        if not ok
    ]
    if missing:
        raise TrainerInputError(
            f"the tokenizer has no {', '.join(missing)}", code="tokenizer_mismatch", param="base"
        )
    if not rows:
        raise TrainerInputError("no training rows", code="empty_rows", param="rows")
    usable, longest = 0, 0
    for row in rows:
        prompt_len, total_len = _lengths(tokenizer, row)
        longest = max(longest, total_len)
        usable += prompt_len < max_length and total_len > prompt_len
    if usable == 0:
        raise TrainerInputError(
            f"no row fits max_length={max_length}: every prompt fills it "
            f"(longest row {longest} tokens)",
            code="sequence_too_long",
            param="hyper.max_length",
        )
    return FitReport(rows=len(rows), usable=usable, longest=longest)


def _lengths(tokenizer: Any, row: Mapping[str, Any]) -> tuple[int, int]:
    """Token counts of the row's prompt (through the opened assistant turn) and of all of it."""
    tools = row.get("tools")
    tools = json.loads(tools) if isinstance(tools, str) else tools

    def count(messages: list[Any], opened: bool) -> int:
        ids = tokenizer.apply_chat_template(
            messages, tools=tools or None, tokenize=True, add_generation_prompt=opened
        )
        ids = ids["input_ids"] if isinstance(ids, Mapping) else ids
        return len(ids)

    if "messages" in row:
        messages = list(row["messages"])
        first = next((i for i, m in enumerate(messages) if m.get("role") == "assistant"), None)
        head = messages[:first] if first is not None else messages
        return count(head, True), count(messages, False)
    prompt = _as_messages(row.get("prompt"), "user")
    answers = [row[k] for k in ("completion", "chosen", "rejected") if k in row]
    total = max(count(prompt + _as_messages(a, "assistant"), False) for a in answers or [[]])
    return count(prompt, True), total


def _as_messages(value: Any, role: str) -> list[Any]:
    if isinstance(value, str):
        return [{"role": role, "content": value}]
    return list(value or [])


def save_checkpoint(model: Any, tokenizer: Any, path: str | Path) -> Path:
    """Write a loadable checkpoint (config.json, weights, tokenizer) at ``path``, atomically:
    a kill mid-write never leaves a half checkpoint there. A LoRA model is saved merged, and
    its adapter alone under ``path/adapter`` for runtime loading."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    full = model
    if hasattr(model, "merge_and_unload"):
        model.save_pretrained(staging / "adapter")
        import copy

        full = copy.deepcopy(model).merge_and_unload()
    full.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return target
