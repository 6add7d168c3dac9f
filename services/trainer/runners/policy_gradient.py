"""Advantage-weighted policy gradient on precomputed rollouts: SOLAR and the sparse GRPO baseline.

Rows are ``{"prompt": [messages], "completion": [assistant] | str, "advantage": float,
"group": id}``. The advantages are already group-relative when they arrive: SOLAR gives each
step of a rebuilt trajectory its dense, shaped step advantage; the sparse GRPO baseline
gives every step of a trajectory the trajectory's success advantage. One loss serves both::

    loss = mean_rows( -A · mean_t log π(y_t | prompt, y_<t)  +  kl_coef · mean_t KL_t )

with ``KL_t`` the k3 estimator to the frozen starting policy. With ``clip > 0`` a token whose
probability ratio to the epoch-start policy has left ``[1 - clip, 1 + clip]`` in the
advantage's direction drops out of the sum: GRPO's clipped surrogate, with the ratio factor
of the surviving tokens taken as 1, so the loss reads as an advantage-weighted log-likelihood.

Why a loop and not TRL's ``GRPOTrainer``: that trainer samples fresh completions and scores
them with reward functions; here the completions and their advantages are fixed data
(semi-online: rebuilt from static trajectories), so sampling would only be thrown away.
The loop uses TRL's prompt/completion split (:func:`trl.data_utils` conventions: the
completion starts where the tokenised prompt and prompt+completion diverge) and
transformers' scheduler, and reports and checkpoints like the TRL runners.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.trainer.configs import PolicyGradientHyper, TrainerInputError
from services.trainer.models import check_fits, resolve_base
from services.trainer.runners.attention import causal_training
from services.trainer.runners.common import Callback, CheckpointKeeper, RunState, quiet
from services.trainer.tokenizer import normalise_messages

__all__ = ["Encoded", "completion_logprobs", "encode", "pg_rows", "run_policy_gradient"]


def pg_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows normalised (a string completion becomes one assistant message); 422 on bad ones."""
    out = []
    for index, row in enumerate(rows):
        advantage = row.get("advantage")
        completion = row.get("completion")
        if isinstance(completion, str):
            completion = [{"role": "assistant", "content": completion}]
        ok_adv = isinstance(advantage, int | float) and math.isfinite(advantage)
        if not (isinstance(row.get("prompt"), list) and completion and ok_adv):
            raise TrainerInputError(
                f"row {index} needs a conversational prompt, a completion and a finite advantage",
                code="bad_rows",
                param="rows",
            )
        out.append(
            {
                "prompt": normalise_messages(row["prompt"]),
                "completion": normalise_messages(completion),
                "advantage": float(advantage),
                "group": row.get("group"),
            }
        )
    return out


@dataclass(frozen=True)
class Encoded:
    """A tokenised row: ``ids[start:]`` are the completion's tokens."""

    ids: list[int]
    start: int
    advantage: float = 0.0


def encode(tokenizer: Any, row: Mapping[str, Any], max_length: int) -> Encoded | None:
    """The row through the chat template, cut to ``max_length``; ``None`` if no completion
    token is left."""

    def ids(messages: list[Any], opened: bool) -> list[int]:
        out = tokenizer.apply_chat_template(
            messages, tokenize=True, add_generation_prompt=opened, return_dict=True
        )
        return list(out["input_ids"])

    prompt = ids(row["prompt"], True)
    full = ids(row["prompt"] + row["completion"], False)[:max_length]
    pairs = zip(prompt, full, strict=False)
    start = next((i for i, (a, b) in enumerate(pairs) if a != b), len(prompt))
    start = min(start, len(full))
    if start >= len(full) or start == 0:
        return None
    return Encoded(full, start, float(row.get("advantage", 0.0)))


def _checkpoint_activations(model: Any) -> None:
    """Recompute activations in the backward pass (transformers' name for it varies)."""
    enable = getattr(model, "activation_checkpointing_enable", None)
    if enable is not None:
        enable(activation_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})


def _batch(items: Sequence[Encoded], pad_id: int, device: Any) -> tuple[Any, Any, Any]:
    """Right-padded ``input_ids``, ``attention_mask`` and the completion mask on the
    shifted targets (position t predicts token t + 1)."""
    import torch

    width = max(len(item.ids) for item in items)
    input_ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(items), width), dtype=torch.long)
    completion = torch.zeros((len(items), width - 1))
    for row, item in enumerate(items):
        input_ids[row, : len(item.ids)] = torch.tensor(item.ids)
        attention[row, : len(item.ids)] = 1
        completion[row, item.start - 1 : len(item.ids) - 1] = 1
    return input_ids.to(device), attention.to(device), completion.to(device)


