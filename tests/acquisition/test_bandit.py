from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.acquisition.bandits._bandit import (
    BanditPolicy,
    EpsilonGreedyPolicy,
    ThompsonPolicy,
    UCBPolicy,
    available_policies,
    make_policy,
    policy_from_state_dict,
)
from fairacq.exceptions import (
    BudgetError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownNameError,
)

ALL = [True, True, True]


def _policies(seed=0):
    return [
        UCBPolicy(alpha=0.1),
        ThompsonPolicy(random_state=seed),
        EpsilonGreedyPolicy(epsilon=0.3, random_state=seed),
    ]


def test_ucb_hand_computed_sequence():
    p = UCBPolicy(alpha=0.1)
    p.reset(3)
    np.testing.assert_array_equal(p.scores(), [0.0, 0.0, 0.0])
    assert p.select(ALL) == 0  # Algorithm 1: U = 0 everywhere, lowest index
    assert p.select([False, True, True]) == 1

    p.update([0.04, 0.02, 0.01], chosen=0)  # improvement: n_0 = 1
    assert p.counts.tolist() == [1, 0, 0]
    # n = 1: bonus sqrt(2 ln(1/2)) clamped to 0 for arm 0, sqrt(2 ln 1) = 0 for the others
    np.testing.assert_allclose(p.scores(), [0.04, 0.02, 0.01])
    assert p.select(ALL) == 0

    p.update([-0.06, -0.03, -0.01], chosen=0)  # penalty: counts unchanged
    assert p.counts.tolist() == [1, 0, 0]
    np.testing.assert_allclose(p.aggregated_scores(), [-0.02, -0.01, 0.0], atol=1e-15)
    np.testing.assert_allclose(p.exploration_bonus(), [0.0, 0.0, 0.0])
    assert p.select(ALL) == 2

    p.update([0.01, 0.02, 0.05], chosen=2)  # improvement from arm 2: n = 2
    assert p.counts.tolist() == [1, 0, 1]
    bonus1 = 0.1 * math.sqrt(2 * math.log(2 / 1))
    np.testing.assert_allclose(p.aggregated_scores(), [-0.01, 0.01, 0.05], atol=1e-15)
    np.testing.assert_allclose(p.exploration_bonus(), [0.0, bonus1, 0.0])
    np.testing.assert_allclose(p.scores(), [-0.01, 0.01 + bonus1, 0.05], atol=1e-15)
    assert p.select(ALL) == 1  # exploration wins

    p.update([-0.01, -0.04, -0.02], chosen=1)
    np.testing.assert_allclose(p.scores(), [-0.02, -0.03 + bonus1, 0.03], atol=1e-15)
    assert p.select(ALL) == 1
    assert p.select([True, False, True]) == 2
    assert p.n_rounds == 4
    np.testing.assert_allclose(p.mean_rewards(), p.aggregated_scores())

    greedy = UCBPolicy(alpha=0.0)
    greedy.load_state_dict({**p.state_dict(), "params": {"alpha": 0.0}})
    assert greedy.select(ALL) == 2  # no exploration bonus


def test_ucb_repeated_positive_arm_gets_mean():
    p = UCBPolicy(alpha=1.0)
    p.reset(2)
    for _ in range(3):
        p.update([0.03, 0.01], chosen=0)
    assert p.counts.tolist() == [3, 0]
    np.testing.assert_allclose(p.aggregated_scores(), [0.03, 0.03])  # arm 1: sum / max(0, 1)
    np.testing.assert_allclose(p.exploration_bonus(), [0.0, math.sqrt(2 * math.log(3))])
    assert p.select([True, True]) == 1


@pytest.mark.parametrize("index", range(3))
def test_policies_pick_only_available_arms(index, seed):
    policy = _policies(seed)[index]
    policy.reset(6)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        mask = rng.random(6) < 0.5
        if not mask.any():
            mask[rng.integers(6)] = True
        arm = policy.select(mask)
        assert mask[arm]
        policy.update(rng.normal(0, 0.02, size=6), chosen=arm)


@pytest.mark.parametrize("index", range(3))
def test_state_dict_round_trip_gives_same_choices(index, seed):
    rng = np.random.default_rng(seed)
    rewards = rng.normal(0.0, 0.02, size=(25, 5))
    masks = rng.random((25, 5)) < 0.7
    masks[:, 0] = True

    def play(policy, rows):
        chosen = []
        for r, m in zip(rewards[rows], masks[rows], strict=True):
            arm = policy.select(m)
            policy.update(r, chosen=arm)
            chosen.append(arm)
        return chosen

    a = _policies(seed)[index]
    a.reset(5)
    play(a, slice(0, 10))
    state = json.loads(json.dumps(a.state_dict()))  # plain JSON types
    rest = play(a, slice(10, 25))
    b = policy_from_state_dict(state)
    assert type(b) is type(a)
    assert play(b, slice(10, 25)) == rest
    c = _policies(seed + 1)[index]  # another seed: the saved generator state wins
    c.load_state_dict(state)
    assert play(c, slice(10, 25)) == rest


