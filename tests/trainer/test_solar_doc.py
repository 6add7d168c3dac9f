"""docs/solar.md's worked example, recomputed by the code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from services.trainer.solar import (
    SolarConfig,
    first_failure,
    reward_breakdown,
    solar_rows,
    sparse_rows,
    step_validity,
    stitch,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "solar.md"
TOL = 1e-6


def _example() -> dict[str, Any]:
    text = DOC.read_text()
    match = re.search(r"<!-- solar-worked-example -->\s*```json\n(.*?)\n```", text, re.S)
    assert match, "the worked example block is missing from docs/solar.md"
    return json.loads(match.group(1))


EXAMPLE = _example()
CONFIG = SolarConfig(**EXAMPLE["config"])
EPISODE = EXAMPLE["episode"]
EXPECTED = EXAMPLE["expected"]


def _render(episode: Any, index: int, step: Any) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{episode['goal']} (step {index})"}]


def _rows_by_candidate(rows: list[dict[str, Any]], key: str) -> list[list[float]]:
    """Rows come step by step, candidates in order within a step."""
    n = len(EXPECTED["phis"])
    return [[row[key] for row in rows[k::n]] for k in range(n)]


def test_the_example_has_four_steps_and_two_candidates() -> None:
    trajectories = stitch(EPISODE, CONFIG)
    assert len(EPISODE["steps"]) == 4
    assert len(trajectories) == 2


def test_validity_first_failure_and_rewards_match_the_doc() -> None:
    steps = EPISODE["steps"]
    for k, trajectory in enumerate(stitch(EPISODE, CONFIG)):
        phis = [step_validity(a, steps[t], CONFIG) for t, a in enumerate(trajectory)]
        assert phis == pytest.approx(EXPECTED["phis"][k], abs=TOL)
        t_star = first_failure(phis, CONFIG)
        assert t_star == EXPECTED["first_failure"][k]
        success = t_star == len(phis) and EPISODE["success"]
        assert success == EXPECTED["success"][k]
        breakdown = reward_breakdown(phis, success, len(steps), CONFIG)
        assert breakdown.raw == pytest.approx(EXPECTED["raw"][k], abs=TOL)
        assert breakdown.target == pytest.approx(EXPECTED["r_target"][k], abs=TOL)
        assert breakdown.delta == pytest.approx(EXPECTED["delta"][k], abs=TOL)
        assert breakdown.rewards == pytest.approx(EXPECTED["rewards"][k], abs=TOL)


def test_rows_carry_the_documented_rewards_and_advantages() -> None:
    rows, stats = solar_rows([EPISODE], render=_render, config=CONFIG)
    assert stats["rows"] == 8 and stats["groups"] == 4
    rewards = _rows_by_candidate(rows, "reward")
    advantages = _rows_by_candidate(rows, "advantage")
    for k in range(2):
        assert rewards[k] == pytest.approx(EXPECTED["rewards"][k], abs=TOL)
        assert advantages[k] == pytest.approx(EXPECTED["advantages"][k], abs=TOL)
    assert [row["group"] for row in rows[:2]] == ["ep-1:0", "ep-1:0"]


def test_sparse_baseline_matches_the_doc() -> None:
    rows, _ = sparse_rows([EPISODE], render=_render, config=CONFIG)
    advantages = _rows_by_candidate(rows, "advantage")
    for k in range(2):
        assert advantages[k] == pytest.approx(EXPECTED["sparse_advantages"][k], abs=TOL)


def test_the_defaults_table_matches_solar_config() -> None:
    table = DOC.read_text().split("## Defaults (`SolarConfig`)")[1].split("## Worked example")[0]
    documented: dict[str, str] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            names = re.findall(r"`(\w+)`", cells[0])
            for name, value in zip(names, cells[1].split(","), strict=True):
                documented[name] = value.strip()
    defaults = SolarConfig()
    assert set(documented) == set(SolarConfig.help())
    for name, value in documented.items():
        assert json.loads(value) == getattr(defaults, name), name
