"""Group thresholds on labelled rows where one group holds one label only (no crash).

Oracle: fairlearn refuses such a group ("Degenerate labels"); the fallback fits the other
groups as fairlearn would and gives the one-label group, for demographic parity, the other
groups' rate (at tol=0) and, for error-rate gaps, the model's own threshold 0.5.
"""

from __future__ import annotations

import numpy as np
import pytest

from fairacq.data import load_toy
from fairacq.exceptions import InvalidDataError, ResultWarning
from fairacq.models import (
    PartialThresholds,
    describe_thresholds,
    evaluate_thresholds,
    fit_mitigation,
    fit_thresholds,
    group_rates,
    make_learner,
    one_label_groups,
)

pytest.importorskip("fairlearn")

DATA = load_toy(900, random_state=1)
MODEL = make_learner("lr", random_state=0).fit(DATA.to_numpy(), DATA.y)
S, Y = np.asarray(DATA.s), np.asarray(DATA.y)
# g1 keeps its negatives only: the (g1, label 1) cell is empty
VAL = DATA.subset(np.flatnonzero((S == 0) | (Y == 0))[:300])


def test_the_empty_cell_is_found() -> None:
    assert one_label_groups(VAL) == {1: 0}
    assert one_label_groups(DATA) == {}


def test_demographic_parity_gives_the_one_label_group_the_others_rate() -> None:
    with pytest.warns(ResultWarning, match="group 'g1' has label 0 only"):
        post = fit_thresholds(MODEL, VAL, tol=0.0)
    assert isinstance(post.model, PartialThresholds)
    rates = group_rates(post, VAL)
    assert abs(rates[0] - rates[1]) < 0.02  # a quantile on 100-odd rows
    assert set(describe_thresholds(post, DATA.group_names)) == {"g0", "g1"}


def test_a_tolerance_lets_a_negative_only_group_take_the_lowest_rate() -> None:
    with pytest.warns(ResultWarning):
        tight, loose = (fit_thresholds(MODEL, VAL, tol=t) for t in (0.0, 0.2))
    assert group_rates(loose, VAL)[1] < group_rates(tight, VAL)[1] - 0.1


@pytest.mark.parametrize("metric", ["equal_opportunity_diff", "equalized_odds_diff"])
def test_error_rate_gaps_keep_the_models_own_threshold(metric: str) -> None:
    with pytest.warns(ResultWarning, match=r"own threshold \(0\.5\)"):
        post = fit_thresholds(MODEL, VAL, metric=metric)
    g1 = VAL.subset(np.flatnonzero(np.asarray(VAL.s) == 1))
    expected = (MODEL.predict_proba(g1.to_numpy())[:, 1] > 0.5).astype(int)
    np.testing.assert_array_equal(post.predict(g1, random_state=0), expected)
    assert np.isfinite(evaluate_thresholds(post, DATA, ["accuracy", metric])[metric])


def test_pool_placement_keeps_the_note() -> None:
    with pytest.warns(ResultWarning):
        post = fit_thresholds(MODEL, VAL, unlabelled=DATA)
    assert "g1" in post.model.note


def test_nothing_sensible_is_one_clear_error() -> None:
    only_negatives = DATA.subset(np.flatnonzero(Y == 0))
    with pytest.raises(InvalidDataError, match="no group's labelled rows hold both labels"):
        fit_thresholds(MODEL, only_negatives)
    one_group = DATA.subset(np.flatnonzero(S == 0))
    with pytest.raises(InvalidDataError, match="no row of group 'g1'"):
        fit_thresholds(MODEL, one_group)


def test_the_collect_nothing_comparator_stays_fairlearns_own() -> None:
    # compare's "collect nothing" rows are fairlearn's ThresholdOptimizer as published: a
    # group with one label raises, and compare keeps that as one failure line per seed
    with pytest.raises(ValueError, match="Degenerate labels"):
        fit_mitigation("threshold-eo", VAL, random_state=0)
