from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairacq import CheckpointCallback, Trace
from fairacq.data import load_toy
from fairacq.exceptions import InvalidDataError, InvalidParameterError, NotFittedError
from fairacq.models import make_learner
from fairacq.valuation import InfluenceRegressor, fairness_improvement, fairness_influence


def _rows(n, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=3.0, scale=[1.0, 10.0, 0.1, 2.0][:k], size=(n, k))
    target = X @ np.array([0.5, -0.02, 3.0, 0.0][:k]) + 0.1 * rng.normal(size=n)
    return X, target


def test_equals_scaled_ridge_and_recovers_a_linear_target():
    X, target = _rows(300)
    reg = InfluenceRegressor(alpha=2.0).fit(X, target)
    reference = make_pipeline(StandardScaler(), Ridge(alpha=2.0)).fit(X, target)
    np.testing.assert_allclose(reg.predict(X), reference.predict(X), rtol=1e-10, atol=1e-12)
    exact = InfluenceRegressor(alpha=0.0).fit(X, X @ np.array([0.5, -0.02, 3.0, 0.0]) + 1.0)
    np.testing.assert_allclose(exact.coef_, [[0.5, -0.02, 3.0, 0.0]], atol=1e-10)
    np.testing.assert_allclose(exact.intercept_, [1.0])
    assert reg.n_features_in_ == 4
    assert not reg.by_label_


def test_one_ridge_per_label():
    X, _ = _rows(400)
    y = (np.arange(400) % 3 == 0).astype(np.int64)
    # the sign of the target flips with the label, as influence does through (p - y)
    target = np.where(y == 1, 1.0, -1.0) * (X @ np.array([0.5, -0.02, 3.0, 0.0]))
    reg = InfluenceRegressor(alpha=0.0).fit(X, target, y)
    assert reg.by_label_
    assert reg.coef_.shape == (2, 4)
    np.testing.assert_allclose(reg.predict(X, y), target, atol=1e-8)
    for label in (0, 1):
        mask = y == label
        reference = make_pipeline(StandardScaler(), Ridge(alpha=0.0)).fit(X[mask], target[mask])
        np.testing.assert_allclose(reg.predict(X[mask], y[mask]), reference.predict(X[mask]))
    pooled = InfluenceRegressor(alpha=0.0).fit(X, target)
    assert np.corrcoef(pooled.predict(X), target)[0, 1] < 0.5


@given(st.integers(1, 7), st.integers(0, 3))
def test_predict_is_row_independent(split, seed):
    X, target = _rows(60, seed=seed)
    reg = InfluenceRegressor().fit(X, target)
    pool, _ = _rows(50, seed=seed + 10)
    whole = reg.predict(pool)
    parts = np.concatenate([reg.predict(c) for c in np.array_split(pool, split)])
    np.testing.assert_allclose(parts, whole, rtol=1e-12, atol=1e-14)
    assert whole.shape == (50,)
    assert reg.predict(pool[:0]).shape == (0,)


def test_deterministic_clonable_and_params_untouched():
    X, target = _rows(100)
    reg = InfluenceRegressor(alpha=0.5)
    a = reg.fit(X, target).predict(X)
    b = clone(reg).fit(X, target).predict(X)
    np.testing.assert_array_equal(a, b)
    assert reg.get_params() == {"alpha": 0.5}
    assert clone(reg).get_params() == reg.get_params()


def test_accepts_dataframes():
    X, target = _rows(80)
    frame = pd.DataFrame(X, columns=list("abcd"))
    np.testing.assert_allclose(
        InfluenceRegressor().fit(frame, target).predict(frame),
        InfluenceRegressor().fit(X, target).predict(X),
    )


