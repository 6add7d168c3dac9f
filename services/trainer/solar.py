"""SOLAR-RL reward maths: per-step validity, first failure, dense shaped rewards, and
group-relative advantages over candidates rebuilt from static trajectories. Pure.

For one candidate trajectory with validities Φ_0 … Φ_{T-1} (see :mod:`solar_validity`):

* first failure t* = the first step with Φ_t < ``fail_threshold`` (T when none);
* raw reward r_t = Φ_t before t*, −max(1 − Φ_t, 1 − ``fail_threshold``) from t* on (every
  step from t* on is negative, even one that happens to match its reference); with
  ``normalise_positive`` the positives are divided by t* (they sum to the prefix's mean Φ),
  with ``normalise_negative`` the negatives by T − t* (they sum to minus the tail's mean
  shortfall), so neither part grows with episode length;
* R_target = w1·mean(Φ) + w2·min(1, t*/ref_len) + w3·success;
* Δ = R_target − Σ_{t<t*} r_t is spread equally over the prefix (each r_t += Δ/t*), so the
  prefix sums to R_target; when t* = 0 there is no prefix, Δ = 0 and only negatives remain.
  Where the equal spread would make a valid prefix step negative (a large negative Δ), the
  prefix is instead R_target split in proportion to Φ_t (same sum, every step ≥ 0).

N candidates per step (the reference action if ``include_reference``, then the step's
recorded ``alternatives``, then samples from a policy callable) are stitched by index into
N trajectories; advantages are normalised within the N candidates of each step:
(r − mean)/(std + eps), population std. A candidate trajectory succeeds when the reference
episode succeeded and none of its steps failed. See ``docs/solar.md`` for a worked example.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from services.common.errors import RefineryError
from services.trainer.solar_validity import validity

__all__ = [
    "Policy",
    "Render",
    "RewardBreakdown",
    "SolarConfig",
    "SolarError",
    "action_completion",
    "first_failure",
    "group_advantages",
    "reward_breakdown",
    "solar_rows",
    "sparse_rows",
    "step_candidates",
    "step_rewards",
    "step_validity",
    "stitch",
]

Policy = Callable[[Mapping[str, Any], int, int, float], Sequence[Mapping[str, Any]]]
"""``(episode, step index, n, temperature)`` → ``n`` sampled actions for that step."""
Render = Callable[[Mapping[str, Any], int, Mapping[str, Any]], list[dict[str, str]]]
"""``(episode, step index, step)`` → the chat messages a policy sees at that step."""


class SolarError(RefineryError):
    status_code = 422
    code = "invalid_solar_input"


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True, kw_only=True)
class SolarConfig:
    """SOLAR-RL hyper-parameters (``dataclasses.fields(SolarConfig)[i].metadata["help"]``)."""

    n_candidates: int = field(
        default=8, metadata=_help("Candidates (trajectories) per step group.")
    )
    temperature: float = field(
        default=1.0, metadata=_help("Sampling temperature handed to the policy.")
    )
    click_box_scale: float = field(
        default=1.2, metadata=_help("A click inside the target box scaled by this is valid.")
    )
    click_radius: float = field(
        default=0.14, metadata=_help("A click this close (normalised) to the target is valid.")
    )
    fail_threshold: float = field(
        default=0.5, metadata=_help("The first step with Φ below this is the failure point t*.")
    )
    w1: float = field(
        default=0.4, metadata=_help("R_target weight of the trajectory's mean validity.")
    )
    w2: float = field(
        default=0.3, metadata=_help("R_target weight of min(1, valid length / reference length).")
    )
    w3: float = field(default=0.3, metadata=_help("R_target weight of trajectory success (0/1)."))
    normalise_positive: bool = field(default=True, metadata=_help("Divide prefix rewards by t*."))
    normalise_negative: bool = field(
        default=True, metadata=_help("Divide failure rewards by T − t*.")
    )
    scale_advantages: bool = field(
        default=True, metadata=_help("Divide centred rewards by the group std.")
    )
    eps: float = field(default=1e-4, metadata=_help("Added to the group std before dividing."))
    include_reference: bool = field(
        default=True, metadata=_help("The reference action is candidate 0.")
    )

    def __post_init__(self) -> None:
        checks = {
            "n_candidates": self.n_candidates >= 2,
            "temperature": self.temperature >= 0,
            "click_box_scale": self.click_box_scale >= 1,
            "click_radius": self.click_radius >= 0,
            "fail_threshold": 0 < self.fail_threshold <= 1,
            "w1": self.w1 >= 0,
            "w2": self.w2 >= 0,
            "w3": self.w3 >= 0,
            "eps": self.eps > 0,
        }
        for name, ok in checks.items():
            if not ok:
                raise SolarError(f"{name}={getattr(self, name)!r} is out of range", param=name)

    @classmethod
    def help(cls) -> dict[str, str]:
        return {f.name: f.metadata["help"] for f in fields(cls)}


DEFAULT = SolarConfig()

LIMITS: dict[str, tuple[float, float, bool]] = {
    "n_candidates": (2, 256, False),
    "temperature": (0, 100, False),
    "click_box_scale": (1, 100, False),
    "click_radius": (0, 10, False),
    "fail_threshold": (0, 1, True),
    "w1": (0, 1000, False),
    "w2": (0, 1000, False),
    "w3": (0, 1000, False),
    "eps": (0, 1, True),
}
"""``(low, high, low_excluded)`` of every numeric :class:`SolarConfig` field on the wire."""


def step_validity(
    pred_action: Mapping[str, Any], ref_step: Mapping[str, Any], config: SolarConfig = DEFAULT
) -> float:
    """Φ ∈ [0, 1] of ``pred_action`` against ``ref_step`` (rules in :mod:`solar_validity`)."""
    try:
        return validity(
            pred_action, ref_step, box_scale=config.click_box_scale, radius=config.click_radius
        )
    except (KeyError, TypeError, ValueError) as error:
        raise SolarError(f"bad reference step: {error}", param="step.action") from None


def first_failure(phis: Sequence[float], config: SolarConfig = DEFAULT) -> int:
    """t*: the first index with Φ < ``fail_threshold``; ``len(phis)`` when none fails."""
    return next((t for t, phi in enumerate(phis) if phi < config.fail_threshold), len(phis))


@dataclass(frozen=True, slots=True)
class RewardBreakdown:
    first_failure: int
    raw: list[float]
    target: float
    delta: float
    rewards: list[float]


def reward_breakdown(
    phis: Sequence[float], success: bool, ref_len: int, config: SolarConfig = DEFAULT
) -> RewardBreakdown:
    """Every quantity of the module docstring's reward for one trajectory."""
    if not phis:
        raise SolarError("a trajectory needs at least one step", param="phis")
    if any(not 0 <= phi <= 1 for phi in phis):
        raise SolarError("every Φ must lie in [0, 1]", param="phis")
    if ref_len < 1:
        raise SolarError("ref_len must be ≥ 1", param="ref_len")
    steps, t_star = len(phis), first_failure(phis, config)
    pos = t_star if config.normalise_positive and t_star else 1
    neg = steps - t_star if config.normalise_negative and steps > t_star else 1
    floor = (1 - config.fail_threshold) or config.eps
    raw = [phi / pos if t < t_star else -max(1 - phi, floor) / neg for t, phi in enumerate(phis)]
    target = (
        config.w1 * statistics.fmean(phis)
        + config.w2 * min(1.0, t_star / ref_len)
        + config.w3 * float(success)
    )
    delta = target - sum(raw[:t_star]) if t_star else 0.0
    return RewardBreakdown(t_star, raw, target, delta, _shape(raw, phis, t_star, target, delta))


