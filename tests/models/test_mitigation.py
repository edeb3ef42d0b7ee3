from __future__ import annotations

import numpy as np
import pytest

from fairacq.data import load_toy, split_train_val_test
from fairacq.exceptions import InvalidParameterError, UnknownNameError
from fairacq.models import (
    MITIGATIONS,
    evaluate,
    evaluate_mitigation,
    fit_mitigation,
    make_learner,
    mitigation_unavailable,
    prediction_metrics,
    reweighing_weights,
)

pytest.importorskip("fairlearn")

DP = "demographic_parity_diff_abs"


@pytest.fixture(scope="module")
def split():
    return split_train_val_test(load_toy(1200), random_state=0)


def test_threshold_optimizer_lowers_the_dp_gap_of_the_unmitigated_model(split):
    plain = make_learner("lr", random_state=0).fit(split.train.to_numpy(), split.train.y)
    before = evaluate(plain, split.test)[DP]
    model = fit_mitigation("threshold-dp", split.train, random_state=0)
    after = evaluate_mitigation(model, split.test, random_state=0)[DP]
    assert before > 0.15
    assert after < before / 2


@pytest.mark.parametrize("name", sorted(MITIGATIONS))
def test_each_comparator_matches_fairlearns_own_metrics(split, name):
    from fairlearn.metrics import (
        demographic_parity_difference,
        equal_opportunity_difference,
        equalized_odds_difference,
    )
    from sklearn.metrics import accuracy_score

    model = fit_mitigation(name, split.train, random_state=1)
    pred = model.predict(split.test, random_state=3)
    ours = evaluate_mitigation(model, split.test, random_state=3)
    y, s = split.test.y, split.test.s
    assert ours["accuracy"] == pytest.approx(accuracy_score(y, pred))
    assert ours[DP] == pytest.approx(demographic_parity_difference(y, pred, sensitive_features=s))
    assert ours["equalized_odds_diff"] == pytest.approx(
        equalized_odds_difference(y, pred, sensitive_features=s)
    )
    assert ours["equal_opportunity_diff"] == pytest.approx(
        equal_opportunity_difference(y, pred, sensitive_features=s)
    )


def test_predictions_are_seeded(split):
    model = fit_mitigation("expgrad-eo", split.train, random_state=0)
    again = fit_mitigation("expgrad-eo", split.train, random_state=0)
    first = model.predict(split.test, random_state=5)
    np.testing.assert_array_equal(first, again.predict(split.test, random_state=5))


def test_plain_predictions_score_as_evaluate_does(split):
    plain = make_learner("lr", random_state=0).fit(split.train.to_numpy(), split.train.y)
    pred = plain.predict(split.test.to_numpy())
    assert prediction_metrics(pred, split.test) == pytest.approx(evaluate(plain, split.test))


def test_reweighing_makes_group_and_label_independent():
    ds = load_toy(600)
    w = reweighing_weights(ds)
    for g in range(ds.n_groups):
        rows = ds.s == g
        rate = np.average(ds.y[rows], weights=w[rows])
        assert rate == pytest.approx(ds.y.mean())


def test_a_learner_without_sample_weight_is_refused_for_reweighting_only(split):
    from sklearn.neighbors import KNeighborsClassifier

    knn = KNeighborsClassifier()
    assert "sample_weight" in mitigation_unavailable("expgrad-dp", knn)
    assert mitigation_unavailable("threshold-dp", knn) is None
    with pytest.raises(InvalidParameterError, match="sample_weight"):
        fit_mitigation("reweighing", split.train, learner=knn)


def test_unknown_name_suggests_the_closest():
    with pytest.raises(UnknownNameError, match="threshold-dp"):
        mitigation_unavailable("treshold-dp", "lr")


def _error_gap(errors: np.ndarray, ds) -> float:
    per_group = [errors[ds.s == g].mean() for g in range(ds.n_groups)]
    return float(max(per_group) - min(per_group))


def test_error_rate_parity_evens_the_groups_training_errors(split):
    X, y = split.train.to_numpy(), split.train.y
    plain = make_learner("lr", random_state=0).fit(X, y)
    model = fit_mitigation("expgrad-error", split.train, random_state=0)
    p1 = model.model._pmf_predict(X)[:, 1]  # the mixture's P(predict 1): its expected errors
    before = _error_gap((plain.predict(X) != y).astype(float), split.train)
    after = _error_gap(np.where(y == 1, 1.0 - p1, p1), split.train)
    assert before > 0.04
    assert after <= 0.02 + 1e-3  # each group within ErrorRateParity's 0.01 of the overall
