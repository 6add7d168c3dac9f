"""TRL runners: SFT, DPO and the advantage-weighted policy gradient (SOLAR / sparse GRPO).

Each is ``run_*(rows, base, hyper, out_dir, *, callback) -> metrics``; torch and TRL load
only when one runs.
"""

from services.trainer.runners.common import Progress, latest_checkpoint
from services.trainer.runners.dpo import run_dpo
from services.trainer.runners.policy_gradient import completion_logprobs, run_policy_gradient
from services.trainer.runners.sft import run_sft

__all__ = [
    "Progress",
    "completion_logprobs",
    "latest_checkpoint",
    "run_dpo",
    "run_policy_gradient",
    "run_sft",
]
