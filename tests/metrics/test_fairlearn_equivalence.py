"""Our metrics equal fairlearn's to 1e-12 wherever the definitions coincide."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings

from fairacq.metrics import (
    average_odds_diff,
    demographic_parity_diff_abs,
    demographic_parity_ratio,
    equal_opportunity_diff,
    equalized_odds_diff,
    group_table,
)
from tests.metrics.strategies import METRIC_SETTINGS, Classified, classified

fl = pytest.importorskip("fairlearn.metrics")
skm = pytest.importorskip("sklearn.metrics")

TOL = 1e-12
# fairlearn builds a MetricFrame per call (~10 ms); 50 examples keep this file fast.
FL_SETTINGS = settings(METRIC_SETTINGS, max_examples=50)


@given(classified())
@FL_SETTINGS
def test_demographic_parity_difference(d: Classified) -> None:
    ours = demographic_parity_diff_abs(d.y_pred, d.s)
    theirs = fl.demographic_parity_difference(d.y_true, d.y_pred, sensitive_features=d.s)
    assert ours == pytest.approx(theirs, abs=TOL)


@given(classified())
@FL_SETTINGS
def test_demographic_parity_ratio(d: Classified) -> None:
    assume(d.y_pred.any())  # fairlearn gives NaN when nobody is selected; we give 1.0
    ours = demographic_parity_ratio(d.y_pred, d.s)
    theirs = fl.demographic_parity_ratio(d.y_true, d.y_pred, sensitive_features=d.s)
    assert ours == pytest.approx(theirs, abs=TOL)


@given(classified(both_labels_per_group=True))
@FL_SETTINGS
def test_equalized_odds_and_equal_opportunity(d: Classified) -> None:
    kw = {"sensitive_features": d.s}
    assert equalized_odds_diff(d.y_true, d.y_pred, d.s) == pytest.approx(
        fl.equalized_odds_difference(d.y_true, d.y_pred, **kw), abs=TOL
    )
    assert average_odds_diff(d.y_true, d.y_pred, d.s) == pytest.approx(
        fl.equalized_odds_difference(d.y_true, d.y_pred, agg="mean", **kw), abs=TOL
    )
    assert equal_opportunity_diff(d.y_true, d.y_pred, d.s) == pytest.approx(
        fl.equal_opportunity_difference(d.y_true, d.y_pred, **kw), abs=TOL
    )


@given(classified(both_labels_per_group=True))
@FL_SETTINGS
def test_group_table_matches_metric_frame(d: Classified) -> None:
    frame = fl.MetricFrame(
        metrics={
            "selection_rate": fl.selection_rate,
            "accuracy": skm.accuracy_score,
            "tpr": fl.true_positive_rate,
            "fpr": fl.false_positive_rate,
            "size": fl.count,
        },
        y_true=d.y_true,
        y_pred=d.y_pred,
        sensitive_features=d.s,
    )
    theirs = frame.by_group
    ours = group_table(d.y_true, d.y_pred, d.s).set_index("group")
    assert list(ours.index) == list(theirs.index)
    for col in ["selection_rate", "accuracy", "tpr", "fpr"]:
        np.testing.assert_allclose(
            ours[col].to_numpy(), theirs[col].to_numpy(dtype=float), rtol=0, atol=TOL
        )
    np.testing.assert_array_equal(ours["size"].to_numpy(), theirs["size"].to_numpy(dtype=int))


def _rows_where_rate_defined(d: Classified, label: int) -> np.ndarray:
    """Rows of the groups that have at least one row with ``y_true == label``."""
    keep = [g for g in np.unique(d.s) if (d.y_true[d.s == g] == label).any()]
    return np.isin(d.s, keep)


@given(classified())
@FL_SETTINGS
def test_odds_with_groups_lacking_a_label(d: Classified) -> None:
    """A group without positives has no TPR (without negatives, no FPR). We leave it out of the
    gap, as docs/metrics.md says; fairlearn counts its rate as 0 (scikit-learn's
    zero_division). So ours equals fairlearn's on the groups where the rate is defined, and is
    NaN where fewer than two groups have it; equalised odds is NaN when either gap is."""
    pos = _rows_where_rate_defined(d, 1)
    ours_eo = equal_opportunity_diff(d.y_true, d.y_pred, d.s)
    if len(np.unique(d.s[pos])) < 2:
        assert np.isnan(ours_eo)
    else:
        theirs = fl.equal_opportunity_difference(
            d.y_true[pos], d.y_pred[pos], sensitive_features=d.s[pos]
        )
        assert ours_eo == pytest.approx(theirs, abs=TOL)
    neg = _rows_where_rate_defined(d, 0)
    odds = equalized_odds_diff(d.y_true, d.y_pred, d.s)
    if len(np.unique(d.s[pos])) < 2 or len(np.unique(d.s[neg])) < 2:
        assert np.isnan(odds)
    else:
        fpr_gap = fl.MetricFrame(
            metrics=fl.false_positive_rate,
            y_true=d.y_true[neg],
            y_pred=d.y_pred[neg],
            sensitive_features=d.s[neg],
        ).difference()
        assert odds == pytest.approx(max(ours_eo, fpr_gap), abs=TOL)


def test_equalized_odds_is_nan_when_either_rate_is_undefined() -> None:
    from fairacq.metrics import equalized_odds_diff_signed

    no_pos_in_1 = ([1, 0, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1])  # TPR undefined for group 1
    no_neg_in_1 = ([1, 0, 1, 1], [1, 0, 0, 1], [0, 0, 1, 1])  # FPR undefined for group 1
    for y, p, s in (no_pos_in_1, no_neg_in_1):
        assert np.isnan(equalized_odds_diff(y, p, s))
        assert np.isnan(equalized_odds_diff_signed(y, p, s))
