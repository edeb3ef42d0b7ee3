from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from fairacq.data import load_toy
from fairacq.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    NotFittedError,
    UnknownNameError,
)
from fairacq.models import make_learner
from fairacq.valuation import (
    InfluenceResult,
    fairness_improvement,
    fairness_influence,
    fairness_surrogate,
)

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def data():
    train = load_toy(240, random_state=0)
    val = load_toy(200, random_state=1)
    return train.to_numpy(), train.y, val.to_numpy(), val.y, val.s


@pytest.fixture(scope="module")
def fitted(data):
    X, y, *_ = data
    return {
        name: make_learner(name, random_state=0).fit(X, y) for name in ("lr", "linear_svm", "mlp")
    }


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


@pytest.mark.parametrize("name", ["lr", "linear_svm", "mlp"])
def test_shapes_fields_and_surrogate(data, fitted, name):
    X, y, Xv, yv, sv = data
    model = fitted[name]
    res = fairness_influence(model, X, y, Xv, yv, sv)
    assert isinstance(res, InfluenceResult)
    assert res.values.shape == (len(y),)
    assert res.values.dtype == np.float64
    assert np.all(np.isfinite(res.values))
    assert res.solver == ("exact" if name == "lr" else "cg")
    assert res.pair == (0, 1)
    assert res.branch == "all"
    assert res.damping >= 0.0
    assert res.elapsed_s > 0.0
    # the surrogate is evaluated with the model's own probabilities
    expected = fairness_surrogate(model.predict_proba(Xv)[:, 1], yv, sv).value
    assert res.surrogate == pytest.approx(expected, abs=1e-10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.surrogate = 0.0  # type: ignore[misc]


def test_logistic_closed_form_equals_torch_paths(data, fitted):
    X, y, Xv, yv, sv = data
    model = fitted["lr"]
    exact = fairness_influence(model, X, y, Xv, yv, sv)
    cg = fairness_influence(model, X, y, Xv, yv, sv, solver="cg")
    dense = fairness_influence(model, X, y, Xv, yv, sv, solver="exact")
    assert cg.solver == "cg"
    assert cg.iterations > 0
    assert cg.residual < 1e-8
    assert _rel(cg.values, exact.values) < 1e-6
    assert _rel(dense.values, exact.values) < 1e-10
    lissa = fairness_influence(model, X, y, Xv, yv, sv, solver="lissa", random_state=0)
    assert _rel(lissa.values, exact.values) < 1e-4


def test_torch_exact_and_cg_agree_for_svm(data, fitted):
    X, y, Xv, yv, sv = data
    model = fitted["linear_svm"]
    cg = fairness_influence(model, X, y, Xv, yv, sv, solver="cg")
    dense = fairness_influence(model, X, y, Xv, yv, sv, solver="exact")
    assert _rel(cg.values, dense.values) < 1e-6


def test_mlp_damping_is_reported_and_used(data, fitted):
    X, y, Xv, yv, sv = data
    model = fitted["mlp"]
    dense = fairness_influence(model, X, y, Xv, yv, sv, solver="exact")
    assert dense.damping > 0.0  # the adam-trained ReLU net's Hessian is indefinite
    # with that damping given up front, CG solves the same system without restarts
    cg = fairness_influence(model, X, y, Xv, yv, sv, solver="cg", damping=dense.damping)
    assert cg.damping == dense.damping
    assert _rel(cg.values, dense.values) < 1e-6


def test_user_damping_shrinks_the_influence(data, fitted):
    X, y, Xv, yv, sv = data
    model = fitted["lr"]
    plain = fairness_influence(model, X, y, Xv, yv, sv)
    damped = fairness_influence(model, X, y, Xv, yv, sv, damping=1e3)
    assert damped.damping == 1e3
    assert np.abs(damped.values).sum() < np.abs(plain.values).sum()


def test_logistic_matches_hand_computation(data):
    X, y, Xv, yv, sv = data
    scaler = StandardScaler().fit(X)
    Z, Zv = scaler.transform(X), scaler.transform(Xv)
    clf = LogisticRegression(C=0.5).fit(Z, y)
    res = fairness_influence(clf, Z, y, Zv, yv, sv)
    Xa = np.hstack([Z, np.ones((len(y), 1))])
    Xva = np.hstack([Zv, np.ones((len(yv), 1))])
    theta = np.append(clf.coef_.ravel(), clf.intercept_)
    p = 1 / (1 + np.exp(-Xa @ theta))
    pv = 1 / (1 + np.exp(-Xva @ theta))
    w = fairness_surrogate(pv, yv, sv).weights
    H = Xa.T @ (Xa * (0.5 * p * (1 - p))[:, None]) + np.diag([1.0] * Z.shape[1] + [0.0])
    g = Xva.T @ (w * pv * (1 - pv))
    expected = -(0.5 * (p - y)[:, None] * Xa) @ np.linalg.solve(H, g)
    np.testing.assert_allclose(res.values, expected, rtol=1e-8, atol=1e-14)


def test_bare_classifier_equals_pipeline_on_scaled_rows(data, fitted):
    X, y, Xv, yv, sv = data
    pipe = fitted["lr"]
    scaler = pipe[:-1]
    bare = make_learner("lr", random_state=0, scale=False).fit(scaler.transform(X), y)
    a = fairness_influence(pipe, X, y, Xv, yv, sv)
    b = fairness_influence(bare, scaler.transform(X), y, scaler.transform(Xv), yv, sv)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("name", ["lr", "linear_svm"])
def test_deterministic(data, fitted, name):
    X, y, Xv, yv, sv = data
    a = fairness_influence(fitted[name], X, y, Xv, yv, sv)
    b = fairness_influence(fitted[name], X, y, Xv, yv, sv)
    np.testing.assert_array_equal(a.values, b.values)
    c = fairness_influence(fitted["lr"], X, y, Xv, yv, sv, solver="lissa", random_state=3)
    d = fairness_influence(fitted["lr"], X, y, Xv, yv, sv, solver="lissa", random_state=3)
    np.testing.assert_array_equal(c.values, d.values)


def test_equal_opportunity_ignores_negative_validation_rows(data, fitted):
    X, y, Xv, yv, sv = data
    model = fitted["lr"]
    a = fairness_influence(model, X, y, Xv, yv, sv, metric="equal_opportunity")
    assert a.branch == "tpr"
    moved = Xv.copy()
    moved[yv == 0] = np.random.default_rng(0).normal(size=moved[yv == 0].shape)
    b = fairness_influence(model, X, y, moved, yv, sv, metric="equal_opportunity")
    np.testing.assert_array_equal(a.values, b.values)
    dp = fairness_influence(model, X, y, moved, yv, sv, metric="demographic_parity")
    dp0 = fairness_influence(model, X, y, Xv, yv, sv, metric="demographic_parity")
    assert not np.allclose(dp.values, dp0.values)


def test_multigroup_active_pair():
    train = load_toy(300, n_groups=3, random_state=0)
    val = load_toy(300, n_groups=3, random_state=1)
    X, Xv = train.to_numpy(), val.to_numpy()
    model = make_learner("lr", random_state=0).fit(X, train.y)
    res = fairness_influence(model, X, train.y, Xv, val.y, val.s)
    scores = model.predict_proba(Xv)[:, 1]
    means = [scores[val.s == g].mean() for g in range(3)]
    assert res.pair == (int(np.argmax(means)), int(np.argmin(means)))
    assert res.surrogate == pytest.approx(max(means) - min(means))
    fixed = fairness_influence(model, X, train.y, Xv, val.y, val.s, protected=2, privileged=0)
    assert fixed.pair == (2, 0)


def test_improvement_sign():
    base = {"damping": 0.0, "solver": "exact", "elapsed_s": 0.0, "metric": "demographic_parity"}
    values = np.array([0.2, -0.1, 0.0])
    pos = InfluenceResult(values, 0.3, pair=(0, 1), branch="all", **base)
    neg = InfluenceResult(values, -0.3, pair=(0, 1), branch="all", **base)
    zero = InfluenceResult(values, 0.0, pair=(0, 1), branch="all", **base)
    np.testing.assert_allclose(fairness_improvement(pos), [-0.2, 0.1, 0.0])
    np.testing.assert_allclose(fairness_improvement(neg), [0.2, -0.1, 0.0])
    np.testing.assert_allclose(fairness_improvement(zero), [-0.2, -0.1, 0.0])


def test_trees_raise_a_clear_error(data):
    X, y, Xv, yv, sv = data
    for name in ("decision_tree", "random_forest"):
        model = make_learner(
            name, random_state=0, **({"n_estimators": 3} if "forest" in name else {})
        )
        model.fit(X, y)
        with pytest.raises(InvalidParameterError, match="differentiable model") as err:
            fairness_influence(model, X, y, Xv, yv, sv)
        assert "make_learner('lr')" in str(err.value)
        assert "DataSift without -Inf" in str(err.value)


def test_unsupported_configurations(data):
    X, y, Xv, yv, sv = data
    with pytest.raises(NotFittedError, match="not fitted"):
        fairness_influence(make_learner("lr"), X, y, Xv, yv, sv)
    l1 = LogisticRegression(l1_ratio=1.0, solver="saga", max_iter=5000).fit(X, y)
    with pytest.raises(InvalidParameterError, match="L1 term"):
        fairness_influence(l1, X, y, Xv, yv, sv)
    svm = make_learner("linear_svm", random_state=0, loss="hinge", max_iter=20000).fit(X, y)
    with pytest.raises(InvalidParameterError, match="squared_hinge"):
        fairness_influence(svm, X, y, Xv, yv, sv)
    weighted = LogisticRegression(class_weight="balanced").fit(X, y)
    with pytest.raises(InvalidParameterError, match="class_weight"):
        fairness_influence(weighted, X, y, Xv, yv, sv)


def test_bad_arguments(data, fitted):
    X, y, Xv, yv, sv = data
    model = fitted["lr"]
    with pytest.raises(InvalidParameterError, match="'solver' parameter"):
        fairness_influence(model, X, y, Xv, yv, sv, solver="newton")
    with pytest.raises(InvalidParameterError, match="'damping' parameter"):
        fairness_influence(model, X, y, Xv, yv, sv, damping=-1.0)
    with pytest.raises(UnknownNameError, match="equalized_odds"):
        fairness_influence(model, X, y, Xv, yv, sv, metric="equalised_odds")
    with pytest.raises(InvalidDataError, match="different lengths"):
        fairness_influence(model, X, y[:-1], Xv, yv, sv)
    with pytest.raises(InvalidDataError, match="binary"):
        fairness_influence(model, X, y * 2, Xv, yv, sv)
    bad = Xv.copy()
    bad[3, 0] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        fairness_influence(model, X, y, bad, yv, sv)


def test_missing_torch_names_the_extra(data, fitted, monkeypatch):
    import fairacq.valuation._influence as influence_module

    def fake_require(module, *, purpose=""):
        raise MissingDependencyError(f"pip install 'fairacq[{module}]'")

    monkeypatch.setattr(influence_module, "require", fake_require)
    X, y, Xv, yv, sv = data
    with pytest.raises(MissingDependencyError, match=r"fairacq\[torch\]"):
        fairness_influence(fitted["mlp"], X, y, Xv, yv, sv)
    # logistic regression's closed form does not need torch
    fairness_influence(fitted["lr"], X, y, Xv, yv, sv)


@given(st.permutations(list(range(240))))
@settings(max_examples=10)
def test_values_follow_their_rows(data, fitted, order):
    X, y, Xv, yv, sv = data
    order = np.array(order)
    a = fairness_influence(fitted["lr"], X, y, Xv, yv, sv)
    b = fairness_influence(fitted["lr"], X[order], y[order], Xv, yv, sv)
    np.testing.assert_allclose(b.values, a.values[order], rtol=1e-9, atol=1e-15)


def test_dataframes_are_accepted():
    train, val = load_toy(200, random_state=0), load_toy(200, random_state=1)
    model = make_learner("lr", random_state=0).fit(train.X, train.y)
    res = fairness_influence(model, train.X, train.y, val.X, val.y, val.s)
    ref = fairness_influence(model, train.X, train.y, val.X, val.y, val.s, solver="cg")
    assert _rel(ref.values, res.values) < 1e-6


@pytest.mark.parametrize(
    "build",
    [
        lambda: LogisticRegression(C=0.3, tol=1e-10, max_iter=10_000),
        lambda: LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000),
        lambda: LogisticRegression(fit_intercept=False, tol=1e-10, max_iter=10_000),
        lambda: LogisticRegression(solver="liblinear", intercept_scaling=2.0, tol=1e-12),
        lambda: make_learner("linear_svm", random_state=0, scale=False, tol=1e-12, max_iter=10**6),
    ],
    # the MLP's solvers stop on a loss plateau, not a zero gradient: its objective is checked
    # against MLPClassifier.loss_ in test_retraining.py instead
    ids=["lr", "lr-unpenalised", "lr-no-intercept", "lr-liblinear", "svm"],
)
def test_objective_is_stationary_at_the_fit(data, build):
    """The re-expressed objective is the one scikit-learn minimised: its gradient vanishes."""
    import torch

    from fairacq.valuation._torch_models import to_torch_model
    from fairacq.valuation._unwrap import unwrap_model

    X, y, *_ = data
    Z = StandardScaler().fit_transform(X)
    tm = to_torch_model(unwrap_model(build().fit(Z, y)))
    theta = tm.theta0.clone().requires_grad_(True)
    Zt, yt = torch.from_numpy(Z), torch.from_numpy(y.astype(np.float64))
    total = tm.penalty(theta) + tm.losses(theta, Zt, yt).sum()
    (grad,) = torch.autograd.grad(total, theta)
    per_row = torch.autograd.functional.jacobian(lambda th: tm.losses(th, Zt, yt), tm.theta0)
    scale = float(per_row.abs().sum(0).max())  # size of the loss gradients that must cancel
    assert float(grad.abs().max()) < 1e-6 * scale  # measured: 5e-10 .. 4e-8 of scale


