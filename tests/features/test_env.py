from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError
from fairacq.features import ActionSpace, DADIEnv, group_weights, terminal_reward


def _classifier(values, mask):
    z = (values * mask).sum(axis=1)
    return 1 / (1 + np.exp(-z))


def _adversary(values, mask):
    return np.full(len(values), 0.3) + 0.4 * mask.mean(axis=1)


def _env(**kwargs):
    ds = load_toy()
    return DADIEnv.from_dataset(ds, classifier=_classifier, adversary=_adversary, **kwargs), ds


def test_passes_gymnasium_checker():
    env, _ = _env()
    check_env(env, skip_render_check=True)


def test_passes_checker_with_multigroup_adversary():
    ds = load_toy(n_groups=3)
    env = DADIEnv.from_dataset(
        ds,
        classifier=_classifier,
        adversary=lambda v, m: np.tile([0.2, 0.3, 0.5], (len(v), 1)),
        reward="ce",
    )
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    _, r, terminated, _, _ = env.step(env.actions.stop)
    assert terminated
    assert r == pytest.approx(
        terminal_reward(
            _classifier(np.zeros((1, 8)), np.zeros((1, 8), bool)),
            ds.y[env._index : env._index + 1],
            [[0.2, 0.3, 0.5]],
            ds.s[env._index : env._index + 1],
            gamma=0.5,
            kind="ce",
        )[0]
    )


def test_grouped_action_reveals_all_its_columns_and_is_masked():
    env, ds = _env()
    obs, info = env.reset(seed=3)
    assert not obs["acquired"].any()
    assert info["action_mask"].all()
    region = env.actions.names.index("region")
    obs, r, terminated, truncated, info = env.step(region)
    assert (r, terminated, truncated) == (0.0, False, False)
    cols = [env.actions.columns.index(c) for c in ds.feature_groups["region"]]
    row = ds.X.to_numpy()[info["index"]]
    np.testing.assert_allclose(obs["values"][cols], row[cols].astype(np.float32))
    others = np.setdiff1d(np.arange(len(row)), cols)
    assert (obs["values"][others] == 0).all()
    assert env.action_masks()[region] == np.False_
    assert env.action_masks()[env.actions.stop] == np.True_
    assert info["acquired"] == ("region",)


def test_stop_pays_eq2_on_the_acquired_set():
    env, ds = _env(gamma=0.3, reward="gnl1")
    env.reset(seed=1, options={"index": 5})
    env.step(0)
    obs, r, terminated, truncated, _info = env.step(env.actions.stop)
    assert terminated
    assert not truncated
    mask = env.actions.column_mask(obs["acquired"].astype(bool))[None]
    x = ds.X.to_numpy()[5][None]
    expected = terminal_reward(
        _classifier(x, mask),
        ds.y[5:6],
        _adversary(x, mask),
        ds.s[5:6],
        gamma=0.3,
        weights=group_weights(ds.s),
    )[0]
    assert r == pytest.approx(expected)


def test_repeated_action_is_a_noop_and_episode_truncates():
    env, _ = _env()
    env.reset(seed=0)
    env.step(1)
    obs_before = env._observation()
    n = env.actions.n_actions
    for step in range(n):  # steps 2 .. n+1
        obs, r, terminated, truncated, info = env.step(1)
        assert info["repeated"]
        assert not terminated
        np.testing.assert_array_equal(obs["values"], obs_before["values"])
        if step < n - 1:
            assert r == 0.0
            assert not truncated
    assert truncated
    assert r != 0.0


def test_all_acquired_leaves_only_stop():
    env, _ = _env()
    env.reset(seed=0)
    for a in range(env.actions.n_actions):
        env.step(a)
    mask = env.action_masks()
    assert mask.tolist() == [False] * env.actions.n_actions + [True]


def test_reset_is_seeded():
    env, _ = _env()
    a = env.reset(seed=7)[1]["index"]
    b = env.reset(seed=7)[1]["index"]
    assert a == b
    idx = {env.reset(seed=s)[1]["index"] for s in range(20)}
    assert len(idx) > 1


def test_bad_arguments():
    with pytest.raises(InvalidParameterError, match="gamma"):
        _env(gamma=-0.1)
    with pytest.raises(InvalidParameterError, match="reward"):
        _env(reward="l1")
    env, _ = _env()
    env.reset(seed=0)
    with pytest.raises(InvalidParameterError, match="outside"):
        env.step(99)
    with pytest.raises(InvalidParameterError, match="index"):
        env.reset(options={"index": 10_000})


def test_default_actions_one_per_column():
    X = np.array([[0.0, 1.0], [2.0, 3.0]])
    env = DADIEnv(X, [0, 1], [0, 1], classifier=_classifier, adversary=_adversary)
    assert env.actions == ActionSpace.from_groups(["x0", "x1"])
    assert env.action_space.n == 3