def test_same_seed_same_choices_other_seed_differs():
    def run(policy):
        policy.reset(4)
        out = []
        for t in range(30):
            arm = policy.select([True] * 4)
            policy.update(np.full(4, 0.01 * ((t % 3) - 1)), chosen=arm)
            out.append(arm)
        return out

    for cls in (ThompsonPolicy, EpsilonGreedyPolicy):
        kw = {"epsilon": 0.5} if cls is EpsilonGreedyPolicy else {}
        assert run(cls(random_state=3, **kw)) == run(cls(random_state=3, **kw))
        assert run(cls(random_state=3, **kw)) != run(cls(random_state=4, **kw))


def test_thompson_posterior_and_scale_invariance():
    p = ThompsonPolicy(random_state=0)
    p.reset(3)
    p.update([0.03, 0.0, -0.03], chosen=0)
    p.update([0.01, 0.02, -0.01], chosen=1)
    np.testing.assert_allclose(p.scores(), [0.04 / 3, 0.02 / 3, -0.04 / 3])
    picks = []
    for scale in (1.0, 1000.0):
        q = ThompsonPolicy(random_state=7)
        q.reset(3)
        out = []
        for t in range(20):
            arm = q.select(ALL)
            q.update(scale * np.array([0.01, 0.012, -0.02]) * (1 + t % 2), chosen=arm)
            out.append(arm)
        picks.append(out)
    assert picks[0] == picks[1]  # prior_scale=None adapts to the reward units
    fixed = ThompsonPolicy(prior_scale=1e-9, random_state=0)
    fixed.reset(3)
    fixed.update([0.0, 0.05, 0.01], chosen=1)
    assert all(fixed.select(ALL) == 1 for _ in range(10))  # tiny scale: greedy


def test_epsilon_greedy_extremes():
    greedy = EpsilonGreedyPolicy(epsilon=0.0, random_state=0)
    greedy.reset(3)
    assert greedy.select(ALL) == 0
    greedy.update([0.0, 0.03, 0.01], chosen=0)
    assert all(greedy.select(ALL) == 1 for _ in range(10))
    explorer = EpsilonGreedyPolicy(epsilon=1.0, random_state=0)
    explorer.reset(4)
    explorer.update([0.0, 0.03, 0.01, 0.0], chosen=0)
    seen = {explorer.select([True, False, True, True]) for _ in range(60)}
    assert seen == {0, 2, 3}


def test_make_policy():
    assert available_policies() == ["epsilon_greedy", "thompson", "ucb"]
    assert isinstance(make_policy("ucb", alpha=0.3), UCBPolicy)
    assert make_policy("UCB").get_params() == {"alpha": 0.1}
    assert isinstance(make_policy("epsilon-greedy", epsilon=0.2), EpsilonGreedyPolicy)
    assert isinstance(make_policy("thompson", random_state=1), ThompsonPolicy)
    with pytest.raises(UnknownNameError, match="Did you mean 'thompson'"):
        make_policy("thomson")
    with pytest.raises(InvalidParameterError, match=r"no parameter 'epsilon'.*alpha"):
        make_policy("ucb", epsilon=0.1)
    assert repr(make_policy("ucb", alpha=0.5)) == "UCBPolicy(alpha=0.5)"


@pytest.mark.parametrize(
    ("policy", "match"),
    [
        (UCBPolicy(alpha=-1.0), "'alpha' parameter of UCBPolicy"),
        (EpsilonGreedyPolicy(epsilon=1.5), "'epsilon' parameter of EpsilonGreedyPolicy"),
        (ThompsonPolicy(prior_scale=0.0), "'prior_scale' parameter of ThompsonPolicy"),
        (ThompsonPolicy(random_state=-3), "'random_state' parameter"),
    ],
)
def test_bad_parameters_raise_at_reset(policy, match):
    with pytest.raises(InvalidParameterError, match=match):
        policy.reset(3)


