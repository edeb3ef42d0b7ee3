"""Naive and QP proxies of paper 003 (§5): in-sample A, rho, alpha and beta."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from fairacq.exceptions import InvalidDataError, InvalidParameterError, NotFittedError
from fairacq.filtering import (
    AlphaBetaProxy,
    LabelProxy,
    UnreachableTargetWarning,
    interpolation_curve,
)
from fairacq.metrics import disclosivity, imbalance
from tests.checks import Spec, check_strategy

PROXIES: list[Any] = [
    LabelProxy(),
    LabelProxy(predictor="tree", max_depth=4, random_state=0),
    LabelProxy(weights="qp"),
    LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0),
    LabelProxy(predictor="tree", weights="qp", max_depth=4, relaxed=True, random_state=0),
]


def make_sample(n: int = 600, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Three unbalanced groups (60/30/10 %) whose features overlap."""
    rng = np.random.default_rng(seed)
    s = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.6, 0.3, 0.1])
    centre = {"a": (0.0, 0.0), "b": (1.0, 0.5), "c": (0.0, 1.5)}
    mu = np.array([centre[g] for g in s])
    X = pd.DataFrame(
        {
            "x0": mu[:, 0] + rng.normal(size=n),
            "x1": mu[:, 1] + rng.normal(size=n),
            "noise": rng.normal(size=n),
        }
    )
    return X, s


@pytest.mark.parametrize("proxy", PROXIES, ids=lambda p: type(p).__name__)
def test_in_sample_alpha_beta_match_metrics(proxy: Any) -> None:
    X, s = make_sample()
    proxy.fit(X, s)
    values = proxy.proxy_values(X)
    # alpha_ is Definition 5 on the proxy values; beta_ is Definition 2 of the rows
    # weighted by their admission probabilities (the expected admitted sample).
    assert proxy.alpha_ == pytest.approx(disclosivity(values, s), abs=1e-12)
    assert proxy.beta_ == pytest.approx(
        imbalance(s, weights=proxy.admission_probability(X)), abs=1e-9
    )
    assert proxy.groups_ == ("a", "b", "c")
    assert proxy.A_.shape == (3, 3)
    assert (proxy.rho_ >= 0).all()
    assert proxy.rho_.max() == pytest.approx(1.0)


@pytest.mark.parametrize("weights", ["naive", "qp"])
def test_unstandardized_regression_is_scikit_learns_raw_fit(weights: str) -> None:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    X, s = make_sample()
    X = X.assign(x0=X["x0"] * 1e5)  # a feature on another scale, as fnlwgt in Adult
    raw = LabelProxy(weights=weights, standardize=False, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)  # QP: U outside the hull
        with pytest.warns(ConvergenceWarning):
            raw.fit(X, s)
    with pytest.warns(ConvergenceWarning):
        reference = LogisticRegression(max_iter=5).fit(X.to_numpy(), s)
    assert (np.array(raw.groups_)[raw.proxy_values(X)] == reference.predict(X.to_numpy())).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)
        standard = LabelProxy(weights=weights).fit(
            X, s
        )  # standardised: converges, and differs from the raw fit
    assert (standard.proxy_values(X) != raw.proxy_values(X)).any()
    assert raw.get_params()["standardize"] is False


def test_naive_admits_equal_numbers_per_predicted_group() -> None:
    X, s = make_sample()
    proxy = LabelProxy(predictor="tree", max_depth=3, random_state=0).fit(X, s)
    values = proxy.proxy_values(X)
    expected = np.bincount(values, weights=proxy.admission_probability(X), minlength=3)
    seen = proxy.proxy_marginal_ > 0
    assert np.allclose(expected[seen], expected[seen][0])


def test_qp_improves_on_naive_in_sample() -> None:
    X, s = make_sample()
    naive = LabelProxy(predictor="tree", max_depth=4, random_state=0).fit(X, s)
    qp = LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0).fit(X, s)
    assert qp.beta_ <= naive.beta_ + 1e-12


def test_full_tree_reaches_balance_in_sample() -> None:
    X, s = make_sample()
    proxy = LabelProxy(predictor="tree", weights="qp", random_state=0).fit(
        X, s
    )  # grown fully: pure leaves
    assert proxy.beta_ < 1e-8
    assert proxy.alpha_ > 0.3  # and it discloses a lot (a perfect group classifier)


def test_non_uniform_target() -> None:
    X, s = make_sample()
    target = [0.5, 0.3, 0.2]
    proxy = LabelProxy(predictor="tree", weights="qp", target=target, random_state=0).fit(X, s)
    assert proxy.beta_ < 1e-8
    assert imbalance(s, weights=proxy.admission_probability(X), target=target) < 1e-8


def test_array_input_uses_positional_names() -> None:
    X, s = make_sample()
    proxy = LabelProxy(weights="qp").fit(X.to_numpy(), s)
    assert proxy.feature_names_in_ == ("x0", "x1", "x2")
    np.testing.assert_array_equal(
        proxy.proxy_values(X.to_numpy()),
        proxy.proxy_values(X.set_axis(["x0", "x1", "x2"], axis=1)),
    )


