"""Right-padded training batches through the causal kernel: the same numbers, or no switch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from services.trainer.models import build_tiny  # noqa: E402
from services.trainer.runners.attention import NAME, causal_training, right_padded  # noqa: E402

LENGTHS = (40, 23, 31)


@pytest.fixture(scope="module")
def tiny():
    model, _ = build_tiny(["shot one is too long; trim it " * 8], seed=0)
    return model.train()


def _batch(left: bool = False) -> tuple:
    width = max(LENGTHS)
    ids = torch.randint(3, 200, (len(LENGTHS), width), generator=torch.Generator().manual_seed(0))
    mask = torch.zeros_like(ids)
    for row, length in enumerate(LENGTHS):
        if left:
            mask[row, width - length :] = 1
        else:
            mask[row, :length] = 1
    return ids.masked_fill(mask == 0, 0), mask


def _run(model, ids, mask) -> tuple:
    """Logits, and the gradients of a loss that ignores the padding positions."""
    model.zero_grad(set_to_none=True)
    logits = model(input_ids=ids, attention_mask=mask).logits
    logps = logits[:, :-1].log_softmax(-1).gather(2, ids[:, 1:, None]).squeeze(2)
    keep = mask[:, 1:].float()
    (-(logps * keep).sum() / keep.sum()).backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    return logits.detach(), grads


def test_right_padding_is_recognised() -> None:
    assert right_padded(torch.tensor([[1, 1, 1], [1, 1, 0]]))
    assert not right_padded(torch.tensor([[1, 1, 1], [1, 1, 1]]))  # nothing to drop
    assert not right_padded(torch.tensor([[1, 1, 1], [0, 1, 1]]))  # left padding
    assert not right_padded(torch.tensor([[1, 0, 1], [1, 1, 1]]))  # a hole
    assert not right_padded(torch.tensor([[1, 1, 1], [0, 0, 0]]))  # an empty row


def test_right_padded_batches_learn_bit_for_bit_the_same(tiny) -> None:
    ids, mask = _batch()
    logits, grads = _run(tiny, ids, mask)
    with causal_training(tiny):
        assert tiny.config._attn_implementation == NAME
        causal_logits, causal_grads = _run(tiny, ids, mask)
    assert tiny.config._attn_implementation == "sdpa"
    for row, length in enumerate(LENGTHS):
        assert torch.equal(logits[row, :length], causal_logits[row, :length])
    assert all(torch.equal(grads[name], causal_grads[name]) for name in grads)


def test_other_batches_take_the_masked_path(tiny) -> None:
    """Left padding (as in generation) keeps its mask: every position is as before."""
    ids, mask = _batch(left=True)
    logits, _ = _run(tiny, ids, mask)
    with causal_training(tiny, None):
        same, _ = _run(tiny, ids, mask)
    assert torch.equal(logits, same)
