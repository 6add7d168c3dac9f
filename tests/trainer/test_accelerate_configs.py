"""The shipped ``accelerate`` configs, read the way ``accelerate launch`` reads them."""

from __future__ import annotations

import pytest
from accelerate.commands.launch import _validate_launch_command, launch_command_parser
from accelerate.utils import FullyShardedDataParallelPlugin
from accelerate.utils.launch import prepare_multi_gpu_env
from torch.distributed.fsdp import StateDictType

from services.trainer.launch import ACCELERATE_CONFIGS


def _launch_env(name: str) -> dict[str, str]:
    """The environment ``accelerate launch --config_file <name>.yaml`` gives each process."""
    argv = ["--config_file", str(ACCELERATE_CONFIGS / f"{name}.yaml"), "train.py"]
    args, _, _ = _validate_launch_command(launch_command_parser().parse_args(argv))
    return prepare_multi_gpu_env(args)


def test_ddp_keeps_a_whole_model_per_process() -> None:
    env = _launch_env("ddp")
    assert env.get("ACCELERATE_USE_FSDP", "false") == "false"
    assert env["ACCELERATE_MIXED_PRECISION"] == "bf16"


def test_fsdp_shards_everything_and_saves_a_whole_checkpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = _launch_env("fsdp")
    assert env["ACCELERATE_USE_FSDP"] == "true"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    plugin = FullyShardedDataParallelPlugin()
    assert plugin.fsdp_version == 2
    assert plugin.state_dict_type == StateDictType.FULL_STATE_DICT  # the planner loads it whole
    assert plugin.auto_wrap_policy is not None and plugin.reshard_after_forward is True
    assert type(plugin.cpu_offload).__name__ == "OffloadPolicy"  # no CPU offload