def test_errors():
    X, target = _rows(20)
    with pytest.raises(NotFittedError, match="not fitted"):
        InfluenceRegressor().predict(X)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        InfluenceRegressor(alpha=-1.0).fit(X, target)
    with pytest.raises(InvalidDataError, match="different lengths"):
        InfluenceRegressor().fit(X, target[:-1])
    with pytest.raises(InvalidDataError, match="1-D"):
        InfluenceRegressor().fit(X, target[:, None])
    with pytest.raises(InvalidDataError, match="2-D"):
        InfluenceRegressor().fit(X[:, 0], target)
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        InfluenceRegressor().fit(bad, target)
    reg = InfluenceRegressor().fit(X, target)
    with pytest.raises(InvalidDataError, match="3 features but the regressor was fitted on 4"):
        reg.predict(X[:, :3])
    with pytest.raises(InvalidParameterError, match="without labels"):
        reg.predict(X, np.zeros(20, dtype=int))
    y = np.arange(20) % 2
    labelled = InfluenceRegressor().fit(X, target, y)
    with pytest.raises(InvalidParameterError, match="pass y"):
        labelled.predict(X)
    with pytest.raises(InvalidDataError, match="binary"):
        labelled.predict(X, y + 1)
    with pytest.raises(InvalidDataError, match="different lengths"):
        labelled.predict(X, y[:-1])
    with pytest.raises(InvalidDataError, match="with label 1"):
        InfluenceRegressor().fit(X, target, (np.arange(20) == 0).astype(int))


def test_datasift_inf_pipeline_on_toy():
    train, val, pool = (load_toy(300, random_state=seed) for seed in (0, 1, 2))
    X = train.to_numpy()
    model = make_learner("lr", random_state=0).fit(X, train.y)
    res = fairness_influence(
        model, X, train.y, val.to_numpy(), val.y, val.s, privileged=train.privileged_code
    )
    improvement = fairness_improvement(res)
    reg = InfluenceRegressor().fit(X, improvement, train.y)
    predicted = reg.predict(pool.to_numpy(), pool.y)
    assert predicted.shape == (300,)
    # per label, a ridge captures the influence signal (0.90 measured); features alone do not
    assert np.corrcoef(reg.predict(X, train.y), improvement)[0, 1] > 0.8
    pooled = InfluenceRegressor().fit(X, improvement)
    assert np.corrcoef(pooled.predict(X), improvement)[0, 1] < 0.4


def test_trace_records_the_fit_and_its_training_error():
    X, target = _rows(120)
    reg = InfluenceRegressor(alpha=0.5).fit(X, target)
    row = reg.trace_.to_frame().iloc[0]
    assert len(reg.trace_) == 1
    assert reg.trace_.method == "influence-regressor"
    assert (row["cost"], row["n_rows"], row["n_models"], row["by_label"]) == (120.0, 120, 1, False)
    reference = make_pipeline(StandardScaler(), Ridge(alpha=0.5)).fit(X, target)
    mse = float(np.mean((reference.predict(X) - target) ** 2))
    assert row["train_mse"] == pytest.approx(mse, rel=1e-9)
    assert 0.005 < row["train_mse"] < 0.02  # the noise's variance is 0.01
    assert reg.trace_.meta["config"] == {"alpha": 0.5}
    assert reg.trace_.meta["stop_reason"] == "fitted"


def test_trace_of_a_fit_per_label():
    X, _ = _rows(80)
    y = (X[:, 0] > 3.0).astype(int)
    exact = X @ np.array([1.0, 0.0, 0.0, 0.0]) + 5.0 * y  # linear within each label
    reg = InfluenceRegressor(alpha=0.0).fit(X, exact, y)
    row = reg.trace_.to_frame().iloc[0]
    assert (row["n_models"], row["by_label"]) == (2, True)
    assert row["train_mse"] < 1e-20
    single = InfluenceRegressor(alpha=0.0).fit(X, exact)
    assert single.trace_.final("train_mse") > 0.1  # one ridge cannot fit the label's jump


def test_callbacks_run_once_and_continue_from_is_refused(tmp_path):
    X, target = _rows(30)
    calls = []
    reg = InfluenceRegressor().fit(
        X,
        target,
        callbacks=[lambda rec: calls.append(rec.n_steps), CheckpointCallback(tmp_path / "t")],
    )
    assert calls == [1]
    pd.testing.assert_frame_equal(Trace.load(tmp_path / "t").to_frame(), reg.trace_.to_frame())
    with pytest.raises(InvalidParameterError, match="nothing to resume"):
        InfluenceRegressor().fit(X, target, continue_from=reg.trace_)