@pytest.mark.parametrize(
    "params",
    [{"C": np.inf}, {"fit_intercept": False}, {"solver": "liblinear", "intercept_scaling": 2.0}],
    ids=["unpenalised", "no-intercept", "liblinear"],
)
def test_logistic_variants_closed_form_equals_cg(data, params):
    X, y, Xv, yv, sv = data
    model = make_learner("lr", random_state=0, tol=1e-10, **params).fit(X, y)
    exact = fairness_influence(model, X, y, Xv, yv, sv)
    cg = fairness_influence(model, X, y, Xv, yv, sv, solver="cg")
    assert _rel(cg.values, exact.values) < 1e-6


@pytest.mark.parametrize("name", ["linear_svm", "mlp"])
def test_loss_influence_agrees_across_torch_solvers(data, fitted, name):
    X, y, Xv, yv, sv = data
    model = fitted[name]
    dense = fairness_influence(model, X, y, Xv, yv, sv, solver="exact", with_loss=True)
    # the MLP's Hessian is indefinite: give CG the damping the dense solve settled on
    cg = fairness_influence(
        model, X, y, Xv, yv, sv, solver="cg", damping=dense.damping, with_loss=True
    )
    assert cg.loss_values is not None
    assert np.all(np.isfinite(cg.loss_values))
    assert cg.damping == dense.damping
    assert _rel(cg.loss_values, dense.loss_values) < 1e-5