def _token_logps(model: Any, input_ids: Any, attention: Any) -> Any:
    """log π of every next token, shape ``[batch, length - 1]``."""
    import torch

    logits = model(input_ids=input_ids, attention_mask=attention).logits[:, :-1].float()
    return torch.gather(logits.log_softmax(-1), 2, input_ids[:, 1:, None]).squeeze(2)


def completion_logprobs(
    model: Any, tokenizer: Any, rows: Sequence[Mapping[str, Any]], *, max_length: int = 1024
) -> list[float]:
    """Mean per-token log-probability of each row's completion under ``model`` (rows that do
    not fit give ``nan``): how evaluation and tests read what training changed."""
    import torch

    device = next(model.parameters()).device
    out = []
    with torch.no_grad():
        for row in pg_rows([{"advantage": 0.0, **dict(r)} for r in rows]):
            item = encode(tokenizer, row, max_length)
            if item is None:
                out.append(float("nan"))
                continue
            input_ids, attention, mask = _batch([item], tokenizer.pad_token_id, device)
            logps = _token_logps(model, input_ids, attention)
            out.append(float((logps * mask).sum() / mask.sum()))
    return out


def pg_loss(
    logps: Any,
    mask: Any,
    advantages: Any,
    *,
    old: Any = None,
    ref: Any = None,
    clip: float,
    kl_coef: float,
) -> Any:
    """The module docstring's loss for one batch (all ``[batch, length]`` but ``advantages``)."""
    import torch

    a = advantages[:, None]
    keep = mask
    if old is not None and clip > 0:
        ratio = torch.exp(logps.detach() - old)
        clipped = ((a > 0) & (ratio > 1 + clip)) | ((a < 0) & (ratio < 1 - clip))
        keep = mask * (~clipped)
    per_token = -a * logps * keep
    if ref is not None and kl_coef > 0:
        delta = ref - logps
        per_token = per_token + kl_coef * (torch.exp(delta) - delta - 1) * mask
    return (per_token.sum(1) / mask.sum(1).clamp(min=1)).mean()


