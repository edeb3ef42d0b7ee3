from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.exceptions import InvalidParameterError
from fairacq.features import adversary_loss, classifier_loss, group_weights, terminal_reward

probs = st.floats(0.001, 0.999)


@st.composite
def episodes(draw, n_groups=2):
    n = draw(st.integers(n_groups, 30))
    s = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    s[:n_groups] = np.arange(n_groups)  # every group present
    p = np.array(draw(st.lists(probs, min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return s, p, y


@given(episodes())
def test_gnl1_is_eq6_for_two_groups(data):
    s, g, _ = data
    n = len(s)
    expected = np.array(
        [n / (2 * np.sum(s == b)) * abs(gi - b) for gi, b in zip(g, s, strict=False)]
    )
    got = adversary_loss(g, s, kind="gnl1", weights=group_weights(s))
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # the (n, 2) form gives the same numbers
    both = np.stack([1 - g, g], axis=1)
    np.testing.assert_allclose(adversary_loss(both, s, weights=group_weights(s)), got)


@given(episodes())
def test_ce_is_eq5(data):
    s, g, _ = data
    expected = -(s * np.log(g) + (1 - s) * np.log(1 - g))
    np.testing.assert_allclose(adversary_loss(g, s, kind="ce"), expected, rtol=1e-9)


@given(episodes(n_groups=3))
def test_multigroup_gnl1_is_half_l1_times_weight(data):
    s, _p, _ = data
    rng = np.random.default_rng(len(s))
    proba = rng.dirichlet(np.ones(3), size=len(s))
    w = group_weights(s, 3)
    onehot = np.eye(3)[s]
    expected = w[s] * 0.5 * np.abs(onehot - proba).sum(axis=1)
    np.testing.assert_allclose(adversary_loss(proba, s, weights=w), expected, rtol=1e-9)
    # each group carries the same total weight |P| / G
    np.testing.assert_allclose(w * np.bincount(s, minlength=3), len(s) / 3)


@given(episodes())
def test_terminal_reward_is_eq2(data):
    s, p, y = data
    w = group_weights(s)
    for gamma in (0.0, 0.3, 1.0):
        r = terminal_reward(p, y, p, s, gamma=gamma, weights=w)
        lc = classifier_loss(p, y)
        la = adversary_loss(p, s, weights=w)
        np.testing.assert_allclose(r, -(1 - gamma) * lc + gamma * la)
    assert (classifier_loss(p, y) >= 0).all()


def test_classifier_loss_values():
    np.testing.assert_allclose(classifier_loss([0.8, 0.8], [1, 0]), [-np.log(0.8), -np.log(0.2)])
    assert classifier_loss([1.0], [1])[0] == pytest.approx(0.0, abs=1e-6)


def test_group_weights_absent_group_gets_zero():
    assert group_weights([0, 0, 2], 3).tolist() == [0.5, 0.0, 1.0]


def test_bad_arguments():
    with pytest.raises(InvalidParameterError, match="gamma"):
        terminal_reward([0.5], [1], [0.5], [0], gamma=1.5, weights=[1, 1])
    with pytest.raises(InvalidParameterError, match="kind"):
        adversary_loss([0.5], [0], kind="l2")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="weights"):
        adversary_loss([0.5], [0], kind="gnl1")
