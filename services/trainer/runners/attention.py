"""Right-padded training batches attend through SDPA's causal kernel, not a padding mask.

In a right-padded batch every real token attends only to earlier tokens, which are all
real, so the causal mask alone gives the real positions exactly the attention the padding
mask gives: the same keys, the same sums, bit for bit (forward and backward; the keys and
values are still repeated per query head, as the masked path does). Only the padding
positions' outputs change, and training never reads them: their labels are ignored, so
their gradients are exact zeros. What changes is the kernel: a padding mask sends
``scaled_dot_product_attention`` down its masked path, whose backward on CPU is several
times slower than the causal one's (about 6× for rows of 1,000–2,000 tokens).

:func:`causal_training` switches models to this attention for a training loop and back.
Any other mask (left padding, a cache, sliding windows, packed rows) and any batch without
padding take transformers' own SDPA path unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

__all__ = ["NAME", "causal_training", "right_padded"]

NAME = "sdpa_right_padded"
"""The attention implementation's name while :func:`causal_training` is on."""

_STATE = threading.local()
"""``causal``: whether the current forward's mask was a right padding dropped for the
causal kernel (set by the mask function, read by every layer's attention)."""


def right_padded(padding: Any) -> bool:
    """True when every row of the 2D ``padding`` mask is real tokens then padding, with at
    least one real token and some padding in the batch."""
    mask = padding.bool()
    if mask.all() or not mask[:, 0].all():
        return False
    return not bool((mask[:, 1:] & ~mask[:, :-1]).any())


def _mask(**kwargs: Any) -> Any:
    """transformers' SDPA mask, or ``None`` for a plain causal mask over a right-padded batch
    without a cache (the attention then runs causal)."""
    from transformers.masking_utils import causal_mask_function, sdpa_mask

    padding = kwargs.get("attention_mask")
    _STATE.causal = (
        padding is not None
        and padding.ndim == 2
        and kwargs.get("mask_function", causal_mask_function) is causal_mask_function
        and kwargs.get("allow_is_causal_skip", True)
        and kwargs.get("local_size") is None
        and kwargs.get("q_offset", 0) == 0
        and kwargs.get("kv_offset", 0) == 0
        and kwargs["q_length"] == kwargs["kv_length"] == padding.shape[-1]
        and right_padded(padding)
    )
    return None if _STATE.causal else sdpa_mask(**kwargs)


def _attention(
    module: Any, query: Any, key: Any, value: Any, attention_mask: Any, **kwargs: Any
) -> tuple[Any, None]:
    """The causal kernel when :func:`_mask` dropped a right padding, else transformers' SDPA."""
    import torch
    from transformers.integrations.sdpa_attention import repeat_kv, sdpa_attention_forward

    causal = getattr(_STATE, "causal", False) and attention_mask is None
    if not causal or query.shape[2] != key.shape[2] or kwargs.get("position_bias") is not None:
        return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)
    groups = getattr(module, "num_key_value_groups", 1)
    output = torch.nn.functional.scaled_dot_product_attention(
        query,
        repeat_kv(key, groups),
        repeat_kv(value, groups),
        dropout_p=kwargs.get("dropout", 0.0),
        scale=kwargs.get("scaling"),
        is_causal=True,
    )
    return output.transpose(1, 2).contiguous(), None


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface

    AttentionInterface.register(NAME, _attention)
    AttentionMaskInterface.register(NAME, _mask)


@contextmanager
def _switched(model: Any) -> Iterator[None]:
    config = getattr(model, "config", None)
    if getattr(config, "_attn_implementation", None) != "sdpa":
        yield
        return
    config._attn_implementation = NAME
    try:
        yield
    finally:
        config._attn_implementation = "sdpa"
        _STATE.causal = False


@contextmanager
def causal_training(*models: Any) -> Iterator[None]:
    """``models`` (those on transformers' SDPA; others, and ``None``, are left alone) attend
    as this module describes inside the block, and as before after it. Only for loops that
    never read the outputs at padding positions."""
    _register()
    with ExitStack() as stack:
        for model in models:
            if model is not None:
                stack.enter_context(_switched(model))
        yield
