"""The cheap logistic-regression refit and scoring give the ordinary fit's model, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import fairacq.acquisition.loop._exact_refit as exact_refit
from fairacq.acquisition import DataSiftInfAcquirer, PartitionDroppedWarning
from fairacq.acquisition.loop._exact_refit import ExactRefit, lr_scores, refit, same_fitted_model
from fairacq.acquisition.loop._lbfgs import lbfgs_direct
from fairacq.acquisition.pools._column_codes import ColumnCodes
from fairacq.data import load_toy, split_datasift
from fairacq.models import make_learner, predict_scores


def _data(seed: int, n: int, *, fortran: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6)) * rng.uniform(0.1, 30, size=6) + rng.uniform(-5, 5, size=6)
    y = (X @ rng.standard_normal(6) + rng.standard_normal(n) > 0).astype(np.int64)
    return (np.asfortranarray(X) if fortran else X), y


@pytest.mark.parametrize(
    ("seed", "n", "fortran"), [(0, 40, False), (1, 700, True), (2, 2500, True)]
)
def test_refit_and_scores_match_the_ordinary_fit(seed, n, fortran):
    X, y = _data(seed, n, fortran=fortran)
    fast = refit("lr", seed, X, y)
    slow = make_learner("lr", random_state=seed).fit(X, y)
    assert same_fitted_model(fast, slow)
    assert np.array_equal(lr_scores(fast, X), predict_scores(slow, X))
    assert lr_scores(make_learner("decision_tree").fit(X, y), X) is None  # not a scaled LR


@pytest.mark.parametrize(("seed", "maxiter"), [(0, 100), (1, 1000), (2, 3), (3, 100)])
def test_lbfgs_direct_takes_the_steps_of_minimize(seed, maxiter):
    from scipy import optimize
    from sklearn._loss.loss import HalfBinomialLoss

    X, y = _data(seed, 50 + 300 * seed, fortran=False)
    X = np.ascontiguousarray((X - X.mean(0)) / X.std(0))
    fun = exact_refit._objective(X, y.astype(float), 1 / (10.0**seed * len(y)), HalfBinomialLoss())
    opts = {"maxiter": maxiter, "maxls": 50, "gtol": 1e-4, "ftol": 64 * np.finfo(float).eps}
    ref = optimize.minimize(
        fun, np.zeros(X.shape[1] + 1), method="L-BFGS-B", jac=True, options=opts
    )
    x, nit, status = lbfgs_direct(fun, X.shape[1] + 1, **opts)
    assert np.array_equal(x, ref.x)  # bit for bit, also when stopped early (maxiter 3)
    assert (nit, status) == (ref.nit, ref.status)


@pytest.mark.parametrize("fortran", [False, True])
def test_scaler_moments_are_standard_scalers(fortran):
    from sklearn.preprocessing import StandardScaler

    X, _ = _data(6, 333, fortran=fortran)
    X[:, 2] = 7.25  # a constant column: scale 1
    X[:, 3] += 1e7  # a large offset
    fast, slow = StandardScaler(), StandardScaler().fit(X)
    assert np.array_equal(exact_refit._fit_scaler(fast, X), slow.transform(X))
    assert same_fitted_model(fast, slow)
    assert fast.scale_[2] == 1.0


def test_fit_scores_are_the_scores_of_the_fit():
    X, y = _data(7, 500, fortran=True)
    X_eval, _ = _data(8, 90, fortran=False)
    fits = ExactRefit("lr")
    first = fits.fit_scores(3, X, y, X_eval)  # the ordinary path, checked
    assert fits.fast_fit
    assert fits.fast_scores
    slow = predict_scores(make_learner("lr", random_state=3).fit(X, y), X_eval)
    assert np.array_equal(first, slow)
    assert np.array_equal(fits.fit_scores(3, X, y, X_eval), slow)  # the model-free path
    tree = ExactRefit("decision_tree").fit_scores(0, X, y, X_eval)
    assert np.array_equal(
        tree, predict_scores(make_learner("decision_tree", random_state=0).fit(X, y), X_eval)
    )


def test_same_fitted_model_sees_one_changed_bit():
    X, y = _data(3, 300, fortran=False)
    a = make_learner("lr", random_state=0).fit(X, y)
    b = make_learner("lr", random_state=0).fit(X, y)
    assert same_fitted_model(a, b)
    b[-1].coef_ = np.nextafter(b[-1].coef_, np.inf)
    assert not same_fitted_model(a, b)


def test_exact_refit_falls_back_when_the_shortcut_differs(monkeypatch):
    X, y = _data(4, 400, fortran=True)
    solve = exact_refit._lbfgs

    def off_by_a_bit(*args):
        w, n_iter = solve(*args)
        return np.nextafter(w, np.inf), n_iter

    monkeypatch.setattr(exact_refit, "_lbfgs", off_by_a_bit)
    fits = ExactRefit("lr")
    fits.fit(0, X, y)
    assert fits.fast_fit is False  # the first fit's check caught the difference
    model = fits.fit(1, X, y)
    assert same_fitted_model(model, make_learner("lr", random_state=1).fit(X, y))


def test_exact_refit_other_learners_and_one_class_use_the_ordinary_fit():
    X, y = _data(5, 200, fortran=False)
    assert ExactRefit("decision_tree").fast_fit is False
    fits = ExactRefit("lr")
    fits.fit(0, X, y)
    assert fits.fast_fit is True
    with pytest.raises(ValueError, match="class"):  # scikit-learn's own refusal, unchanged
        fits.fit(0, X, np.zeros_like(y))


def test_datasift_inf_run_is_unchanged_by_the_shortcuts(monkeypatch):
    split = split_datasift(load_toy(800, random_state=2), random_state=0)
    fast_fits = []
    shortcut = exact_refit._fit_lr_pipeline
    monkeypatch.setattr(
        exact_refit, "_fit_lr_pipeline", lambda *a: fast_fits.append(1) or shortcut(*a)
    )

    def run() -> tuple[np.ndarray, object]:
        acq = DataSiftInfAcquirer(
            budget=60, batch_size=10, n_partitions=2, tau=0.0, max_evaluations=12, random_state=3
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PartitionDroppedWarning)
            trace = acq.fit(
                split.train, split.pool, validation=split.validation, test=split.test
            ).trace_
        return acq.acquired_, trace

    fast_rows, fast_trace = run()
    assert len(fast_fits) > 5  # the run took the shortcut
    monkeypatch.setattr(exact_refit, "lr_scores", lambda model, X: None)
    monkeypatch.setattr(exact_refit, "_lr_params", lambda model: None)
    slow_rows, slow_trace = run()
    assert np.array_equal(fast_rows, slow_rows)
    assert fast_trace == slow_trace


@pytest.mark.parametrize(
    ("kind", "values"),
    [
        (pa.string(), ["b", "a", "c", "a"]),
        (pa.large_string(), ["b", "a", "c", "a"]),
        (pa.large_string(), ["x", None, "y", "x"]),
        (pa.int64(), [3, 1, None, 3]),
        (pa.dictionary(pa.int32(), pa.string()), ["u", "v", "u", "w"]),
    ],
)
def test_column_codes_take_pandas_matches_arrow(kind, values):
    codes = ColumnCodes(kind)
    codes.add(pa.array(values).cast(kind))
    codes.add(pa.array(values).cast(kind))
    codes.finish()
    for pos in (np.array([3, 0, 1, 7, 5]), np.array([2, 2]), np.array([], dtype=np.int64)):
        expected = pa.table({"v": codes.take(pos)}).to_pandas()["v"]
        pd.testing.assert_series_equal(codes.take_pandas(pos), expected, check_exact=True)