def test_group_absent_from_sample() -> None:
    X, s = make_sample()
    with pytest.raises(InvalidDataError, match=r"\['d'\] are absent from the labelled sample"):
        LabelProxy(predictor="tree", weights="qp").fit(X, s, groups=["a", "b", "c", "d"])
    with pytest.raises(InvalidDataError, match="not listed in groups"):
        LabelProxy(predictor="tree", weights="qp").fit(X, s, groups=["a", "b"])


def test_single_group_sample() -> None:
    X, _ = make_sample(50)
    with pytest.raises(InvalidDataError, match="single group"):
        LabelProxy(predictor="tree", weights="qp").fit(X, np.zeros(50, dtype=int))


def test_bad_target() -> None:
    X, s = make_sample()
    with pytest.raises(InvalidDataError, match="summing to 1"):
        LabelProxy(predictor="tree", weights="qp", target=[0.5, 0.5, 0.5]).fit(X, s)


def test_missing_feature_and_not_fitted() -> None:
    X, s = make_sample()
    with pytest.raises(NotFittedError, match="not fitted"):
        LabelProxy(predictor="tree", weights="qp").proxy_values(X)
    proxy = LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0).fit(X, s)
    with pytest.raises(InvalidDataError, match=r"lack feature\(s\) \['x1'\]"):
        proxy.proxy_values(X.drop(columns="x1"))
    with pytest.raises(InvalidDataError, match="NaN"):
        proxy.proxy_values(X.assign(x0=np.nan))


@pytest.mark.parametrize(
    "proxy",
    [
        LabelProxy(C=-1.0),
        LabelProxy(weights="qp", solver="gurobi"),
        LabelProxy(predictor="tree", weights="qp", max_depth=0),
        LabelProxy(predictor="tree", min_samples_leaf=0),
        LabelProxy(predictor="tree", weights="qp", relaxed="yes"),  # type: ignore[arg-type]
    ],
    ids=lambda p: type(p).__name__,
)
def test_invalid_params(proxy: Any) -> None:
    X, s = make_sample(100)
    with pytest.raises(InvalidParameterError, match="parameter of"):
        proxy.fit(X, s)


@pytest.mark.parametrize("proxy", PROXIES, ids=lambda p: type(p).__name__)
def test_strategy_conventions(proxy: Any, tmp_path: Path) -> None:
    """The common checks (tests/checks.py) on each proxy variant."""
    X, s = make_sample(200)
    spec = Spec(
        cls=type(proxy),
        make=lambda: clone(proxy),
        run=lambda p, **kw: p.fit(X, s, **kw),
        decisions=lambda p, out: (p.rho_, p.A_),
        # A tree's seed only breaks ties, which this sample has not (the battery has some).
        random=False,
        trace=False,
        stepwise=False,
    )
    check_strategy(spec, tmp_path)


def test_interpolation_curve_end_points_and_simulation() -> None:
    X, s = make_sample()
    proxy = LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0).fit(X, s)
    curve = interpolation_curve(proxy.A_, proxy.proxy_marginal_, proxy.rho_)
    assert curve["eta"].tolist() == pytest.approx([i / 10 for i in range(11)])
    first, last = curve.iloc[0], curve.iloc[-1]
    assert first["alpha"] == pytest.approx(proxy.alpha_)
    assert first["beta"] == pytest.approx(proxy.beta_)
    assert last["alpha"] == pytest.approx(0.0, abs=1e-12)
    # eta = 1 admits independently of the group: the admitted mix is the population's.
    assert last["beta"] == pytest.approx(imbalance(s), abs=1e-12)
    # Monte Carlo of the relabelling reproduces the closed-form alpha at eta = 0.5.
    rng = np.random.default_rng(0)
    values = np.tile(proxy.proxy_values(X), 200)
    flip = rng.random(values.shape[0]) < 0.5
    values[flip] = rng.integers(0, 3, int(np.count_nonzero(flip)))
    assert disclosivity(values, np.tile(s, 200)) == pytest.approx(curve.iloc[5]["alpha"], abs=0.01)
    with pytest.raises(InvalidParameterError, match="eta"):
        interpolation_curve(proxy.A_, proxy.proxy_marginal_, proxy.rho_, etas=[1.5])


@pytest.mark.parametrize(
    "proxy",
    [
        LabelProxy(),
        LabelProxy(weights="qp"),
        LabelProxy(predictor="tree", max_depth=2, random_state=0),
        LabelProxy(predictor="tree", weights="qp", max_depth=2, random_state=0),
        AlphaBetaProxy(max_depth=2, max_iter=5),
    ],
    ids=lambda p: type(p).__name__,
)
def test_fit_sets_a_trace_ending_on_the_fitted_proxy(proxy: Any) -> None:
    from fairacq import Trace

    X, s = make_sample(300, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proxy.fit(X, s)
    trace = proxy.trace_
    assert isinstance(trace, Trace)
    # One row for a fit in one go; the tree's root, then one row per split (a leaf each).
    assert len(trace) == (len(proxy.rho_) if isinstance(proxy, AlphaBetaProxy) else 1)
    assert trace.method == proxy.fitted_.method
    assert trace.final("cost") == 300
    assert trace.final("alpha") == proxy.alpha_
    assert trace.final("beta") == proxy.beta_
    assert trace.meta["config"]["target"] is None