class _Loop:
    """The optimisation loop over encoded rows (seeded order, epoch-start ratio snapshots)."""

    def __init__(self, model: Any, hyper: PolicyGradientHyper, pad_id: int, device: Any) -> None:
        import torch

        self.model, self.hyper, self.pad_id, self.device = model, hyper, pad_id, device
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=hyper.lr, weight_decay=0.0)
        self.ref: Any = None
        if hyper.kl_coef > 0 and not hasattr(model, "disable_adapter"):
            self.ref = copy.deepcopy(model).eval().requires_grad_(False)

    def _reference(self, input_ids: Any, attention: Any) -> Any:
        import torch

        if self.hyper.kl_coef <= 0:
            return None
        adapter_off = self.model.disable_adapter() if self.ref is None else nullcontext()
        with torch.no_grad(), adapter_off:
            return _token_logps(self.ref or self.model, input_ids, attention)

    def _silent(self, items: Sequence[Encoded]) -> bool:
        """True when ``items`` cannot move the policy: no advantage and no KL term, so the
        loss and every gradient of theirs are exact zeros (and no token of theirs is ever
        clipped, whatever its epoch-start log-prob)."""
        return self.hyper.kl_coef <= 0 and all(item.advantage == 0 for item in items)

    def _snapshot(self, items: Sequence[Encoded]) -> list[Any]:
        """Each row's token log-probs under the policy as the epoch starts (zeros for the rows
        of a silent chunk, which never read them)."""
        import torch

        out = []
        with torch.no_grad():
            for start in range(0, len(items), self.hyper.batch_size):
                chunk = items[start : start + self.hyper.batch_size]
                if self._silent(chunk):
                    out += [torch.zeros(len(item.ids) - 1, device=self.device) for item in chunk]
                    continue
                input_ids, attention, _ = _batch(chunk, self.pad_id, self.device)
                logps = _token_logps(self.model, input_ids, attention)
                out += [logps[i, : len(item.ids) - 1] for i, item in enumerate(chunk)]
        return out

    def run(
        self, items: list[Encoded], state: RunState, keeper: CheckpointKeeper, tok: Any
    ) -> None:
        import torch
        from transformers import get_linear_schedule_with_warmup

        hyper = self.hyper
        scheduler = get_linear_schedule_with_warmup(self.optimizer, 0, state.total)
        generator = torch.Generator().manual_seed(hyper.seed)
        size = hyper.batch_size * hyper.grad_accum  # rows per optimisation step
        per_epoch = math.ceil(len(items) / size)
        step, tokens = 0, 0
        while step < state.total:
            order = torch.randperm(len(items), generator=generator).tolist()
            old = self._snapshot(items) if hyper.clip > 0 else None
            for b in range(per_epoch):
                if step >= state.total:
                    break
                picked = order[b * size : (b + 1) * size]
                loss, count = self._step(
                    [items[i] for i in picked], old and [old[i] for i in picked]
                )
                scheduler.step()
                step, tokens = step + 1, tokens + count
                if not state.report(step, loss, step / per_epoch, tokens):
                    return
                if keeper.due(step):
                    keeper.save(self.model, tok, step)

    def _step(self, chunk: list[Encoded], old_rows: list[Any] | None) -> tuple[float, int]:
        """One optimisation step over ``chunk``, in passes of ``batch_size`` rows whose
        gradients accumulate (each pass weighted by its share of the rows). A silent pass adds
        exact zeros, so it is skipped; a step of silent passes only still steps the optimiser,
        on zero gradients, as the backward of its zero loss would leave them."""
        import torch

        self.optimizer.zero_grad(set_to_none=True)
        size = self.hyper.batch_size
        total_loss, tokens, ran = 0.0, 0, False
        for start in range(0, len(chunk), size):
            part = chunk[start : start + size]
            if self._silent(part):
                tokens += sum(len(item.ids) for item in part)
                continue
            olds = old_rows[start : start + size] if old_rows is not None else None
            loss, count = self._backward(part, olds, len(part) / len(chunk))
            total_loss, tokens = total_loss + loss * len(part) / len(chunk), tokens + count
            ran = True
        params = [p for p in self.model.parameters() if p.requires_grad]
        if not ran:  # every trainable weight of a causal LM takes part in its forward
            for param in params:
                param.grad = torch.zeros_like(param)
        torch.nn.utils.clip_grad_norm_(params, self.hyper.max_grad_norm)
        self.optimizer.step()
        return total_loss, tokens

    def _backward(
        self, chunk: list[Encoded], old_rows: list[Any] | None, weight: float
    ) -> tuple[float, int]:
        import torch

        input_ids, attention, mask = _batch(chunk, self.pad_id, self.device)
        old = None
        if old_rows is not None:
            old = torch.zeros_like(mask)
            for i, row in enumerate(old_rows):
                old[i, : row.shape[0]] = row
        advantages = torch.tensor([item.advantage for item in chunk], device=self.device)
        ref = self._reference(input_ids, attention)
        logps = _token_logps(self.model, input_ids, attention)
        loss = pg_loss(
            logps,
            mask,
            advantages,
            old=old,
            ref=ref,
            clip=self.hyper.clip,
            kl_coef=self.hyper.kl_coef,
        )
        (loss * weight).backward()
        return float(loss.detach()), int(attention.sum())


def run_policy_gradient(
    rows: Sequence[Mapping[str, Any]],
    base: str,
    hyper: PolicyGradientHyper,
    out_dir: str | Path,
    *,
    callback: Callback | None = None,
    allow_download: bool = False,
) -> dict[str, Any]:
    """Optimise ``base`` on advantage-weighted completions; checkpoints under ``out_dir``.
    Returns ``{train_loss, steps, tokens, tokens_per_s, runtime_s, rows, groups, …}``."""
    import torch
    from transformers import set_seed

    records = pg_rows(rows)
    quiet()
    model, tokenizer = resolve_base(
        base, rows, seed=hyper.seed, lora=hyper.lora, allow_download=allow_download
    )
    check_fits(tokenizer, records, hyper.max_length)
    items = [e for r in records if (e := encode(tokenizer, r, hyper.max_length)) is not None]
    if not items:
        raise TrainerInputError(
            f"no completion fits max_length={hyper.max_length}",
            code="sequence_too_long",
            param="hyper.max_length",
        )
    set_seed(hyper.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device).train()
    if hyper.gradient_checkpointing:
        _checkpoint_activations(model)
    per_epoch = math.ceil(len(items) / (hyper.batch_size * hyper.grad_accum))
    total = hyper.max_steps if hyper.max_steps > 0 else max(1, math.ceil(hyper.epochs * per_epoch))
    state = RunState(callback, total=total)
    keeper = CheckpointKeeper(Path(out_dir), hyper.save_steps, hyper.keep_checkpoints)
    loop = _Loop(model, hyper, tokenizer.pad_token_id, device)
    with causal_training(model, loop.ref):  # right-padded rows (see _batch)
        loop.run(items, state, keeper, tokenizer)
    model.eval()
    metrics = state.finish(model, tokenizer, keeper)
    groups = {str(r["group"]) for r in records if r["group"] is not None}
    return {**metrics, "rows": len(items), "groups": len(groups)}
