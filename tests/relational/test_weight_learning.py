"""Voted-perceptron weight learning (PSL MaxLikelihoodMPE)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.relational import (
    FairnessPrior,
    GroundModel,
    HingePotentials,
    LinearConstraints,
    admm_map,
    exact_map,
    fairness_constraints,
    learn_weights,
)

TIGHT = {"eps_abs": 1e-9, "eps_rel": 1e-8, "max_iter": 100_000}


def _up_down_model(n: int = 4) -> GroundModel:
    """Rule 0 pushes every atom up (``1 - y``), rule 1 down (``y``); squared hinges."""
    eye = np.eye(n)
    pots = HingePotentials.build(
        np.vstack([-eye, eye]),
        np.r_[np.ones(n), np.zeros(n)],
        np.ones(2 * n),
        np.ones(2 * n, bool),
        np.r_[np.zeros(n, int), np.ones(n, int)],
        n_variables=n,
    )
    variables = pd.DataFrame({"predicate": ["p"] * n, "args": [(str(i),) for i in range(n)]})
    return GroundModel(variables, pots, LinearConstraints.empty(n), np.ones(2), ("up", "down"))


def test_first_step_is_psl_update() -> None:
    # One step from w = 5: w' = max(5 + (Phi(MAP) - Phi(truth)) / n_r, 0).
    model = _up_down_model()
    truth = np.array([1.0, 0.9, 0.8, 0.6])
    result = learn_weights(model, truth, n_iter=1, admm_options=TIGHT, random_state=0)
    y_map = exact_map(model.with_rule_weights([5.0, 5.0])).values  # = 0.5 everywhere
    grad = (model.rule_incompatibility(y_map) - model.rule_incompatibility(truth)) / 4
    np.testing.assert_allclose(result.weights, np.maximum(5.0 + grad, 0.0), atol=1e-6)
    np.testing.assert_allclose(result.gradient_history[0], grad, atol=1e-6)


def test_weights_move_towards_the_truth_and_are_averaged() -> None:
    model = _up_down_model()
    truth = np.array([1.0, 0.9, 0.8, 0.7])
    result = learn_weights(model, truth, admm_options=TIGHT, random_state=0)
    assert result.n_iter == 25
    assert result.weight_history.shape == (25, 2)
    np.testing.assert_allclose(result.weights, result.weight_history.mean(axis=0))
    assert np.all(result.weight_history >= 0.0)
    assert result.weights[0] > result.weights[1]
    # With squared hinges the MAP is w_up / (w_up + w_down); it moves to the truth's mean.
    before = admm_map(model.with_rule_weights([5.0, 5.0]), **TIGHT).values
    after = result.map_result.values
    assert np.abs(after - truth).mean() < np.abs(before - truth).mean()
    np.testing.assert_allclose(after, result.weights[0] / result.weights.sum(), atol=1e-5)


def test_truth_at_the_map_state_is_a_fixed_point() -> None:
    # If the truth is the MAP state of w*, the MPE gradient at w* is zero: weights stay.
    model = _up_down_model()
    w_star = np.array([3.0, 1.0])
    truth = exact_map(model.with_rule_weights(w_star)).values
    result = learn_weights(model, truth, init_weight=w_star, admm_options=TIGHT, random_state=1)
    np.testing.assert_allclose(result.weights, w_star, atol=1e-5)


def test_weights_are_clipped_at_zero() -> None:
    # The truth is all 0: the "up" rule keeps being violated and goes to 0.
    model = _up_down_model()
    result = learn_weights(model, np.zeros(4), init_weight=0.1, step=10.0, admm_options=TIGHT)
    assert result.weight_history[:, 0].min() == 0.0
    assert result.weights[0] < result.weights[1]


def test_init_weight_none_keeps_model_weights() -> None:
    model = _up_down_model().with_rule_weights([2.0, 2.0])
    truth = np.full(4, 0.5)  # the MAP of equal weights: no gradient
    result = learn_weights(model, truth, init_weight=None, admm_options=TIGHT)
    np.testing.assert_allclose(result.weights, [2.0, 2.0], atol=1e-5)


def test_fair_weight_learning_keeps_the_constraint_and_reports_priors() -> None:
    model = _up_down_model(6)
    truth = np.array([0.1, 0.2, 0.1, 0.9, 0.8, 0.9])
    p, u = np.arange(3), np.arange(3, 6)
    rows = fairness_constraints(model, "rd<=0.05", protected=p, unprotected=u)
    prior = FairnessPrior("equalized_odds", truth, p, u, alpha=0.5)
    result = learn_weights(
        model, truth, fairness=rows, priors=[prior], admm_options=TIGHT, random_state=0
    )
    values = result.map_result.values
    assert abs(values[p].mean() - values[u].mean()) <= 0.05 + 1e-5
    assert result.model.constraints.n_constraints == 2
    assert set(result.priors) == {"0.5*equalized_odds"}
    assert result.priors["0.5*equalized_odds"] == pytest.approx(prior(values))
    named = learn_weights(model, truth, n_iter=2, priors={"eo": prior}, admm_options=TIGHT)
    assert set(named.priors) == {"eo"}


def test_same_seed_same_weights() -> None:
    model = _up_down_model()
    truth = np.array([1.0, 0.9, 0.8, 0.7])
    a = learn_weights(model, truth, n_iter=5, random_state=3)
    b = learn_weights(model, truth, n_iter=5, random_state=3)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_bad_inputs() -> None:
    model = _up_down_model()
    with pytest.raises(InvalidDataError, match="Latent targets"):
        learn_weights(model, [1.0, np.nan, 0.0, 0.0])
    with pytest.raises(InvalidDataError, match="one truth value per variable"):
        learn_weights(model, [1.0, 0.0])
    with pytest.raises(InvalidDataError, match=r"\[0, 1\]"):
        learn_weights(model, [1.0, 2.0, 0.0, 0.0])
    with pytest.raises(UnknownNameError, match="Did you mean 'voted_perceptron'"):
        learn_weights(model, np.zeros(4), method="voted_perceptrn")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'n_iter'"):
        learn_weights(model, np.zeros(4), n_iter=0)
    with pytest.raises(InvalidParameterError, match="'step'"):
        learn_weights(model, np.zeros(4), step=-1.0)
    with pytest.raises(InvalidParameterError, match="'init_weight'"):
        learn_weights(model, np.zeros(4), init_weight=[1.0, -1.0])