@pytest.mark.parametrize(
    "build",
    [
        lambda: LogisticRegression(C=0.3, tol=1e-10, max_iter=10_000),
        lambda: LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000),
        lambda: LogisticRegression(fit_intercept=False, tol=1e-10, max_iter=10_000),
        lambda: LogisticRegression(solver="liblinear", intercept_scaling=2.0, tol=1e-12),
        lambda: LogisticRegression(solver="liblinear", intercept_scaling=0.5, C=2.0, tol=1e-12),
    ],
    ids=["lr", "lr-unpenalised", "lr-no-intercept", "liblinear-2", "liblinear-0.5"],
)
def test_closed_form_objective_is_stationary_and_its_hessian_exact(data, build):
    """The closed-form objective J = 0.5 sum pen theta^2 + C sum logloss (liblinear penalises
    b / intercept_scaling like a weight, so pen_b = 1 / intercept_scaling^2) has a vanishing
    gradient at scikit-learn's fit, and logistic_hessian is the derivative of that gradient
    (central differences)."""
    from fairacq.valuation._logistic import augment, logistic_hessian, logistic_objective

    X, y, *_ = data
    Z = StandardScaler().fit_transform(X)
    obj = logistic_objective(build().fit(Z, y))
    Xa = augment(Z, obj.fit_intercept)

    def gradient(theta):
        p = 1.0 / (1.0 + np.exp(-(Xa @ theta)))
        return obj.penalty * theta + obj.loss_scale * Xa.T @ (p - y)

    scale = obj.loss_scale * np.abs(Xa).sum(axis=0).max()  # loss gradients that must cancel
    assert np.abs(gradient(obj.theta)).max() < 1e-6 * scale
    h = 1e-5
    numeric = np.column_stack(
        [
            (gradient(obj.theta + h * e) - gradient(obj.theta - h * e)) / (2 * h)
            for e in np.eye(len(obj.theta))
        ]
    )
    np.testing.assert_allclose(logistic_hessian(obj, Z), numeric, rtol=1e-6, atol=1e-6)
