"""Group thresholds within a tolerance (fit_thresholds, evaluate_thresholds).

Oracle: the thresholds are fitted on a set's rows, so on those rows the chance of a positive
prediction, averaged per group, is each group's expected selection rate; Hardt et al.'s
constraint says these differ by at most ``tol`` (exactly equal at ``tol=0``). The expected
accuracy on the same rows can only grow as the constraint is relaxed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError
from fairacq.models import (
    evaluate_thresholds,
    fit_thresholds,
    make_learner,
    threshold_constraint,
)

pytest.importorskip("fairlearn")

DATA = load_toy(600, random_state=3)
MODEL = make_learner("lr", random_state=0).fit(DATA.to_numpy(), DATA.y)


def _chance(post, data) -> np.ndarray:
    return np.asarray(post.model._pmf_predict(data.to_numpy(), sensitive_features=data.s)[:, 1])


def _rate_gap(post, data) -> float:
    p, s = _chance(post, data), np.asarray(data.s)
    rates = [p[s == g].mean() for g in np.unique(s)]
    return float(max(rates) - min(rates))


def _expected_accuracy(post, data) -> float:
    p, y = _chance(post, data), np.asarray(data.y)
    return float(np.mean(np.where(y == 1, p, 1 - p)))


@settings(max_examples=15, deadline=None)
@given(tol=st.floats(0.0, 0.3))
def test_group_rates_differ_by_at_most_tol_on_the_fitted_rows(tol: float) -> None:
    post = fit_thresholds(MODEL, DATA, tol=tol)
    assert _rate_gap(post, DATA) <= tol + 1e-6


def test_relaxing_the_tolerance_never_costs_expected_accuracy() -> None:
    accs = [_expected_accuracy(fit_thresholds(MODEL, DATA, tol=t), DATA) for t in (0, 0.05, 0.2)]
    assert accs[0] <= accs[1] + 1e-9 <= accs[2] + 2e-9
    # the unconstrained model is more unfair than the tolerance here, so tol bites
    assert _rate_gap(fit_thresholds(MODEL, DATA, tol=0.0), DATA) < 1e-6


def test_equal_opportunity_thresholds_equalise_true_positive_rates() -> None:
    post = fit_thresholds(MODEL, DATA, metric="equal_opportunity_diff")
    p, s, y = _chance(post, DATA), np.asarray(DATA.s), np.asarray(DATA.y)
    tpr = [p[(s == g) & (y == 1)].mean() for g in np.unique(s)]
    assert post.name == "threshold-eopp"
    assert max(tpr) - min(tpr) < 1e-6


def test_evaluation_is_seeded_and_gives_scores_to_auc() -> None:
    post = fit_thresholds(MODEL, DATA, tol=0.02)
    a = evaluate_thresholds(post, DATA, ["accuracy", "auc_roc"], random_state=5)
    b = evaluate_thresholds(post, DATA, ["accuracy", "auc_roc"], random_state=5)
    assert a == b
    assert 0.5 < a["auc_roc"] <= 1.0
    assert abs(a["accuracy"] - _expected_accuracy(post, DATA)) < 0.06


def test_the_model_is_left_unchanged() -> None:
    before = MODEL.predict_proba(DATA.to_numpy())
    fit_thresholds(MODEL, DATA, tol=0.1)
    np.testing.assert_array_equal(MODEL.predict_proba(DATA.to_numpy()), before)


@pytest.mark.parametrize(
    ("metric", "tol", "words"),
    [
        ("accuracy", 0.0, "cannot target 'accuracy'"),
        ("equalized_odds_diff", 0.1, "take no tolerance"),
    ],
)
def test_what_thresholds_cannot_do_is_refused(metric: str, tol: float, words: str) -> None:
    with pytest.raises(InvalidParameterError, match=words):
        threshold_constraint(metric, tol)


@pytest.mark.parametrize("tol", [-0.1, float("nan"), float("inf")])
def test_a_bad_tolerance_is_refused(tol: float) -> None:
    with pytest.raises(InvalidParameterError, match="tol must be >= 0"):
        fit_thresholds(MODEL, DATA, tol=tol)


def test_described_rules_give_the_chance_of_a_positive_prediction() -> None:
    from fairacq.models import describe_thresholds

    post = fit_thresholds(MODEL, DATA, tol=0.05)
    rules = describe_thresholds(post, DATA.group_names)
    scores = MODEL.predict_proba(DATA.to_numpy())[:, 1]
    chance = np.zeros(len(DATA))
    for code, name in enumerate(DATA.group_names):
        rule, rows = rules[name], np.asarray(DATA.s) == code
        for k in (0, 1):
            t = float(rule[f"threshold{k}"])
            above = scores[rows] > t if rule[f"operator{k}"] == ">" else scores[rows] < t
            chance[rows] += rule[f"p{k}"] * above
        chance[rows] = (1 - rule["p_ignore"]) * chance[rows] + rule["p_ignore"] * rule[
            "prediction_constant"
        ]
    np.testing.assert_allclose(chance, _chance(post, DATA), atol=1e-9)
