"""The relaxed variant of paper 003 (§5: Algorithm 1 without ``sum q = 1``) in the proxies."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.filtering import (
    AlphaBetaProxy,
    BalancedFilter,
    LabelProxy,
    UnreachableTargetWarning,
    intersecting_imbalance,
    sampling_weights,
)
from fairacq.metrics import imbalance
from tests.filtering.test_intersect import make_two_classes
from tests.filtering.test_proxies import make_sample


def _quiet(proxy: Any, X: Any, s: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)
        return proxy.fit(X, s)


@pytest.mark.parametrize("predictor", ["regression", "tree"])
@pytest.mark.parametrize("seed", range(3))
def test_qp_proxies_relaxed_use_the_relaxed_qp(predictor: str, seed: int) -> None:
    X, s = make_sample(300, seed=seed)
    kwargs: dict[str, Any] = {"max_depth": 3, "random_state": 0} if predictor == "tree" else {}
    strict = _quiet(LabelProxy(predictor=predictor, weights="qp", **kwargs), X, s)
    loose = _quiet(LabelProxy(predictor=predictor, weights="qp", relaxed=True, **kwargs), X, s)
    assert np.array_equal(strict.A_, loose.A_)  # same predictor, only the weights differ
    ref = sampling_weights(loose.A_, loose.proxy_marginal_, relaxed=True, on_unreachable="ignore")
    np.testing.assert_allclose(loose.rho_, ref.rho, atol=1e-9)
    np.testing.assert_allclose(loose.fitted_.info["q"], ref.q, atol=1e-9)
    # The relaxed QP's optimum is at least as close to U (the cone contains the hull).
    assert loose.fitted_.info["hull_distance"] <= strict.fitted_.info["hull_distance"] + 1e-10
    # beta_ is the imbalance of what the filter actually admits (q A / sum q).
    weights = loose.admission_probability(X)
    assert loose.beta_ == pytest.approx(imbalance(s, weights=weights), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_relaxed_tree_stops_on_the_relaxed_distance(seed: int) -> None:
    X, s = make_sample(400, seed=seed)
    for alpha in (0.1, 0.3, 0.6):
        loose = _quiet(AlphaBetaProxy(alpha=alpha, relaxed=True, max_iter=10), X, s)
        assert loose.fitted_.method == "alpha-beta-relaxed"
        ref = sampling_weights(
            loose.A_,
            loose.proxy_marginal_,
            relaxed=True,
            solver="active-set",
            on_unreachable="ignore",
        )
        assert loose.hull_distance_ == pytest.approx(ref.hull_distance, abs=1e-12)
        np.testing.assert_allclose(loose.rho_, ref.rho, atol=1e-12)
        if loose.stop_reason_ == "reached":
            assert loose.hull_distance_ < loose.tol
        assert loose.alpha_ <= alpha + 1e-12


def test_relaxed_tree_two_classes_simulated() -> None:
    X, S = make_two_classes(500, seed=9)
    proxy = _quiet(AlphaBetaProxy(alpha=0.3, oracle="stump", relaxed=True), X, S)
    assert proxy.fitted_.classes is not None
    weights = proxy.admission_probability(X)
    assert proxy.beta_ == pytest.approx(intersecting_imbalance(S, weights=weights), abs=1e-9)
    reps = 40
    out = BalancedFilter(proxy=proxy, random_state=1).fit(
        pd.concat([X] * reps, ignore_index=True), s=pd.concat([S] * reps, ignore_index=True)
    )
    row = out.trace_.to_frame().iloc[-1]
    shares = np.array([row[f"share_admitted_{g}"] for g in proxy.fitted_.groups])
    se = float(np.linalg.norm(np.sqrt(shares * (1 - shares) / out.mask_.sum())))
    assert row["beta_admitted"] == pytest.approx(proxy.beta_, abs=5 * se)
