"""SOLAR-RL maths: validity per action type, first failure, shaped rewards, advantages, rows."""

from __future__ import annotations

import statistics
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.trainer.solar import (
    SolarConfig,
    SolarError,
    first_failure,
    group_advantages,
    reward_breakdown,
    solar_rows,
    sparse_rows,
    step_candidates,
    step_rewards,
    step_validity,
    stitch,
)

CFG = SolarConfig()
BUTTON = {"id": "ok", "text": "OK", "bbox": [100, 200, 300, 300], "clickable": True}
PANEL = {"id": "panel", "text": "", "bbox": [0, 0, 1000, 2000], "clickable": True}


def click_step(**action: Any) -> dict[str, Any]:
    observation = {"screen": [1000, 2000], "ui": [PANEL, BUTTON]}
    return {"observation": observation, "action": {"type": "click", **action}}


# --- validity --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "phi"),
    [
        (200, 250, 1.0),  # centre
        (315, 250, 1.0),  # outside the box, inside it enlarged ×1.2 (x ≤ 320)
        (330, 250, 1.0),  # outside the enlarged box, 0.13 from the centre
        (345, 250, 0.0),  # 0.145 away
        (200, 540, 0.0),  # 0.145 away vertically (y / 2000)
        (200, 520, 1.0),  # 0.135 away vertically
    ],
)
def test_click_box_and_radius(x: float, y: float, phi: float) -> None:
    assert step_validity({"type": "click", "x": x, "y": y}, click_step(element_id="ok")) == phi


def test_click_inside_a_large_enlarged_box_is_valid_far_from_its_centre() -> None:
    big = {"id": "big", "bbox": [0, 0, 1000, 1000], "clickable": True}
    step = {
        "observation": {"screen": [1000, 2000], "ui": [big]},
        "action": {"type": "click", "element_id": "big"},
    }
    assert step_validity({"type": "click", "x": 950, "y": 1050}, step) == 1.0  # y 0.525 ≤ 0.55
    assert step_validity({"type": "click", "x": 950, "y": 1150}, step) == 0.0


def test_click_by_element_and_smallest_clickable_target() -> None:
    ref = click_step(x=150, y=220)  # inside both the panel and the button: the button wins
    assert step_validity({"type": "click", "element_id": "ok"}, ref) == 1.0
    assert step_validity({"type": "click", "x": 900, "y": 1900}, ref) == 0.0
    assert step_validity({"type": "click"}, ref) == 0.0  # no point: invalid prediction


def test_click_radius_and_box_follow_the_config() -> None:
    tight = SolarConfig(click_radius=0.05, click_box_scale=1.0)
    assert (
        step_validity({"type": "click", "x": 315, "y": 250}, click_step(element_id="ok"), tight)
        == 0.0
    )


def test_coordinates_normalise_by_extent_or_pass_through() -> None:
    # No screen: the UI tree's extent (1000 × 2000 from the panel) is the screen.
    ref = {"observation": {"ui": [PANEL, BUTTON]}, "action": {"type": "click", "element_id": "ok"}}
    assert step_validity({"type": "click", "x": 330, "y": 250}, ref) == 1.0
    normalised = {
        "observation": {"ui": [{"id": "b", "bbox": [0.1, 0.1, 0.3, 0.15], "clickable": True}]},
        "action": {"type": "click", "element_id": "b"},
    }
    assert step_validity({"type": "click", "x": 0.33, "y": 0.125}, normalised) == 1.0
    assert step_validity({"type": "click", "x": 0.5, "y": 0.125}, normalised) == 0.0


def test_reference_click_without_target_is_an_error() -> None:
    with pytest.raises(SolarError):
        step_validity({"type": "click", "x": 1, "y": 1}, click_step(element_id="missing"))


@pytest.mark.parametrize(
    ("pred", "ref", "phi"),
    [
        (
            {"type": "type", "text": "Cheap flights, to Lisbon!"},
            {"type": "type", "text": "cheap flights to lisbon"},
            1.0,
        ),
        (
            {"type": "type", "text": "flights lisbon"},
            {"type": "type", "text": "cheap flights to lisbon"},
            2 / 3,
        ),
        ({"type": "type", "text": ""}, {"type": "type", "text": ""}, 1.0),
        ({"type": "type", "text": "x"}, {"type": "type", "text": ""}, 0.0),
        ({"type": "scroll", "direction": "Down"}, {"type": "scroll", "direction": "down"}, 1.0),
        ({"type": "scroll", "direction": "up"}, {"type": "scroll", "direction": "down"}, 0.0),
        (
            {"type": "open_app", "app_name": " google  maps"},
            {"type": "open_app", "app_name": "Google Maps"},
            1.0,
        ),
        (
            {"type": "open_app", "app_name": "googlemaps"},
            {"type": "open_app", "app_name": "Google Maps"},
            0.0,
        ),
        ({"type": "navigate_back"}, {"type": "navigate_back"}, 1.0),
        ({"type": "wait"}, {"type": "wait"}, 1.0),
        ({"type": "wait"}, {"type": "navigate_back"}, 0.0),
        ({"type": "patch", "applied": True, "broken_hard": []}, {"type": "patch"}, 1.0),
        ({"type": "patch", "applied": True, "broken_hard": ["L1"]}, {"type": "patch"}, 0.0),
        ({"type": "patch", "applied": False, "broken_hard": []}, {"type": "patch"}, 0.0),
    ],
)
def test_validity_per_action_type(pred: dict[str, Any], ref: dict[str, Any], phi: float) -> None:
    assert step_validity(pred, {"observation": {}, "action": ref}) == pytest.approx(phi)


