"""Oracle: per-group rates and gaps equal fairlearn's MetricFrame on the same predictions."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score

from fairacq.data import load_toy
from fairacq.models import audit, audit_predictions, make_learner

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")


def _frame(y_true, y_pred, groups):
    return fairlearn_metrics.MetricFrame(
        metrics={"selection_rate": fairlearn_metrics.selection_rate, "accuracy": accuracy_score},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=groups,
    )


@pytest.mark.parametrize("n_groups", [2, 3])
def test_audit_predictions_equals_metricframe(seed, n_groups):
    rng = np.random.default_rng(seed)
    n = 700
    groups = rng.choice([f"g{i}" for i in range(n_groups)], n, p=np.ones(n_groups) / n_groups)
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true) * (rng.random(n) < 0.9)
    report = audit_predictions(y_true, y_pred, sensitive_features=groups)
    frame = _frame(y_true, y_pred, groups)
    table = report.groups.set_index("group")
    for column in ("selection_rate", "accuracy"):
        np.testing.assert_allclose(
            table[column].to_numpy(), frame.by_group[column].to_numpy(), rtol=0, atol=1e-12
        )
    assert report.metrics["accuracy"] == pytest.approx(frame.overall["accuracy"], abs=1e-12)
    dp = fairlearn_metrics.demographic_parity_difference(y_true, y_pred, sensitive_features=groups)
    eo = fairlearn_metrics.equalized_odds_difference(y_true, y_pred, sensitive_features=groups)
    assert report.metrics["demographic_parity_diff_abs"] == pytest.approx(dp, abs=1e-12)
    assert report.metrics["equalized_odds_diff"] == pytest.approx(eo, abs=1e-12)


def test_fitted_model_audit_equals_metricframe():
    ds = load_toy(500, random_state=3)
    model = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    report = audit(ds, model, refit=False)
    y_pred = model.predict(ds.to_numpy())
    np.testing.assert_array_equal(report.y_pred, y_pred)
    groups = np.asarray(ds.group_names)[ds.s]
    frame = _frame(ds.y, y_pred, groups)
    np.testing.assert_allclose(
        report.groups["selection_rate"], frame.by_group["selection_rate"], atol=1e-12
    )
    dp = fairlearn_metrics.demographic_parity_difference(ds.y, y_pred, sensitive_features=groups)
    assert report.metrics["demographic_parity_diff_abs"] == pytest.approx(dp, abs=1e-12)