def _shape(
    raw: list[float], phis: Sequence[float], t_star: int, target: float, delta: float
) -> list[float]:
    """Δ spread equally over the prefix; where that would make a valid step negative, the
    prefix is R_target split in proportion to Φ instead (same sum, every share ≥ 0)."""
    share = delta / t_star if t_star else 0.0
    rewards = [r + share if t < t_star else r for t, r in enumerate(raw)]
    if any(r < 0 for r in rewards[:t_star]):
        mass = sum(phis[:t_star])
        rewards[:t_star] = [target * phi / mass for phi in phis[:t_star]]
    return rewards


def step_rewards(
    phis: Sequence[float], success: bool, ref_len: int, config: SolarConfig = DEFAULT
) -> list[float]:
    """Dense shaped rewards r_0 … r_{T-1} of one trajectory."""
    return reward_breakdown(phis, success, ref_len, config).rewards


def group_advantages(
    rewards_by_candidate: Sequence[Sequence[float]], *, eps: float = 1e-4, scale: bool = True
) -> list[list[float]]:
    """Per-step group-relative advantages: ``out[k][t] = (r[k][t] − mean_t)/(std_t + eps)``
    over the candidates that have a step t (population std; ``scale=False`` only centres)."""
    out = [[0.0] * len(r) for r in rewards_by_candidate]
    longest = max((len(r) for r in rewards_by_candidate), default=0)
    for t in range(longest):
        members = [k for k, r in enumerate(rewards_by_candidate) if len(r) > t]
        values = [rewards_by_candidate[k][t] for k in members]
        mean = statistics.fmean(values)
        spread = statistics.pstdev(values, mean) + eps if scale else 1.0
        for k, value in zip(members, values, strict=True):
            out[k][t] = (value - mean) / spread
    return out