def test_unknown_reference_type_is_an_error() -> None:
    with pytest.raises(SolarError):
        step_validity({"type": "fly"}, {"observation": {}, "action": {"type": "fly"}})


# --- rewards ---------------------------------------------------------------------------------


def test_first_failure() -> None:
    assert first_failure([1.0, 0.6, 0.49, 1.0]) == 2
    assert first_failure([1.0, 0.5]) == 2  # 0.5 is not below the threshold
    assert first_failure([0.0]) == 0
    assert first_failure([0.9, 0.4], SolarConfig(fail_threshold=0.3)) == 2


def test_failure_at_the_first_step_has_no_prefix_and_no_shaping() -> None:
    breakdown = reward_breakdown([0.2, 1.0, 0.0], False, 3)
    assert breakdown.first_failure == 0 and breakdown.delta == 0.0
    assert breakdown.rewards == pytest.approx([-0.8 / 3, -0.5 / 3, -1 / 3])
    assert breakdown.target == pytest.approx(0.4 * 0.4)


def test_unnormalised_rewards_use_raw_phi() -> None:
    config = SolarConfig(normalise_positive=False, normalise_negative=False)
    breakdown = reward_breakdown([1.0, 0.6, 0.2, 0.0], False, 4, config)
    assert breakdown.raw == pytest.approx([1.0, 0.6, -0.8, -1.0])
    target = 0.4 * 0.45 + 0.3 * 0.5
    # The equal spread would give the valid Φ = 0.6 step 0.6 + (target − 1.6)/2 < 0, so
    # the prefix is R_target split in proportion to Φ instead.
    assert 0.6 + (target - 1.6) / 2 < 0
    assert breakdown.rewards[:2] == pytest.approx([target / 1.6, target * 0.6 / 1.6])


def test_reward_inputs_are_checked() -> None:
    for phis, ref_len, param in (([], 1, "phis"), ([1.2], 1, "phis"), ([1.0], 0, "ref_len")):
        with pytest.raises(SolarError) as caught:
            step_rewards(phis, True, ref_len)
        assert caught.value.param == param


phi_lists = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12)


@given(phis=phi_lists, success=st.booleans(), ref_len=st.integers(1, 15))
def test_raw_sign_flips_exactly_at_the_first_failure(
    phis: list[float], success: bool, ref_len: int
) -> None:
    b = reward_breakdown(phis, success, ref_len)
    assert all(r > 0 for r in b.raw[: b.first_failure])
    assert all(r < 0 for r in b.raw[b.first_failure : b.first_failure + 1])
    assert all(r <= 0 for r in b.raw[b.first_failure :])
    # Shaping leaves the failure tail alone and makes the prefix sum to R_target.
    assert b.rewards[b.first_failure :] == b.raw[b.first_failure :]
    if b.first_failure:
        assert sum(b.rewards[: b.first_failure]) == pytest.approx(b.target)
    assert 0 <= b.target <= 1


rewards_groups = st.integers(2, 8).flatmap(
    lambda n: st.lists(
        st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=3), min_size=n, max_size=n
    )
)


@given(group=rewards_groups)
def test_advantages_have_mean_zero_within_each_step(group: list[list[float]]) -> None:
    advantages = group_advantages(group)
    for t in range(3):
        column = [a[t] for a in advantages]
        assert statistics.fmean(column) == pytest.approx(0, abs=1e-6)
        assert statistics.pstdev(column) <= 1 + 1e-9
        # Order within the group is preserved.
        values = [g[t] for g in group]
        i, j = values.index(max(values)), values.index(min(values))
        assert column[i] >= column[j]


def test_advantages_of_ragged_groups_and_unscaled() -> None:
    advantages = group_advantages([[1.0, 2.0], [3.0]], scale=False)
    assert advantages == [[-1.0, 0.0], [1.0]]


# --- candidates and rows ---------------------------------------------------------------------


