"""What every runner shares: progress reports, cancellation, checkpoint keeping, metrics.

A runner reports each optimisation step as a :class:`Progress` through the caller's
callback (a service stores them as the loss curve). The callback returning ``False`` cancels
the run; raising does too, and the exception is re-raised once the state is saved. Either
way the weights of the last finished step are written as ``out_dir/checkpoint-<step>``, so a
cancelled run (like one killed between periodic checkpoints) leaves its last one on disk.
A finished run writes ``out_dir/final``.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from services.trainer.configs import Hyper
from services.trainer.models import save_checkpoint
from services.trainer.runners.attention import causal_training

__all__ = [
    "Callback",
    "CheckpointKeeper",
    "Progress",
    "RunState",
    "is_main_process",
    "latest_checkpoint",
    "training_arguments",
]


@dataclass(frozen=True)
class Progress:
    """One finished optimisation step."""

    step: int
    total: int
    loss: float
    epoch: float
    tokens: int


Callback = Callable[[Progress], bool | None]
"""Called after every step; ``False`` (or an exception) stops the run."""

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def latest_checkpoint(out_dir: str | Path) -> Path | None:
    """``out_dir/final`` when the run finished, else its newest ``checkpoint-<step>``."""
    root = Path(out_dir)
    if (root / "final" / "config.json").is_file():
        return root / "final"
    steps = _periodic(root)
    return steps[-1][1] if steps else None


def _periodic(root: Path) -> list[tuple[int, Path]]:
    if not root.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in root.iterdir() if (m := _CHECKPOINT.match(p.name))]
    return sorted(found)


def is_main_process() -> bool:
    """True outside a distributed run and in its rank-0 process (the one that writes)."""
    return os.environ.get("RANK", "0") == "0"


@dataclass
class CheckpointKeeper:
    """Periodic checkpoints every ``every`` steps (0: none), the newest ``keep`` kept;
    in a distributed run only the main process writes them."""

    out_dir: Path
    every: int
    keep: int

    def due(self, step: int) -> bool:
        return self.every > 0 and step % self.every == 0

    def save(self, model: Any, tokenizer: Any, step: int) -> Path:
        if not is_main_process():
            return self.out_dir / f"checkpoint-{step}"
        path = save_checkpoint(model, tokenizer, self.out_dir / f"checkpoint-{step}")
        for _, old in _periodic(self.out_dir)[: -max(self.keep, 1)]:
            shutil.rmtree(old, ignore_errors=True)
        return path

    def final(self, model: Any, tokenizer: Any) -> Path:
        if not is_main_process():
            return self.out_dir / "final"
        return save_checkpoint(model, tokenizer, self.out_dir / "final")


@dataclass
class RunState:
    """Bookkeeping of one run: losses, tokens, cancellation, the clock."""

    callback: Callback | None
    total: int
    started: float = field(default_factory=time.perf_counter)
    losses: list[float] = field(default_factory=list)
    tokens: int = 0
    step: int = 0
    cancelled: bool = False
    error: BaseException | None = None

    def report(self, step: int, loss: float, epoch: float, tokens: int) -> bool:
        """Record a step and ask the callback whether to go on."""
        self.step, self.tokens = step, tokens
        self.losses.append(loss)
        if self.callback is None:
            return True
        try:
            go_on = self.callback(Progress(step, self.total, loss, epoch, tokens))
        except Exception as error:  # the caller's cancellation: stop, save, re-raise
            self.error, self.cancelled = error, True
            return False
        if go_on is False:
            self.cancelled = True
            return False
        return True

    def finish(self, model: Any, tokenizer: Any, keeper: CheckpointKeeper) -> dict[str, Any]:
        """Save the final (or, cancelled, the last-step) checkpoint; the run's metrics.
        Re-raises the callback's exception after saving."""
        runtime = time.perf_counter() - self.started
        if self.cancelled:
            path = keeper.save(model, tokenizer, self.step)
        else:
            path = keeper.final(model, tokenizer)
        if self.error is not None:
            raise self.error
        return {
            "train_loss": sum(self.losses) / len(self.losses) if self.losses else 0.0,
            "final_loss": self.losses[-1] if self.losses else 0.0,
            "steps": self.step,
            "tokens": self.tokens,
            "tokens_per_s": self.tokens / runtime if runtime > 0 else 0.0,
            "runtime_s": runtime,
            "cancelled": self.cancelled,
            "checkpoint": str(path),
        }


def training_arguments(hyper: Hyper, out_dir: Path) -> dict[str, Any]:
    """``TrainingArguments`` fields common to the TRL runners: our own checkpointing and
    logging (every step, through the callback), bf16 on a GPU that has it, full precision on
    CPU, no reporting; gradient accumulation and activation checkpointing as ``hyper`` asks."""
    import torch

    cuda = torch.cuda.is_available()
    return {
        "output_dir": str(out_dir),
        "seed": hyper.seed,
        "data_seed": hyper.seed,
        "num_train_epochs": hyper.epochs,
        "max_steps": hyper.max_steps,
        "learning_rate": hyper.lr,
        "per_device_train_batch_size": hyper.batch_size,
        "gradient_accumulation_steps": hyper.grad_accum,
        "max_grad_norm": hyper.max_grad_norm,
        "max_length": hyper.max_length,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": [],
        "disable_tqdm": True,
        "bf16": cuda and torch.cuda.is_bf16_supported(),
        "use_cpu": not cuda,
        "activation_checkpointing": hyper.gradient_checkpointing,
        "activation_checkpointing_kwargs": {"use_reentrant": False},
        "dataloader_num_workers": 0,
        "include_num_input_tokens_seen": "non_padding",
    }


def trainer_callback(state: RunState, keeper: CheckpointKeeper, tokenizer: Any) -> Any:
    """A ``transformers.TrainerCallback`` feeding :class:`RunState` from the trainer's logs
    and writing periodic checkpoints."""
    from transformers import TrainerCallback

    class _Bridge(TrainerCallback):
        def on_log(self, args: Any, st: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if not logs or "loss" not in logs:
                return
            state.total = st.max_steps
            go_on = state.report(
                st.global_step, float(logs["loss"]), float(st.epoch or 0), st.num_input_tokens_seen
            )
            if not go_on:
                control.should_training_stop = True
            elif keeper.due(st.global_step):
                keeper.save(kw["model"], tokenizer, st.global_step)

    return _Bridge()


def train_with(trainer: Any, state: RunState, keeper: CheckpointKeeper, tokenizer: Any) -> dict:
    """Run a TRL trainer to the end or to cancellation; then :meth:`RunState.finish`."""
    from transformers import PrinterCallback

    trainer.remove_callback(PrinterCallback)
    state.started = time.perf_counter()
    with causal_training(trainer.model, getattr(trainer, "ref_model", None)):
        trainer.train()
    model = trainer.model
    if hasattr(trainer, "accelerator"):
        model = trainer.accelerator.unwrap_model(model)
    return state.finish(model, tokenizer, keeper)


def quiet() -> None:
    """No progress bars from ``datasets`` or checkpoint writes in service logs."""
    from datasets.utils.logging import disable_progress_bar
    from transformers.utils import logging

    disable_progress_bar()
    logging.disable_progress_bar()
