"""The (alpha, beta)-proxy tree of paper 003 (Algorithms 3-4)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.exceptions import InvalidDataError, InvalidParameterError, NotFittedError
from fairacq.filtering import (
    AlphaBetaProxy,
    BalancedFilter,
    LabelProxy,
    UnreachableTargetWarning,
    load_proxy,
    paired_regression_oracle,
    play_split_game,
    save_proxy,
)
from fairacq.metrics import imbalance
from tests.checks import Spec, check_strategy
from tests.filtering.test_proxies import make_sample


def _fit(proxy: AlphaBetaProxy, X: pd.DataFrame, s: np.ndarray, **kw: Any) -> AlphaBetaProxy:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)
        return proxy.fit(X, s, **kw)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    ("oracle", "margin"), [("paired-regression", 0.0), ("stump", 0.5), ("tree", 1.0)]
)
def test_always_alpha_disclosive_in_sample(seed: int, oracle: str, margin: float) -> None:
    X, s = make_sample(300, seed=seed)
    for alpha in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.9):
        proxy = _fit(AlphaBetaProxy(alpha=alpha, oracle=oracle, margin=margin, max_iter=10), X, s)
        assert proxy.alpha_ <= alpha + 1e-12
        # beta_ is the in-sample expectation of the admitted composition.
        assert proxy.beta_ == pytest.approx(
            imbalance(s, weights=proxy.admission_probability(X)), abs=1e-9
        )
        np.testing.assert_allclose(proxy.leaf_weights(X).sum(axis=1), 1.0)


def test_larger_budget_balances_better() -> None:
    X, s = make_sample(600)
    low = _fit(AlphaBetaProxy(alpha=0.05, oracle="stump"), X, s)
    high = _fit(AlphaBetaProxy(alpha=0.4, oracle="stump"), X, s)
    assert high.beta_ < low.beta_
    assert high.stop_reason_ == "reached"
    assert high.hull_distance_ < 0.1
    splits = high.trace_.to_frame().iloc[1:]  # row 0 is the root leaf
    assert (splits["duality_gap"] >= 0).all()
    assert splits["hull_distance"].tolist() == sorted(splits["hull_distance"], reverse=True)


def test_filter_simulation_matches_in_sample_beta() -> None:
    X, s = make_sample(600)
    proxy = _fit(AlphaBetaProxy(alpha=0.3, oracle="stump"), X, s)
    reps = 40
    big_X = pd.concat([X] * reps, ignore_index=True)
    big_s = np.tile(s, reps)
    out = BalancedFilter(proxy=proxy, random_state=0).fit(big_X, s=big_s)
    shares = np.array([(big_s[out.mask_] == g).mean() for g in "abc"])
    se = np.sqrt(shares * (1 - shares) / out.mask_.sum())
    beta_sim = float(np.linalg.norm(shares - 1 / 3))
    assert beta_sim == pytest.approx(proxy.beta_, abs=5 * float(np.linalg.norm(se)))


def test_randomized_leaves_match_leaf_weights() -> None:
    X, s = make_sample(400)
    proxy = _fit(AlphaBetaProxy(alpha=0.3, oracle="paired-regression"), X, s)
    big = pd.concat([X] * 30, ignore_index=True)
    drawn = proxy.proxy_values(big, random_state=0)
    freq = np.bincount(drawn, minlength=proxy.A_.shape[0]) / len(big)
    np.testing.assert_allclose(freq, proxy.proxy_marginal_, atol=0.01)


def test_unreachable_warns_with_best_beta() -> None:
    X, s = make_sample(300)
    with pytest.warns(UnreachableTargetWarning, match="best imbalance achieved is beta"):
        proxy = AlphaBetaProxy(alpha=0.0).fit(X, s)
    assert proxy.stop_reason_ == "no-split"
    assert proxy.alpha_ == 0.0


def test_json_round_trip(tmp_path: Path) -> None:
    X, s = make_sample(400)
    proxy = _fit(AlphaBetaProxy(alpha=0.3, oracle="stump", relaxed=True), X, s)
    loaded = load_proxy(save_proxy(proxy, tmp_path / "ab.json"))
    assert loaded == proxy.fitted_
    np.testing.assert_allclose(loaded.admission_probability(X), proxy.admission_probability(X))
    assert loaded.alpha == pytest.approx(proxy.alpha_)


def test_bad_input() -> None:
    X, s = make_sample(200)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        AlphaBetaProxy(alpha=1.5).fit(X, s)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        AlphaBetaProxy(alpha=-0.1).fit(X, s)
    with pytest.raises(InvalidParameterError, match="'oracle' parameter"):
        AlphaBetaProxy(oracle="forest").fit(X, s)
    with pytest.raises(InvalidParameterError, match="'margin' parameter"):
        AlphaBetaProxy(margin=2.0).fit(X, s)
    with pytest.raises(InvalidDataError, match="absent from the labelled sample"):
        AlphaBetaProxy().fit(X, s, groups=["a", "b", "c", "d"])
    with pytest.raises(InvalidDataError, match="summing to 1"):
        AlphaBetaProxy(target=[0.2, 0.2, 0.2]).fit(X, s)
    with pytest.raises(NotFittedError):
        AlphaBetaProxy().admission_probability(X)
    proxy = _fit(AlphaBetaProxy(alpha=0.3), X, s)
    with pytest.raises(InvalidDataError, match="lack feature"):
        proxy.admission_probability(X.drop(columns="x0"))


def test_strategy_conventions(tmp_path: Path) -> None:
    """The common checks (tests/checks.py) on a small (alpha, beta)-proxy."""
    X, s = make_sample(200)
    spec = Spec(
        cls=AlphaBetaProxy,
        make=lambda: AlphaBetaProxy(alpha=0.3, max_iter=5, max_depth=4),
        run=lambda p, **kw: _fit(p, X, s, **kw),
        decisions=lambda p, out: (p.rho_, p.A_, p.trace_),
        random=False,  # no random_state: the game and its oracles are deterministic
        resume_steps=(1,),  # two splits; tests/test_common_strategies.py resumes at 1-3
    )
    check_strategy(spec, tmp_path)


def test_paired_regression_oracle_picks_cheaper_label() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    cost1 = X[:, 0]  # labelling 1 is cheap where x0 < 0
    rule = paired_regression_oracle(X, np.zeros(200), cost1)
    assert np.array_equal(rule.predict(X), (X[:, 0] < 0).astype(int))


def test_game_respects_constraints_in_average() -> None:
    X, s = make_sample(400)
    codes = np.searchsorted(np.array(["a", "b", "c"]), s)
    prior = np.bincount(codes) / len(codes)
    objective = np.array([0.2, -0.1, -0.3])[codes]
    game = play_split_game(X.to_numpy(), codes, np.ones(len(codes)), objective, prior, 0.1)
    assert game.iterations == 50
    assert game.duality_gap >= 0
    assert game.max_violation < 0.05  # nearly feasible after capped play
    assert ((game.p_one >= 0) & (game.p_one <= 1)).all()


def test_game_rules_equal_paired_regression_oracle() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    codes = rng.integers(0, 2, 150)
    prior = np.bincount(codes) / 150
    objective = np.where(codes == 1, -0.2, 0.2) + 0.1 * X[:, 0]
    game = play_split_game(X, codes, np.ones(150), objective, prior, 0.5, max_iter=1)
    direct = paired_regression_oracle(X, np.zeros(150), objective / 150)
    first = game.rules[0]
    assert isinstance(first, type(direct))
    np.testing.assert_array_equal(first.predict(X), direct.predict(X))


def test_admission_probabilities_are_probabilities() -> None:
    X, s = make_sample(400, seed=3)
    proxy = _fit(AlphaBetaProxy(alpha=0.3, oracle="tree", margin=0.5, max_iter=10), X, s)
    X_new, _ = make_sample(400, seed=4)
    weights = proxy.leaf_weights(X_new)
    assert (weights >= 0).all()
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    prob = proxy.admission_probability(X_new)
    assert ((prob >= 0) & (prob <= 1)).all()


_INVALID = {int: -7, float: float("nan"), str: "__no_such_option__"}


@pytest.mark.parametrize(
    "strategy",
    [
        AlphaBetaProxy(),
        LabelProxy(),
        LabelProxy(predictor="tree"),
        LabelProxy(weights="qp"),
        LabelProxy(predictor="tree", weights="qp"),
    ],
    ids=lambda p: type(p).__name__,
)
def test_every_invalid_parameter_rejected(strategy: Any) -> None:
    X, s = make_sample(60)
    for name, value in strategy.get_params(deep=False).items():
        bad = _INVALID.get(type(value), object())
        broken = strategy.__class__(**{**strategy.get_params(deep=False), name: bad})
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of"):
            broken.fit(X, s)


def test_relaxed_tree_alpha_disclosive() -> None:
    for seed in range(3):
        X, s = make_sample(300, seed=seed)
        for alpha in (0.1, 0.3, 0.6):
            proxy = _fit(AlphaBetaProxy(alpha=alpha, relaxed=True, max_iter=10), X, s)
            assert proxy.alpha_ <= alpha + 1e-12
            assert proxy.fitted_.method == "alpha-beta-relaxed"
            assert proxy.beta_ == pytest.approx(
                imbalance(s, weights=proxy.admission_probability(X)), abs=1e-9
            )
