"""The trainer benchmark over seeds: means and spreads of every figure, and the curves' plot.

:func:`aggregate` folds K runs into one dict of the same shape: a number becomes its mean
(and ``<key>_std``, the sample standard deviation, 0 for one run); a list of numbers (a
curve) or a dict of numbers (``teacher_wins``, ``ves_teachers``) is folded element by
element (a key missing from a run counts as 0); a list of dicts (``evo_rounds``) is folded
entry by entry. Anything else (names, sizes) is taken from the first run. Every run's own
figures stay under ``per_seed``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["aggregate", "plot_curves"]

Fold = Callable[[list[float]], float]


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 4)


def _std(values: list[float]) -> float:
    return round(statistics.stdev(values), 4) if len(values) > 1 else 0.0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fold(values: Sequence[Any], fold: Fold) -> Any:
    """``values`` (one per run) folded by ``fold``; ``None`` where they cannot be."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    if all(_number(v) for v in present):
        return fold([float(v) for v in present])
    if all(isinstance(v, dict) for v in present):
        keys = list(dict.fromkeys(k for v in present for k in v))
        folded = {k: _fold([v.get(k, 0) for v in present], fold) for k in keys}
        return None if any(x is None for x in folded.values()) else folded
    if all(isinstance(v, list) for v in present) and len({len(v) for v in present}) == 1:
        folded = [_fold(list(col), fold) for col in zip(*present, strict=True)]
        return None if any(v is None for v in folded) else folded
    return None


def aggregate(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """K runs of :func:`benchmarks.trainer_bench.run` → means, ``<key>_std`` and ``per_seed``."""
    out: dict[str, Any] = {"n_seeds": len(runs)}
    for key in runs[0]:
        values = [run.get(key) for run in runs]
        mean = _fold(values, _mean)
        if key == "seeds":
            out[key] = values
            continue
        if mean is None or key == "sizes":
            out[key] = values[0]
            continue
        out[key] = mean
        if key != "runtime_s":
            out[f"{key}_std"] = _fold(values, _std)
    out["per_seed"] = [{k: v for k, v in run.items() if k != "sizes"} for run in runs]
    return out


def plot_curves(figures: dict[str, Any], path: Path) -> Path:
    """Step success per online iteration, SOLAR vs sparse GRPO (mean ± std), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    for kind, colour in (("solar", "tab:blue"), ("sparse", "tab:orange")):
        mean = [figures["step_sr_sft"], *figures[f"{kind}_curve"]]
        spread = [figures.get("step_sr_sft_std", 0.0), *figures[f"{kind}_curve_std"]]
        steps = list(range(len(mean)))
        label = "SOLAR (dense, shaped)" if kind == "solar" else "sparse GRPO"
        ax.plot(steps, mean, marker="o", color=colour, label=label)
        low = [m - s for m, s in zip(mean, spread, strict=True)]
        high = [m + s for m, s in zip(mean, spread, strict=True)]
        ax.fill_between(steps, low, high, color=colour, alpha=0.15)
    ax.set_xlabel("online iteration (0 = the SFT policy)")
    ax.set_ylabel("held-out step success rate")
    ax.set_title(f"SOLAR vs sparse GRPO, {figures.get('n_seeds', 1)} seed(s), mean ± std")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
