from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.acquisition.bandits._rewards import REWARD_KINDS, reward_per_cost, share_reward
from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError

DIST = np.array([[0.0, 0.5, 1.0], [0.5, 0.0, 0.25], [1.0, 0.25, 0.0]])
BR = np.array([0.1, -0.3, 0.0])


def test_datasift_reward_hand_computed():
    r = share_reward(0.06, 1, DIST, BR)
    # r_j = 0.06 / ((1 + |dBR_j|) (1 + dist(C_1, C_j)))
    expected = [0.06 / (1.1 * 1.5), 0.06 / (1.3 * 1.0), 0.06 / (1.0 * 1.25)]
    np.testing.assert_allclose(r, expected, rtol=1e-12)


def test_distance_reward_hand_computed():
    r = share_reward(-0.04, 0, DIST, None, kind="distance")
    np.testing.assert_allclose(r, [-0.04, -0.04 / 1.5, -0.02], rtol=1e-12)
    # base-rate differences are ignored by the distance-only rule
    np.testing.assert_array_equal(r, share_reward(-0.04, 0, DIST, BR, kind="distance"))


def test_base_rate_reward_hand_computed():
    r = share_reward(0.026, 2, DIST, BR, kind="base_rate")
    np.testing.assert_allclose(r, [0.026 / 1.1, 0.02, 0.026], rtol=1e-12)


def test_zero_improvement_gives_zero_rewards():
    for kind in REWARD_KINDS:
        np.testing.assert_array_equal(share_reward(0.0, 0, DIST, BR, kind=kind), np.zeros(3))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((0.1, 0, DIST, BR), {"kind": "dist"}, UnknownNameError, "Did you mean 'distance'"),
        ((0.1, 3, DIST, BR), {}, InvalidParameterError, "not a partition index"),
        ((0.1, 1.0, DIST, BR), {}, InvalidParameterError, "int partition index"),
        ((np.nan, 0, DIST, BR), {}, InvalidParameterError, "finite"),
        ((0.1, 0, DIST[:2], BR), {}, InvalidDataError, "square"),
        ((0.1, 0, -DIST, BR), {}, InvalidDataError, ">= 0"),
        ((0.1, 0, DIST, BR[:2]), {}, InvalidDataError, "3 finite values"),
        ((0.1, 0, DIST, None), {}, InvalidDataError, "needs base_rate_diffs"),
    ],
)
def test_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        share_reward(*args, **kwargs)


def test_reward_per_cost():
    np.testing.assert_allclose(reward_per_cost([0.2, -0.1], 4.0), [0.05, -0.025])
    np.testing.assert_allclose(reward_per_cost([0.2, -0.1], [2.0, 0.5]), [0.1, -0.2])
    r = share_reward(0.06, 1, DIST, BR)
    np.testing.assert_array_equal(reward_per_cost(r, 1.0), r)  # uniform cost = the paper
    with pytest.raises(InvalidDataError, match="> 0"):
        reward_per_cost([0.1], 0.0)
    with pytest.raises(InvalidDataError, match="does not match"):
        reward_per_cost([0.1, 0.2], [1.0, 2.0, 3.0])


finite = st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=False)
nonneg = st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False)


@given(delta=finite, d1=nonneg, d2=nonneg, b1=finite, b2=finite)
def test_reward_sign_and_monotonicity(delta, d1, d2, b1, b2):
    dist = np.array([[0.0, d1, d2], [d1, 0.0, 0.0], [d2, 0.0, 0.0]])
    br = np.array([0.0, b1, b2])
    for kind in REWARD_KINDS:
        r = share_reward(delta, 0, dist, br, kind=kind)
        assert np.all(np.sign(r) == np.sign(delta))
        assert np.all(np.abs(r) <= abs(delta) + 1e-15)
    # |r| never grows with the distance to the chosen partition (same base rate)
    same_br = np.array([0.0, b1, b1])
    for kind in ("datasift", "distance"):
        r = share_reward(delta, 0, dist, same_br, kind=kind)
        if d1 <= d2:
            assert abs(r[1]) >= abs(r[2])
    # ... nor with |dBR| (same distance)
    same_d = np.array([[0.0, d1, d1], [d1, 0.0, 0.0], [d1, 0.0, 0.0]])
    for kind in ("datasift", "base_rate"):
        r = share_reward(delta, 0, same_d, br, kind=kind)
        if abs(b1) <= abs(b2):
            assert abs(r[1]) >= abs(r[2])
        if abs(delta) > 1e-9 and abs(b2) - abs(b1) > 1e-9:
            assert abs(r[1]) > abs(r[2])
