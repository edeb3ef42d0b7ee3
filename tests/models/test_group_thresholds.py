"""Group thresholds placed at the quantiles of unlabelled rows (place_on_unlabelled).

Oracle: a threshold at the ``1 - r`` "lower" quantile of a group's ``n`` scores leaves
``n - 1 - floor((1 - r)(n - 1))`` of them strictly above it when the scores are distinct,
so the share selected is within ``1/n`` of ``r`` (derivation: the lower quantile is the
order statistic at index ``floor((1 - r)(n - 1))``, counted from 0). Rate 0 selects nothing
and rate 1 everything. ``fit_thresholds(..., unlabelled=...)`` keeps the rates Hardt et al.'s
thresholds chose on the labelled rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import InvalidParameterError
from fairacq.models import describe_thresholds, evaluate_thresholds, fit_thresholds, make_learner
from fairacq.models._group_thresholds import GroupThresholds, place_on_unlabelled

pytest.importorskip("fairlearn")

DATA = load_toy(600, random_state=3)
MODEL = make_learner("lr", random_state=0).fit(DATA.to_numpy(), DATA.y)
POOL = load_toy(3000, random_state=4)


def _rates(rule: GroupThresholds, data: FairDataset) -> np.ndarray:
    pred = rule.predict(data.to_numpy(), sensitive_features=data.s)
    s = np.asarray(data.s)
    return np.array([pred[s == g].mean() for g in range(data.n_groups)])


@settings(max_examples=25, deadline=None)
@given(rates=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2))
def test_each_group_gets_its_share_of_the_unlabelled_rows(rates: list[float]) -> None:
    rule = place_on_unlabelled(MODEL, np.array(rates), POOL)
    sizes = np.bincount(np.asarray(POOL.s))
    np.testing.assert_array_less(np.abs(_rates(rule, POOL) - rates), 1 / sizes + 1e-12)


def test_rates_zero_and_one_select_nothing_and_everything() -> None:
    rule = place_on_unlabelled(MODEL, np.array([0.0, 1.0]), POOL)
    np.testing.assert_array_equal(_rates(rule, POOL), [0.0, 1.0])


def test_several_datasets_count_as_one() -> None:
    half = len(POOL) // 2
    parts = [POOL.subset(range(half)), POOL.subset(range(half, len(POOL)))]
    one = place_on_unlabelled(MODEL, np.array([0.3, 0.6]), POOL)
    two = place_on_unlabelled(MODEL, np.array([0.3, 0.6]), parts)
    np.testing.assert_array_equal(one.thresholds, two.thresholds)


def test_a_group_without_rows_is_named() -> None:
    only_one = POOL.subset(np.flatnonzero(np.asarray(POOL.s) == 0))
    with pytest.raises(InvalidParameterError, match="no row of group"):
        place_on_unlabelled(MODEL, np.array([0.3, 0.3]), only_one)


@pytest.mark.parametrize("tol", [0.0, 0.1])
def test_fitted_thresholds_keep_the_rates_chosen_on_the_labelled_rows(tol: float) -> None:
    hardt = fit_thresholds(MODEL, DATA, tol=tol)
    placed = fit_thresholds(MODEL, DATA, tol=tol, unlabelled=POOL)
    assert isinstance(placed.model, GroupThresholds)
    chance = hardt.model._pmf_predict(DATA.to_numpy(), sensitive_features=DATA.s)[:, 1]
    s = np.asarray(DATA.s)
    chosen = np.array([chance[s == g].mean() for g in range(DATA.n_groups)])
    both = POOL.concat(DATA)
    sizes = np.bincount(np.asarray(both.s))
    np.testing.assert_array_less(np.abs(_rates(placed.model, both) - chosen), 1 / sizes + 1e-9)
    assert abs(np.ptp(chosen)) <= tol + 1e-6


def test_placed_thresholds_predict_without_a_coin_and_describe_as_one_threshold() -> None:
    placed = fit_thresholds(MODEL, DATA, tol=0.05, unlabelled=POOL)
    a = placed.predict(DATA, random_state=0)
    np.testing.assert_array_equal(a, placed.predict(DATA, random_state=1))
    scores = evaluate_thresholds(placed, DATA, ["accuracy", "auc_roc"])
    assert scores["accuracy"] == pytest.approx(np.mean(a == np.asarray(DATA.y)))
    rules = describe_thresholds(placed, DATA.group_names)
    probs = MODEL.predict_proba(DATA.to_numpy())[:, 1]
    for code, name in enumerate(DATA.group_names):
        rule, rows = rules[name], np.asarray(DATA.s) == code
        assert (rule["p0"], rule["p1"], rule["operator0"]) == (1.0, 0.0, ">")
        np.testing.assert_array_equal(a[rows], probs[rows] > float(rule["threshold0"]))


def test_rates_that_need_labels_are_not_placed_on_unlabelled_rows() -> None:
    with pytest.raises(InvalidParameterError, match="demographic parity only"):
        fit_thresholds(MODEL, DATA, metric="equal_opportunity_diff", unlabelled=POOL)