def _episode(n_alternatives: int = 1, success: bool = True) -> dict[str, Any]:
    steps = [
        {
            "observation": {},
            "action": {"type": "scroll", "direction": "down"},
            "alternatives": [{"type": "scroll", "direction": "up"}] * n_alternatives,
        },
        {
            "observation": {},
            "action": {"type": "wait"},
            "alternatives": [{"type": "navigate_back"}] * n_alternatives,
        },
    ]
    return {"episode_id": "e", "goal": "g", "steps": steps, "success": success}


def _render(episode: Any, index: int, step: Any) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{episode['goal']}#{index}"}]


def test_candidates_come_from_reference_alternatives_then_policy() -> None:
    calls: list[tuple[int, int, float]] = []

    def policy(episode: Any, index: int, n: int, temperature: float) -> list[dict[str, Any]]:
        calls.append((index, n, temperature))
        return [{"type": "wait"}] * (n + 3)  # extra samples are cut

    config = SolarConfig(n_candidates=4, temperature=0.7)
    pool = step_candidates(_episode(), 0, config, policy)
    assert pool[0] == {"type": "scroll", "direction": "down"}
    assert pool[1] == {"type": "scroll", "direction": "up"}
    assert len(pool) == 4 and calls == [(0, 2, 0.7)]
    assert len(stitch(_episode(), config)) == 2  # no policy: reference + one alternative


def test_solar_rows_shape_and_groups() -> None:
    rows, stats = solar_rows([_episode()], render=_render, config=SolarConfig(n_candidates=2))
    assert len(rows) == 4 and stats["groups"] == 2
    assert set(rows[0]) == {"prompt", "completion", "advantage", "reward", "group"}
    assert rows[0]["prompt"] == [{"role": "user", "content": "g#0"}]
    assert rows[0]["completion"] == [
        {"role": "assistant", "content": '{"type":"scroll","direction":"down"}'}
    ]
    assert [r["group"] for r in rows] == ["e:0", "e:0", "e:1", "e:1"]
    # The reference trajectory is fully valid; the alternative fails at step 0.
    assert rows[0]["advantage"] > 0 > rows[1]["advantage"]
    assert rows[1]["reward"] < 0 and stats["successful_trajectories"] == 1


def test_episodes_without_enough_candidates_are_skipped() -> None:
    rows, stats = solar_rows(
        [_episode(n_alternatives=0), {"episode_id": "x", "steps": []}], render=_render
    )
    assert rows == []
    assert stats["episodes"]["skipped"] == {"no_steps": 1, "too_few_candidates": 1}


def test_sparse_rows_use_trajectory_success_only() -> None:
    config = SolarConfig(n_candidates=2)
    rows, _ = sparse_rows([_episode()], render=_render, config=config)
    assert [r["reward"] for r in rows] == [1.0, 0.0, 1.0, 0.0]
    assert rows[0]["advantage"] == pytest.approx(0.5 / 0.5001)
    failed, _ = sparse_rows([_episode(success=False)], render=_render, config=config)
    assert {r["advantage"] for r in failed} == {0.0}  # nobody succeeded: no signal


def test_config_validation_and_help() -> None:
    assert set(SolarConfig.help()) >= {"n_candidates", "click_radius", "w1", "w2", "w3"}
    assert all(SolarConfig.help().values())
    with pytest.raises(SolarError) as caught:
        SolarConfig(fail_threshold=0)
    assert caught.value.param == "fail_threshold"
    with pytest.raises(SolarError):
        SolarConfig(n_candidates=1)


def test_a_step_without_an_action_is_a_typed_error() -> None:
    with pytest.raises(SolarError) as caught:
        solar_rows([{"episode_id": "e", "steps": [{"observation": {}}]}], render=_render)
    assert caught.value.param == "episodes[0].steps"


@given(
    phis=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20),
    success=st.booleans(),
    ref_len=st.integers(1, 20),
    threshold=st.floats(0.05, 1.0),
    positive=st.booleans(),
    negative=st.booleans(),
)
def test_reward_signs_follow_the_paper(
    phis: list[float],
    success: bool,
    ref_len: int,
    threshold: float,
    positive: bool,
    negative: bool,
) -> None:
    """A valid step before t* is never negative; every step from t* on is negative."""
    config = SolarConfig(
        fail_threshold=threshold, normalise_positive=positive, normalise_negative=negative
    )
    breakdown = reward_breakdown(phis, success, ref_len, config)
    t_star = breakdown.first_failure
    assert all(r >= 0 for r in breakdown.rewards[:t_star])
    assert all(r < 0 for r in breakdown.rewards[t_star:])
    if t_star:
        assert sum(breakdown.rewards[:t_star]) == pytest.approx(breakdown.target)