def step_candidates(
    episode: Mapping[str, Any],
    index: int,
    config: SolarConfig = DEFAULT,
    policy: Policy | None = None,
) -> list[Mapping[str, Any]]:
    """Up to N actions for one step: reference, recorded alternatives, then policy samples."""
    step = episode["steps"][index]
    pool = [step["action"]] if config.include_reference else []
    pool.extend(step.get("alternatives") or ())
    missing = config.n_candidates - len(pool)
    if missing > 0 and policy is not None:
        pool.extend(list(policy(episode, index, missing, config.temperature))[:missing])
    return pool[: config.n_candidates]


def stitch(
    episode: Mapping[str, Any], config: SolarConfig = DEFAULT, policy: Policy | None = None
) -> list[list[Mapping[str, Any]]]:
    """N trajectories, the k-th taking every step's k-th candidate; N is the smallest
    candidate count over the steps (a trajectory must cover every step)."""
    per_step = [step_candidates(episode, t, config, policy) for t in range(len(episode["steps"]))]
    n = min((len(c) for c in per_step), default=0)
    return [[candidates[k] for candidates in per_step] for k in range(n)]


def action_completion(action: Mapping[str, Any]) -> str:
    """The assistant text of an action: its stored ``completion`` (repair patches), else
    the action as compact JSON."""
    text = action.get("completion")
    if isinstance(text, str):
        return text
    return json.dumps(dict(action), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class _Scored:
    """One episode's stitched candidates with their validities and successes."""

    episode_id: str
    trajectories: list[list[Mapping[str, Any]]]
    phis: list[list[float]]
    successes: list[bool]


def _score(
    index: int, episode: Mapping[str, Any], config: SolarConfig, policy: Policy | None
) -> _Scored | str:
    steps = episode.get("steps") if isinstance(episode, Mapping) else None
    if not isinstance(steps, list) or not steps:
        return "no_steps"
    try:
        trajectories = stitch(episode, config, policy)
    except (KeyError, TypeError):
        raise SolarError("every step needs an action", param=f"episodes[{index}].steps") from None
    if len(trajectories) < 2:
        return "too_few_candidates"
    phis = []
    for trajectory in trajectories:
        try:
            phis.append([step_validity(a, steps[t], config) for t, a in enumerate(trajectory)])
        except SolarError as error:
            raise SolarError(error.message, param=f"episodes[{index}].steps") from None
    reference_success = bool(episode.get("success", True))
    successes = [reference_success and first_failure(p, config) == len(p) for p in phis]
    return _Scored(str(episode.get("episode_id", index)), trajectories, phis, successes)


def _rows(
    scored: _Scored,
    episode: Mapping[str, Any],
    rewards: list[list[float]],
    advantages: list[list[float]],
    render: Render,
    completion: Callable[[Mapping[str, Any]], str],
) -> list[dict[str, Any]]:
    rows = []
    for t, step in enumerate(episode["steps"]):
        prompt = render(episode, t, step)
        for k, trajectory in enumerate(scored.trajectories):
            rows.append(
                {
                    "prompt": [dict(m) for m in prompt],
                    "completion": [{"role": "assistant", "content": completion(trajectory[t])}],
                    "advantage": advantages[k][t],
                    "reward": rewards[k][t],
                    "group": f"{scored.episode_id}:{t}",
                }
            )
    return rows


def _build(
    kind: str,
    episodes: Iterable[Mapping[str, Any]],
    render: Render,
    config: SolarConfig,
    policy: Policy | None,
    completion: Callable[[Mapping[str, Any]], str],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    seen = kept = candidates = successes = 0
    skipped: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    for index, episode in enumerate(episodes):
        seen += 1
        scored = _score(index, episode, config, policy)
        if isinstance(scored, str):
            skipped[scored] += 1
            continue
        kept += 1
        candidates += len(scored.trajectories)
        successes += sum(scored.successes)
        ref_len = len(episode["steps"])
        if kind == "solar":
            rewards = [
                step_rewards(p, s, ref_len, config)
                for p, s in zip(scored.phis, scored.successes, strict=True)
            ]
            advantages = group_advantages(rewards, eps=config.eps, scale=config.scale_advantages)
        else:
            outcome = [[float(s)] for s in scored.successes]
            spread = group_advantages(outcome, eps=config.eps, scale=config.scale_advantages)
            rewards = [[o[0]] * ref_len for o in outcome]
            advantages = [[a[0]] * ref_len for a in spread]
        failures.update(str(first_failure(p, config)) for p in scored.phis)
        rows.extend(_rows(scored, episode, rewards, advantages, render, completion))
    stats = {
        "builder": kind,
        "rows": len(rows),
        "episodes": {"seen": seen, "kept": kept, "skipped": dict(sorted(skipped.items()))},
        "trajectories": candidates,
        "successful_trajectories": successes,
        "first_failure": dict(sorted(failures.items(), key=lambda kv: int(kv[0]))),
        "groups": len({r["group"] for r in rows}),
    }
    return rows, stats


def solar_rows(
    episodes: Iterable[Mapping[str, Any]],
    *,
    render: Render,
    config: SolarConfig = DEFAULT,
    policy: Policy | None = None,
    completion: Callable[[Mapping[str, Any]], str] = action_completion,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Episodes → SOLAR step rows ``{"prompt", "completion", "advantage", "reward",
    "group": "<episode>:<step>"}`` (dense shaped rewards, per-step group advantages)."""
    return _build("solar", episodes, render, config, policy, completion)


def sparse_rows(
    episodes: Iterable[Mapping[str, Any]],
    *,
    render: Render,
    config: SolarConfig = DEFAULT,
    policy: Policy | None = None,
    completion: Callable[[Mapping[str, Any]], str] = action_completion,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The sparse GRPO baseline: the same rows, but every step of candidate k carries its
    trajectory's success (1/0) as reward and that outcome's advantage, group-relative over
    the N trajectories."""
    return _build("grpo_sparse", episodes, render, config, policy, completion)