def test_misuse_errors():
    p = UCBPolicy()
    with pytest.raises(NotFittedError, match="reset"):
        p.select(ALL)
    with pytest.raises(NotFittedError, match="reset"):
        p.state_dict()
    with pytest.raises(InvalidParameterError, match="n_arms"):
        p.reset(0)
    p.reset(3)
    with pytest.raises(BudgetError, match="no partition is available"):
        p.select([False, False, False])
    with pytest.raises(InvalidDataError, match="one bool per arm"):
        p.select([True, True])
    with pytest.raises(InvalidDataError, match="3 finite values"):
        p.update([0.1, np.nan, 0.0], chosen=0)
    with pytest.raises(InvalidParameterError, match="not an arm"):
        p.update([0.1, 0.0, 0.0], chosen=3)
    other = ThompsonPolicy(random_state=0)
    other.reset(3)
    with pytest.raises(InvalidParameterError, match="saved by policy 'thompson'"):
        p.load_state_dict(other.state_dict())
    with pytest.raises(InvalidParameterError, match="saved with"):
        UCBPolicy(alpha=0.7).load_state_dict(p.state_dict())
    broken = {**p.state_dict(), "reward_sums": [0.0]}
    with pytest.raises(InvalidDataError, match="malformed"):
        p.load_state_dict(broken)
    with pytest.raises(InvalidDataError, match="'policy' and 'params'"):
        policy_from_state_dict({"n_arms": 3})


def test_base_class_is_abstract():
    with pytest.raises(TypeError):
        BanditPolicy()  # type: ignore[abstract]


@given(
    rounds=st.lists(
        st.tuples(
            st.floats(-1.0, 1.0, allow_nan=False),
            st.integers(0, 3),
            st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=4, max_size=4),
        ),
        max_size=30,
    ),
    alpha=st.floats(0.0, 10.0, allow_nan=False),
)
def test_ucb_scores_finite(rounds, alpha):
    p = UCBPolicy(alpha=alpha)
    p.reset(4)
    for delta, chosen, shrink in rounds:
        p.update(delta * (1.0 - 0.5 * np.asarray(shrink)), chosen=chosen)
        u = p.scores()
        assert np.isfinite(u).all()
        assert (p.exploration_bonus() >= 0).all()
        assert 0 <= p.select([True] * 4) < 4


def test_thompson_draws_hand_computed() -> None:
    """Each arm's draw is S_i/(m+1) + tau/sqrt(m+1) * z_i with tau the rms of all rewards so
    far (or prior_scale) and z the policy's standard normals; the largest available wins.
    Over 150 seeds the noise and the means are of one size, so a wrong scale changes picks."""
    rewards = [np.array([0.3, -0.1, 0.0, 0.2]), np.array([-0.2, 0.4, 0.1, 0.0])]
    sums, m = rewards[0] + rewards[1], 2
    masks = [np.asarray(k, dtype=bool) for k in ([1, 1, 1, 1], [1, 0, 1, 1], [0, 0, 1, 1])]
    for prior_scale in (None, 0.05):
        tau = np.sqrt(np.mean(np.concatenate(rewards) ** 2)) if prior_scale is None else 0.05
        for seed in range(150):
            policy = ThompsonPolicy(prior_scale=prior_scale, random_state=seed)
            policy.reset(4)
            for r in rewards:
                policy.update(r, chosen=0)
            np.testing.assert_allclose(policy.scores(), sums / (m + 1))
            np.testing.assert_allclose(policy.mean_rewards(), sums / m)
            z = np.random.default_rng(seed).standard_normal((len(masks), 4))
            for k, mask in enumerate(masks):
                draws = sums / (m + 1) + tau / np.sqrt(m + 1) * z[k]
                assert policy.select(mask) == int(np.argmax(np.where(mask, draws, -np.inf)))


def test_thompson_scale_is_one_before_any_reward_and_when_rewards_are_zero() -> None:
    policy = ThompsonPolicy(random_state=3)
    policy.reset(3)
    z = np.random.default_rng(3).standard_normal((2, 3))
    assert policy.select(np.ones(3, dtype=bool)) == int(np.argmax(z[0]))
    policy.update(np.zeros(3), chosen=1)
    assert policy.select(np.ones(3, dtype=bool)) == int(np.argmax(z[1] / np.sqrt(2)))


def test_epsilon_greedy_mean_rewards_and_exploration_hand_computed() -> None:
    policy = EpsilonGreedyPolicy(epsilon=0.5, random_state=11)
    policy.reset(3)
    policy.update([0.1, 0.4, -0.2], chosen=0)
    policy.update([0.3, -0.2, 0.0], chosen=1)
    np.testing.assert_allclose(policy.mean_rewards(), [0.2, 0.1, -0.1])
    rng = np.random.default_rng(11)
    for mask in ([1, 1, 1], [0, 1, 1], [0, 1, 1], [1, 0, 1], [1, 1, 1]):
        avail = np.asarray(mask, dtype=bool)
        if rng.random() < 0.5:
            expected = int(rng.choice(np.flatnonzero(avail)))
        else:
            expected = int(np.flatnonzero(avail)[np.argmax(np.array([0.2, 0.1, -0.1])[avail])])
        assert policy.select(avail) == expected
